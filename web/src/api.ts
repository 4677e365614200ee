/** The public REST API, as any client sees it (docs/api.md): the dashboard has no other door. */

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

export interface Answer<T> {
  body: T;
  headers: Headers;
  status: number;
}

export const request = async <T>(
  method: string,
  path: string,
  { query, body }: { query?: Query; body?: unknown } = {},
): Promise<Answer<T>> => {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = tokenOf();
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${path}${queryString(query)}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'watchlog did not answer: is it running, and is this machine online?');
  }
  const text = res.status === 204 ? '' : await res.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)
      ?.error;
    if (res.status === 401 && token !== null && path !== '/v1/auth/login') onUnauthorized();
    throw new ApiError(
      res.status,
      error?.code ?? `http_${res.status}`,
      error?.message ?? `${res.status} ${res.statusText}`,
      error?.details ?? [],
    );
  }
  return { body: parsed as T, headers: res.headers, status: res.status };
};

export const get = async <T>(path: string, query?: Query): Promise<T> =>
  (await request<T>('GET', path, { query })).body;
export const post = async <T>(path: string, body?: unknown): Promise<T> =>
  (await request<T>('POST', path, { body: body ?? {} })).body;
export const put = async <T>(path: string, body: unknown): Promise<T> => (await request<T>('PUT', path, { body })).body;
export const del = async (path: string): Promise<void> => {
  await request<unknown>('DELETE', path);
};

/** Downloads an authenticated GET as a file (an export): fetch, then a blob link the user keeps. */
export const download = async (path: string, query: Query, fallbackName: string): Promise<void> => {
  const headers: Record<string, string> = {};
  const token = tokenOf();
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(`${path}${queryString(query)}`, { headers });
  if (!res.ok) {
    const parsed = (await res.json().catch(() => ({}))) as {
      error?: { code?: string; message?: string; details?: ErrorDetail[] };
    };
    throw new ApiError(
      res.status,
      parsed.error?.code ?? `http_${res.status}`,
      parsed.error?.message ?? res.statusText,
      parsed.error?.details ?? [],
    );
  }
  const name = /filename="?([^";]+)"?/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};

// Response shapes (docs/api.md), as far as the dashboard reads them.

export type Role = 'admin' | 'member' | 'auditor' | string;

export interface Pagination {
  page: number;
  limit: number;
  totalItems: number;
  totalPage: number;
}
export interface Paged<T> {
  data: T[];
  pagination: Pagination;
}

export interface Project {
  id: string;
  name: string;
  created_at: string;
}
/** `allowed_origins`: the browser origins it may be used from ([]: any); `rate_limit`: events per
 *  second (null: the deployment's default). */
export interface ApiKey {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  allowed_origins: string[];
  rate_limit: number | null;
}
export interface NewApiKey {
  id: string;
  name: string;
  prefix: string;
  key: string;
  created_at: string;
  allowed_origins: string[];
  rate_limit: number | null;
}
export interface User {
  id: string;
  email: string;
  role: Role;
  project_ids: string[];
  disabled: boolean;
  created_at: string;
}

export interface AuditListItem {
  id: string;
  event_type: string;
  method: string;
  path: string;
  status_code: number | null;
  response_time: number | null;
  identifier: string;
  user_email: string | null;
  service_name: string;
  environment: string;
  timestamp: string;
}
export type AuditEvent = AuditListItem & Record<string, unknown>;

export interface ServiceStats {
  service_name: string;
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number;
  last_event_at: string | null;
}
export interface TimelinePoint {
  bucket: string;
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number;
}
export interface Stats {
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number;
  p95_response_time: number;
  active_services: number;
  last_event_at: string | null;
  by_service: ServiceStats[];
  by_status_class: Record<string, number>;
  by_method: Record<string, number>;
  timeline: TimelinePoint[];
}

export type MonitorStatus = 'PENDING' | 'UP' | 'DOWN';
export interface Monitor {
  id: string;
  project_id: string;
  name: string;
  url: string;
  interval_seconds: number;
  timeout_seconds: number;
  expected_status: number;
  enabled: boolean;
  status: MonitorStatus;
  status_since: string | null;
  last_checked_at: string | null;
  last_status_code: number | null;
  last_response_ms: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  uptime_24h?: number | null;
  uptime_7d?: number | null;
}
export interface Check {
  checked_at: string;
  status_code: number | null;
  response_ms: number;
  ok: boolean;
  error: string | null;
}

export type ChannelType = 'webhook' | 'webpush' | 'slack' | 'discord' | 'teams' | 'email' | 'pagerduty' | 'ntfy';
/** `url`: where it sends (a chat webhook's origin only: its path is its token); `settings`: the
 *  type's settings without secrets; `degraded`: its deliveries keep failing. */
export interface Channel {
  id: string;
  project_id: string;
  type: ChannelType;
  name: string | null;
  url: string;
  has_secret: boolean;
  settings: Record<string, unknown>;
  events: string[];
  project_scope: 'project' | 'all';
  quiet_minutes: number;
  active: boolean;
  deactivated_reason: string | null;
  degraded: boolean;
  degraded_reason: string | null;
  degraded_since: string | null;
  created_at: string;
  updated_at: string;
}
/** What a provider said to `POST /v1/channels/:id/test`. */
export interface TestAnswer {
  ok: boolean;
  status: number | null;
  response: string | null;
  error: string | null;
  duration_ms: number;
}
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  outcome: 'delivered' | 'failed';
  status: number | null;
  error: string | null;
  response: string | null;
  duration_ms: number;
}
export interface Delivery {
  id: string;
  channel_id: string;
  channel_type: ChannelType;
  project_id: string;
  event_id: string;
  event_type: string;
  title: string;
  status: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
  reason: string | null;
  attempts: DeliveryAttempt[];
  created_at: string;
  updated_at: string;
}
