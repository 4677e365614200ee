/** The REST API as `watchlog plan`, `apply` and `export` use it: the same calls against an
 *  embedded or a KurrentDB + MongoDB deployment, with a login token (`--token`, `WATCHLOG_TOKEN`)
 *  or an API key with the `config` scope, of its own project only (`--api-key`, `WATCHLOG_API_KEY`). */

export interface Credentials {
  readonly token?: string;
  /** Sent as `X-API-Key` when there is no token. */
  readonly apiKey?: string;
  /** Sent as `X-Request-ID`: every `system.access` row of one apply carries it. */
  readonly requestId?: string;
}

interface ApiErrorFields {
  message?: string;
  details?: Array<{ path: string; message: string }>;
  required_scope?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly call: string,
    readonly body: unknown,
  ) {
    super(`${call}: ${status} ${ApiError.describe(body)}`);
  }

  /** The API's error body in one line: its message and each faulty field. */
  static describe(body: unknown): string {
    const error = ApiError.errorOf(body);
    if (error === null) return typeof body === 'string' ? body : JSON.stringify(body ?? '');
    const { message, details } = error;
    const fields = (details ?? []).map((d) => `${d.path} ${d.message}`).join('; ');
    return [message, fields].filter(Boolean).join(': ');
  }

  /** The API's error shape, `{ "error": { code, message, details, required_scope? } }`. */
  static errorOf(body: unknown): ApiErrorFields | null {
    const error = (body as { error?: unknown } | null)?.error;
    return typeof error === 'object' && error !== null ? (error as ApiErrorFields) : null;
  }
}

export interface ApiClient {
  get<T>(path: string): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
}

export const apiClient = (baseUrl: string, credentials: Credentials, fetchImpl: typeof fetch = fetch): ApiClient => {
  const base = baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (credentials.token) headers.authorization = `Bearer ${credentials.token}`;
  else if (credentials.apiKey) headers['x-api-key'] = credentials.apiKey;
  if (credentials.requestId) headers['x-request-id'] = credentials.requestId;
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetchImpl(base + path, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      // a proxy's HTML page, say: reported as it came
    }
    if (!res.ok) throw new ApiError(res.status, `${method} ${path}`, parsed);
    return parsed as T;
  };
  return {
    get: (path) => call('GET', path),
    send: (method, path, body) => call(method, path, body),
  };
};

/** Logs in with an e-mail and password: the start-up apply's way in (docs/config-file.md). */
export const loginToken = async (baseUrl: string, email: string, password: string): Promise<string> => {
  const answer = await apiClient(baseUrl, {}).send<{ token: string }>('POST', '/v1/auth/login', { email, password });
  return answer.token;
};
