/** The audit event as watchlog ingests it (SPEC 2.1), and the limits the server enforces on it.
 *  The SDK shapes every event to fit these limits before it is queued, because an event the
 *  server refuses is lost: it is reported, but it cannot be repaired after the fact. */

export type Environment = 'production' | 'staging' | 'development';
export const ENVIRONMENTS: readonly Environment[] = ['production', 'staging', 'development'];

/** The methods SPEC 2.1 accepts; any other is handled by the `unsupportedMethods` policy. */
export type AuditMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export const AUDIT_METHODS: readonly AuditMethod[] = ['GET', 'POST', 'PUT', 'DELETE'];

export type JsonObject = Record<string, unknown>;

export interface AuditEvent {
  path: string;
  method: AuditMethod;
  status_code?: number;
  response_time?: number;
  identifier: string;
  service_name: string;
  environment: Environment;
  user_email?: string;
  user_name?: string;
  user_roles?: string[];
  user_type?: string;
  tenant_id?: string;
  ip?: string;
  user_agent?: string;
  request_id?: string;
  query_params?: JsonObject;
  path_params?: JsonObject;
  request_body?: JsonObject;
  response_body?: JsonObject;
  error_message?: string;
  session_id?: string;
  source?: 'backend' | 'browser';
}

/** An event as it is queued and sent: with the idempotency key that makes retries safe. */
export interface WireEvent extends AuditEvent {
  idempotency_key: string;
}

/** Server-side limits (UTF-16 length, as the server counts). */
export const LIMITS = {
  path: 255,
  identifier: 100,
  serviceName: 255,
  userEmail: 320,
  ip: 64,
  requestId: 255,
  sessionId: 255,
} as const;

/** Not limited by the server; capped so one hostile header cannot bloat every batch. */
export const SOFT_LIMITS = {
  userAgent: 512,
  errorMessage: 1000,
} as const;

/** Cuts `s` to at most `max` UTF-16 units without splitting a surrogate pair. */
export const truncate = (s: string, max: number): string => {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
};

export const isStatusCode = (n: unknown): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599;
