import { judgeAssertion } from './assertions.ts';
import type { AssertionResult, Certificate, CheckResult, MonitorSettings } from './monitor.ts';
import { statusAccepted, type Assertion } from './monitor-options.ts';

/** A check's verdict from what its probe observed (src/checks/): the status rule, the
 *  assertions, and the result recorded. Pure. */

/** At most this much of a response body is read (1 MiB, after content decoding), and only when
 *  an assertion needs the body (source `body` or `json`); the rest is not read. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** What a probe saw. `error`: no usable answer came (timeout, refused, DNS, TLS, the egress
 *  policy), and the check fails with that text whatever else is here. */
export interface Observation {
  /** ISO time the check started. */
  checked_at: string;
  /** Milliseconds to the response headers (http), the connection or handshake (tcp), the answer
   *  (dns); to the failure when there is an error. */
  response_ms: number;
  status_code?: number;
  /** Response headers, names in lower case; a repeated header's values joined by ", ". */
  headers?: Record<string, string>;
  /** The body as UTF-8 text, read only when an assertion needs it; at most MAX_BODY_BYTES. */
  body?: string;
  /** The body was longer than MAX_BODY_BYTES: `body` is its beginning. */
  body_truncated?: boolean;
  /** The peer's certificate (https, tcp with tls); of the last hop after redirects. */
  certificate?: Certificate;
  dns_records?: string[];
  error?: string;
}

/** The settings the verdict depends on: SPEC's expected status and the options. */
export type JudgedSettings = Pick<MonitorSettings, 'expected_status'> &
  Pick<Partial<MonitorSettings>, 'type' | 'accepted_statuses' | 'assertions'>;

/** SPEC's text when the status is not the expected one, or not among `accepted_statuses`. */
export const statusFailureText = (s: JudgedSettings, status: number): string =>
  s.accepted_statuses === undefined
    ? `expected status ${s.expected_status}, received ${status}`
    : `expected status in ${s.accepted_statuses.join(', ')}, received ${status}`;

const statusPasses = (s: JudgedSettings, status: number): boolean =>
  s.accepted_statuses === undefined ? status === s.expected_status : statusAccepted(s.accepted_statuses, status);

/** The check's result:
 *  - an observation with an `error` is a failed check with that error; no assertion is
 *    evaluated (nothing came to assert on);
 *  - http: the status passes when `accepted_statuses` (when set) has it, else when it is
 *    `expected_status`; a failing status says `expected status 200, received 503` (SPEC), or
 *    `expected status in 200-299, 301, received 503`;
 *  - tcp and dns: no status; the connection (the answer) is the pass;
 *  - every assertion is evaluated, also when the status failed; `assertions` lists their
 *    verdicts (only for a monitor with assertions), and a failing one fails the check;
 *  - `error` of a failed check is the failure texts joined by "; ", the status first;
 *  - `certificate` and `dns_records` are there when observed.
 *  A monitor without options (SPEC's) gets exactly SPEC's result: `checked_at`, `ok`,
 *  `status_code`, `response_ms`, and `error` when it failed. */
export const judge = (settings: JudgedSettings, o: Observation): CheckResult => {
  const status = o.status_code === undefined ? {} : { status_code: o.status_code };
  const seen = {
    ...(o.certificate === undefined ? {} : { certificate: o.certificate }),
    ...(o.dns_records === undefined ? {} : { dns_records: o.dns_records }),
  };
  if (o.error !== undefined)
    return { checked_at: o.checked_at, ok: false, ...status, response_ms: o.response_ms, error: o.error, ...seen };
  const failures: string[] = [];
  if ((settings.type ?? 'http') === 'http') {
    if (o.status_code === undefined) failures.push('no response status');
    else if (!statusPasses(settings, o.status_code)) failures.push(statusFailureText(settings, o.status_code));
  }
  const assertions: AssertionResult[] = [];
  for (const a of settings.assertions ?? []) {
    const { result, failure } = judgeAssertion(a as Assertion, o);
    assertions.push(result);
    if (failure !== null) failures.push(failure);
  }
  return {
    checked_at: o.checked_at,
    ok: failures.length === 0,
    ...status,
    response_ms: o.response_ms,
    ...(failures.length === 0 ? {} : { error: failures.join('; ') }),
    ...(assertions.length === 0 ? {} : { assertions }),
    ...seen,
  };
};
