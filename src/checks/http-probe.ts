import type { IncomingHttpHeaders } from 'node:http';
import got, { MaxRedirectsError, type Method, RequestError, TimeoutError } from 'got';
import { MAX_BODY_BYTES, type Observation } from '../domain/check-judge.ts';
import type { MonitorSettings } from '../domain/monitor.ts';
import { refusalOf, type EgressPolicy } from './egress.ts';
import { certificateOf, stopwatch, TLS_CODE, type Observed } from './observed.ts';

/** What a probe needs of a monitor: SPEC's three settings, and the options (absent ones are their
 *  defaults). A MonitorSettings (or a monitor as read) is one. */
export type CheckTarget = Pick<MonitorSettings, 'url' | 'timeout_seconds' | 'expected_status'> &
  Partial<Omit<MonitorSettings, 'url' | 'timeout_seconds' | 'expected_status'>>;

/** The whole exchange outlived the monitor's timeout (got's own timeout is per hop). */
class DeadlineError extends Error {}

/** The error text of a check that got no usable response. `responded`: the headers had come
 *  (the failure was in reading the body). */
const describe = (error: unknown, target: CheckTarget, responded: boolean): string => {
  const refused = refusalOf(error);
  if (refused !== null) return refused;
  const expired = error instanceof DeadlineError || (error instanceof Error && error.cause instanceof DeadlineError);
  if (error instanceof TimeoutError || expired)
    return responded
      ? `timeout: response body not read within ${target.timeout_seconds} s`
      : `timeout: no response within ${target.timeout_seconds} s`;
  if (error instanceof MaxRedirectsError) return `too many redirects (more than ${target.max_redirects ?? 0})`;
  if (error instanceof RequestError) {
    // The hop that failed: after redirects, not necessarily the monitor's URL.
    const url = error.options?.url instanceof URL ? error.options.url : new URL(target.url);
    if (error.code === 'ECONNREFUSED') return `connection refused by ${url.host}`;
    if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return `DNS lookup failed for ${url.hostname}`;
    if (error.code === 'ECONNRESET') return `connection reset by ${url.host}`;
    if (TLS_CODE.test(error.code)) return `TLS error: ${error.message}`;
    return `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
};

/** Whether an assertion reads the body (then it is read, bounded; else only the headers are). */
const readsBody = (target: CheckTarget): boolean =>
  (target.method ?? 'GET') !== 'HEAD' &&
  (target.assertions ?? []).some((a) => a.source === 'body' || a.source === 'json');

/** The request's headers: ours, the monitor's (names in lower case, so one of theirs replaces
 *  ours), then the content type of the body and the credentials. */
const headersOf = (target: CheckTarget): Record<string, string> => {
  const auth = target.auth;
  return {
    'user-agent': 'watchlog-monitor/0.1',
    accept: '*/*',
    ...Object.fromEntries(Object.entries(target.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    ...(target.body !== undefined && target.content_type !== undefined ? { 'content-type': target.content_type } : {}),
    ...(auth?.type === 'basic'
      ? { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64')}` }
      : auth?.type === 'bearer'
        ? { authorization: `Bearer ${auth.token}` }
        : {}),
  };
};

/** A response's headers as the assertions see them: repeated ones joined by ", ". */
const flatHeaders = (headers: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([k, v]) => (v === undefined ? [] : [[k, Array.isArray(v) ? v.join(', ') : v]])),
  );

/** One HTTP request (SPEC 4.10, with the monitor's options):
 *  - the method, headers, body (with `content_type`) and credentials (`auth`, as an
 *    Authorization header) of the monitor; no retries;
 *  - redirects are not followed by default (a 301 is a status like any other, so a monitor can
 *    expect it); with `max_redirects` up to that many are, and more is a failure. Every hop goes
 *    through the egress policy's agents, so a redirect to a denied address fails with the
 *    policy's text and nothing is sent there; credentials are not sent to another host;
 *  - `ignore_tls_errors` accepts any certificate (the certificate is still recorded);
 *  - the peer's certificate of the last hop is recorded for https;
 *  - the body is read only when an assertion needs it (source body or json), decoded (gzip, br,
 *    deflate) and at most MAX_BODY_BYTES of it: the rest is not read (`body_truncated`), the
 *    connection is closed. Otherwise the exchange ends at the response headers, and a large
 *    page costs nothing;
 *  - `timeout_seconds` bounds the whole exchange: every hop, and the body when it is read;
 *  - `response_ms` is the time to the (last) response's headers.
 *  A failure with no usable response is an observation with an error text (timeout, connection
 *  refused, DNS, TLS, the egress policy's refusal). */
export const observeHttp = async (
  target: CheckTarget,
  egress: EgressPolicy,
  now: () => Date = () => new Date(),
): Promise<Observed> => {
  const checkedAt = now().toISOString();
  const elapsed = stopwatch();
  const withBody = readsBody(target);
  const maxRedirects = target.max_redirects ?? 0;
  const timeoutMs = target.timeout_seconds * 1000;
  let head: Observation | null = null;
  try {
    return await new Promise<Observed>((resolve, reject) => {
      const stream = got.stream(target.url, {
        method: (target.method ?? 'GET') as Method,
        headers: headersOf(target),
        ...(target.body === undefined ? {} : { body: target.body }),
        agent: egress.agent,
        https: { rejectUnauthorized: !(target.ignore_tls_errors ?? false) },
        timeout: { request: timeoutMs },
        retry: { limit: 0 },
        followRedirect: maxRedirects > 0,
        maxRedirects,
        throwHttpErrors: false,
        decompress: withBody,
      });
      // got's stream is writable for a method that may carry a body: without one, nothing is to come.
      const method = target.method ?? 'GET';
      if (target.body === undefined && method !== 'GET' && method !== 'HEAD') stream.end();
      const deadline = setTimeout(() => stream.destroy(new DeadlineError('deadline')), timeoutMs);
      const settle = (observation: Observation) => {
        clearTimeout(deadline);
        resolve({ observation, refused: false });
        stream.destroy();
      };
      stream.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      stream.once('response', (response: { statusCode: number; headers: IncomingHttpHeaders }) => {
        const certificate = certificateOf(stream.socket);
        head = {
          checked_at: checkedAt,
          response_ms: elapsed(),
          status_code: response.statusCode,
          headers: flatHeaders(response.headers),
          ...(certificate === undefined ? {} : { certificate }),
        };
        if (!withBody) {
          settle(head);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (truncated: boolean) =>
          settle({
            ...head!,
            body: Buffer.concat(chunks).toString('utf8'),
            ...(truncated ? { body_truncated: true } : {}),
          });
        stream.on('data', (chunk: Buffer) => {
          const room = MAX_BODY_BYTES - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size = MAX_BODY_BYTES;
            stream.removeAllListeners('data');
            done(true);
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        stream.once('end', () => done(false));
      });
    });
  } catch (error) {
    const responded: Observation | null = head;
    return {
      observation: {
        ...(responded ?? { checked_at: checkedAt }),
        response_ms: elapsed(),
        error: describe(error, target, responded !== null),
      },
      refused: refusalOf(error) !== null,
    };
  }
};
