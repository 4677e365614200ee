import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { MAX_BODY_BYTES, type Observation } from '../domain/check-judge.ts';
import type { MonitorSettings } from '../domain/monitor.ts';
import { refusalOf, type EgressPolicy } from './egress.ts';
import { BadRedirectError, exchange, HopError, TooManyRedirectsError } from './http-exchange.ts';
import { certificateOf, stopwatch, TLS_CODE, type Observed } from './observed.ts';

/** What a probe needs of a monitor: SPEC's three settings, and the options (absent ones are their
 *  defaults). A MonitorSettings (or a monitor as read) is one. */
export type CheckTarget = Pick<MonitorSettings, 'url' | 'timeout_seconds' | 'expected_status'> &
  Partial<Omit<MonitorSettings, 'url' | 'timeout_seconds' | 'expected_status'>>;

/** The error text of a check that got no usable response. `expired`: the deadline passed;
 *  `responded`: the headers had come (the failure was in reading the body). */
const describe = (error: unknown, target: CheckTarget, expired: boolean, responded: boolean): string => {
  if (expired)
    return responded
      ? `timeout: response body not read within ${target.timeout_seconds} s`
      : `timeout: no response within ${target.timeout_seconds} s`;
  const cause = error instanceof HopError ? error.cause : error;
  const refused = refusalOf(cause);
  if (refused !== null) return refused;
  if (error instanceof TooManyRedirectsError) return `too many redirects (more than ${target.max_redirects ?? 0})`;
  if (error instanceof BadRedirectError) return error.message;
  const code = (cause as { code?: unknown } | null)?.code;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (typeof code !== 'string') return message;
  // The hop that failed: after redirects, not necessarily the monitor's URL.
  const url = error instanceof HopError ? error.hop : new URL(target.url);
  if (code === 'ECONNREFUSED') return `connection refused by ${url.host}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `DNS lookup failed for ${url.hostname}`;
  if (code === 'ECONNRESET') return `connection reset by ${url.host}`;
  if (TLS_CODE.test(code)) return `TLS error: ${message}`;
  return `${code}: ${message}`;
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

/** The response body decoded (gzip, br, deflate), at most MAX_BODY_BYTES of it. */
const readBody = async (response: IncomingMessage): Promise<{ body: string; truncated: boolean }> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of decoded(response) as AsyncIterable<Buffer>) {
    const room = MAX_BODY_BYTES - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      return { body: Buffer.concat(chunks).toString('utf8'), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { body: Buffer.concat(chunks).toString('utf8'), truncated: false };
};

/** The body as its content-encoding says to decode it. */
const decoded = (response: IncomingMessage): Readable => {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'br'
        ? zlib.createBrotliDecompress()
        : encoding === 'deflate'
          ? zlib.createInflate()
          : null;
  if (decoder === null) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
};

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
  const method = target.method ?? 'GET';
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), target.timeout_seconds * 1000);
  let head: Observation | null = null;
  let response: IncomingMessage | null = null;
  try {
    response = await exchange(
      {
        url: new URL(target.url),
        method,
        headers: { ...headersOf(target), ...(withBody ? { 'accept-encoding': 'gzip, deflate, br' } : {}) },
        ...(target.body === undefined ? {} : { body: target.body }),
      },
      egress,
      {
        maxRedirects: target.max_redirects ?? 0,
        rejectUnauthorized: !(target.ignore_tls_errors ?? false),
        signal: deadline.signal,
      },
    );
    const certificate = certificateOf(response.socket);
    head = {
      checked_at: checkedAt,
      response_ms: elapsed(),
      status_code: response.statusCode ?? 0,
      headers: flatHeaders(response.headers),
      ...(certificate === undefined ? {} : { certificate }),
    };
    if (!withBody) return { observation: head, refused: false };
    const { body, truncated } = await readBody(response);
    return { observation: { ...head, body, ...(truncated ? { body_truncated: true } : {}) }, refused: false };
  } catch (error) {
    const responded: Observation | null = head;
    return {
      observation: {
        ...(responded ?? { checked_at: checkedAt }),
        response_ms: elapsed(),
        error: describe(error, target, deadline.signal.aborted, responded !== null),
      },
      refused: refusalOf(error instanceof HopError ? error.cause : error) !== null,
    };
  } finally {
    clearTimeout(timer);
    // Without keep-alive the connection ends here: the rest of a body is not read.
    response?.destroy();
  }
};
