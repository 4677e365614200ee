/** The public REST API, as any client sees it (docs/api.md): the dashboard has no other door. Every
 *  call names its operation (`'GET /v1/monitors/:id'`) and is typed by the server's operation
 *  table (./api/operations.gen.ts): a parameter, field or answer the server does not have fails
 *  `tsc`. */

import type { Operations } from './api/operations.gen.ts';

export type * from './api/operations.gen.ts';
export { MONITORS_PER_PROJECT } from './api/operations.gen.ts';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An answer other than 2xx, with the server's words: `{ error: { code, message, details } }`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** The message of the detail at this field path, for showing it next to the field. */
  fieldMessage(path: string): string | undefined {
    return this.details.find((d) => d.path === path)?.message;
  }
}

export type OperationKey = keyof Operations;

declare const verbatimText: unique symbol;
/** Text the reader typed (a form's field, a link's query), sent as it is where the operation wants
 *  a number or one of its words: the server's 400 then names the field, and the page shows its
 *  message there. Only `verbatim` makes one, so every other value is checked against the table. */
export type Verbatim = string & { readonly [verbatimText]: true };
export const verbatim = (text: string): Verbatim => text as Verbatim;

/** A value as a page sends it: the operation's, or text the reader typed in place of a number, a
 *  boolean or a word. */
export type AsSent<T> = T extends string | number | boolean
  ? T | Verbatim
  : T extends readonly (infer E)[]
    ? AsSent<E>[]
    : T extends object
      ? { [P in keyof T]: AsSent<T[P]> }
      : T;

type Empty = Record<string, never>;
/** A query as pages build it: a value left undefined, null or empty is not sent. */
type LooseQuery<Q> = { [P in keyof Q]?: AsSent<Q[P]> | null | '' };

/** What a call of `K` sends: the path's parameters, the query, and the body, each when it has one. */
export type Call<K extends OperationKey> = (Operations[K]['params'] extends Empty
  ? { params?: undefined }
  : { params: Operations[K]['params'] }) &
  (Operations[K]['query'] extends Empty ? { query?: undefined } : { query?: LooseQuery<Operations[K]['query']> }) &
  (Operations[K]['body'] extends undefined ? { body?: undefined } : { body: AsSent<Operations[K]['body']> });

type Answers<K extends OperationKey> = Operations[K]['answers'];
/** The body of `K`'s successful answers. */
export type Answer<K extends OperationKey> = {
  [S in keyof Answers<K>]: S extends 200 | 201 | 202 | 204 ? Answers<K>[S] : never;
}[keyof Answers<K>];

/** The call's argument, optional when it has nothing to require. */
type CallArgs<K extends OperationKey> = Empty extends Call<K> ? [call?: Call<K>] : [call: Call<K>];

export type Query = Record<string, string | number | boolean | undefined | null>;

export const queryString = (query: Query = {}): string => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
};

type TokenSource = () => string | null;
type Unauthorized = () => void;

let tokenOf: TokenSource = () => null;
let onUnauthorized: Unauthorized = () => undefined;

/** The session (auth.tsx) tells the client where the token is and what a 401 means. */
export const configureApi = (source: TokenSource, unauthorized: Unauthorized) => {
  tokenOf = source;
  onUnauthorized = unauthorized;
};

/** `'GET /v1/monitors/:id'` with `{ id }` → the method and the URL, query included. */
const target = (op: OperationKey, { params, query }: { params?: object; query?: object }) => {
  const [method, template] = op.split(' ') as [string, string];
  const values = (params ?? {}) as Record<string, string>;
  const path = template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
  return { method, url: `${path}${queryString(query as Query | undefined)}` };
};

const errorOf = (status: number, statusText: string, parsed: unknown) => {
  const error = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)?.error;
  return new ApiError(
    status,
    error?.code ?? `http_${status}`,
    error?.message ?? `${status} ${statusText}`,
    error?.details ?? [],
  );
};

export interface Answered<T> {
  body: T;
  headers: Headers;
  status: number;
}

/** Calls `op` and answers with its body, headers and status (for answers paged in headers). */
export const request = async <K extends OperationKey>(op: K, ...[call]: CallArgs<K>): Promise<Answered<Answer<K>>> => {
  const { method, url } = target(op, call ?? {});
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = tokenOf();
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const body = call?.body;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, 'network_error', 'watchlog did not answer: is it running, and is this machine online?');
  }
  const text = res.status === 204 ? '' : await res.text();
  let parsed: unknown;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && token !== null && op !== 'POST /v1/auth/login') onUnauthorized();
    throw errorOf(res.status, res.statusText, parsed);
  }
  return { body: parsed as Answer<K>, headers: res.headers, status: res.status };
};

/** Calls `op` and answers with its body. */
export const call = async <K extends OperationKey>(op: K, ...args: CallArgs<K>): Promise<Answer<K>> =>
  (await request(op, ...args)).body;

/** Downloads an authenticated GET as a file (an export): fetch, then a blob link the user keeps. */
export const download = async <K extends OperationKey>(
  op: K,
  fallbackName: string,
  ...[call]: CallArgs<K>
): Promise<void> => {
  const { url } = target(op, call ?? {});
  const headers: Record<string, string> = {};
  const token = tokenOf();
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(url, { headers });
  if (!res.ok) throw errorOf(res.status, res.statusText, await res.json().catch(() => ({})));
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? fallbackName;
  const href = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
};

// Answers the description does not name, by the operation that answers them.
export type Role = Operations['GET /v1/auth/me']['answers'][200]['role'];
export type MonitorStatus = Operations['GET /v1/monitors/:id']['answers'][200]['status'];
export type IssuedApiKey = Answer<'POST /v1/projects/:id/api-keys'>;
export type TestAnswer = Answer<'POST /v1/channels/:id/test'>;
export type Delivery = Answer<'GET /v1/deliveries/:id'>;
