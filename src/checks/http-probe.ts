import got, { RequestError, TimeoutError } from 'got';
import type { CheckResult, MonitorSettings } from '../domain/monitor.ts';

const checkPasses = (expected: number, status: number | undefined) => status === expected;
const failureText = (expected: number, result: Pick<CheckResult, 'status_code' | 'error'>): string =>
  result.error ?? `expected status ${expected}, received ${result.status_code ?? 'no response'}`;
import { refusalOf, type EgressPolicy } from './egress.ts';

export type CheckTarget = Pick<MonitorSettings, 'url' | 'timeout_seconds' | 'expected_status'>;

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/;

/** The error text of a check that got no response. */
const describe = (error: unknown, target: CheckTarget): string => {
  const refused = refusalOf(error);
  if (refused !== null) return refused;
  if (error instanceof TimeoutError) return `timeout: no response within ${target.timeout_seconds} s`;
  if (error instanceof RequestError) {
    const host = new URL(target.url).host;
    if (error.code === 'ECONNREFUSED') return `connection refused by ${host}`;
    if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN')
      return `DNS lookup failed for ${new URL(target.url).hostname}`;
    if (error.code === 'ECONNRESET') return `connection reset by ${host}`;
    if (TLS_CODE.test(error.code)) return `TLS error: ${error.message}`;
    return `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
};

/** One HTTP GET (SPEC 4.10): the monitor's timeout for the whole exchange up to the response
 *  headers, no retries, redirects not followed (a 301 is a status like any other, so a monitor
 *  can expect it). The body is not read: the status decides, and a large page costs nothing.
 *  Every failed result carries its error text, whether a response came or not. The connection
 *  goes through the egress policy: a refused address is a failed check with the policy's text as
 *  its error, and nothing is sent. */
export const runCheck = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<CheckResult> => (await probe(target, egress, now)).result;

/** `runCheck`, also saying whether the egress policy refused the connection (for metrics). */
export const probe = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<{ result: CheckResult; refused: boolean }> => {
  const checkedAt = now();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const statusCode = await new Promise<number>((resolve, reject) => {
      const stream = got.stream(target.url, {
        method: 'GET',
        agent: egress.agent,
        timeout: { request: target.timeout_seconds * 1000 },
        retry: { limit: 0 },
        followRedirect: false,
        throwHttpErrors: false,
        decompress: false,
        headers: { 'user-agent': 'watchlog-monitor/0.1', accept: '*/*' },
      });
      stream.once('response', (response: { statusCode: number }) => {
        resolve(response.statusCode);
        stream.destroy();
      });
      stream.once('error', reject);
    });
    const result: CheckResult = {
      checked_at: checkedAt.toISOString(),
      ok: true,
      status_code: statusCode,
      response_ms: elapsed(),
    };
    // A failed check says why, as the docs and the down event do: "expected status 200, received 503".
    return {
      result: checkPasses(target.expected_status, statusCode)
        ? result
        : { ...result, ok: false, error: failureText(target.expected_status, result) },
      refused: false,
    };
  } catch (error) {
    return {
      result: {
        checked_at: checkedAt.toISOString(),
        ok: false,
        response_ms: elapsed(),
        error: describe(error, target),
      },
      refused: refusalOf(error) !== null,
    };
  }
};
