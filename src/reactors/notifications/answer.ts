import got, { RequestError } from 'got';
import { isRetryable } from '../../domain/notification.ts';
import { refusalOf, type EgressPolicy } from '../../checks/egress.ts';

/** What a provider said to one try. */
export interface ProviderAnswer {
  ok: boolean;
  /** Whether another try could go otherwise (a network error, 429, 5xx, an SMTP 4xx). */
  retryable: boolean;
  /** The HTTP status (SMTP: the reply code); null when no answer came. */
  status: number | null;
  error: string | null;
  /** The start of the answer's body (or SMTP reply). */
  response: string | null;
}

/** How much of an answer is kept: enough to read an error message, never a whole page. */
export const RESPONSE_KEPT = 500;

export const clipped = (s: string): string | null =>
  s === '' ? null : s.length <= RESPONSE_KEPT ? s : `${s.slice(0, RESPONSE_KEPT)}…`;

/** A certificate the TLS client does not trust (self-signed, expired, another name): a
 *  configuration to fix, which the next try would meet again. Node's codes, as got and
 *  nodemailer (`originalCode`) pass them on. */
const isCertificateError = (error: unknown): boolean => {
  const { code, originalCode } = error as { code?: unknown; originalCode?: unknown };
  return [code, originalCode].some((c) => typeof c === 'string' && /CERT|_SIGNATURE|ERR_TLS_CERT/.test(c));
};

/** An error as an answer: the egress policy's refusal and an untrusted certificate are final
 *  (no try can change them); other errors before an answer (refused connection, timeout, reset)
 *  may pass on a later try. */
export const errorAnswer = (error: unknown): ProviderAnswer => {
  const refused = refusalOf(error);
  if (refused !== null) return { ok: false, retryable: false, status: null, error: refused, response: null };
  const text =
    error instanceof RequestError
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  return { ok: false, retryable: !isCertificateError(error), status: null, error: text, response: null };
};

export interface PostOptions {
  /** Every request connects through it. */
  egress: EgressPolicy;
  timeoutMs: number;
}

/** One POST through the egress policy, never retried or redirected here: the whole answer,
 *  whatever its status (a failure to connect or a timeout throws). Log sinks post through it too. */
export const egressPost = (url: string, body: string | Buffer, headers: Record<string, string>, options: PostOptions) =>
  got.post(url, {
    body,
    headers: { 'user-agent': 'watchlog/0.1', ...headers },
    agent: options.egress.agent,
    throwHttpErrors: false,
    followRedirect: false,
    retry: { limit: 0 },
    timeout: { request: options.timeoutMs },
  });

/** One POST (never retried here, never redirected), through the egress policy: 2xx is delivered;
 *  429 and 5xx may pass later; other answers will not. */
export const post = async (
  url: string,
  body: string | Buffer,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<ProviderAnswer> => {
  try {
    const res = await egressPost(url, body, headers, options);
    const ok = res.statusCode >= 200 && res.statusCode < 300;
    return {
      ok,
      retryable: !ok && isRetryable(res.statusCode),
      status: res.statusCode,
      response: clipped(res.body),
      error: ok ? null : `answered ${res.statusCode}`,
    };
  } catch (error) {
    return errorAnswer(error);
  }
};

/** A JSON POST. */
export const postJson = (
  url: string,
  payload: unknown,
  options: PostOptions,
  headers: Record<string, string> = {},
): Promise<ProviderAnswer> =>
  post(url, JSON.stringify(payload), { 'content-type': 'application/json', ...headers }, options);
