import { createHmac, timingSafeEqual } from 'node:crypto';
import type { monitorEvents } from './monitor.ts';
import type { AnomalyDetected, RuleName } from './anomaly.ts';
import type * as t from 'io-ts';

/** What a channel receives on a monitor transition (SPEC 3.1: only transitions notify). */
export interface TransitionNotification {
  /** The transition's event id: the same on every retry and redelivery, for deduplication. */
  id: string;
  type: 'monitor.down' | 'monitor.up';
  project_id: string;
  monitor: { id: string; name: string; url: string };
  status: 'DOWN' | 'UP';
  status_code: number | null;
  response_ms: number;
  error: string | null;
  downtime_seconds: number | null;
  timestamp: string;
}

type Down = t.TypeOf<typeof monitorEvents.MonitorWentDown>;
type Up = t.TypeOf<typeof monitorEvents.MonitorCameUp>;

export const transitionNotification = (
  eventId: string, e: { type: 'MonitorWentDown'; data: Down } | { type: 'MonitorCameUp'; data: Up },
): TransitionNotification => {
  const monitor = { id: e.data.monitor_id, name: e.data.name, url: e.data.url };
  if (e.type === 'MonitorWentDown') {
    return {
      id: eventId, type: 'monitor.down', project_id: e.data.project_id, monitor, status: 'DOWN', status_code: e.data.status_code ?? null,
      response_ms: e.data.response_ms, error: e.data.error, downtime_seconds: null, timestamp: e.data.went_down_at,
    };
  }
  return {
    id: eventId, type: 'monitor.up', project_id: e.data.project_id, monitor, status: 'UP', status_code: e.data.status_code,
    response_ms: e.data.response_ms, error: null, downtime_seconds: e.data.downtime_seconds, timestamp: e.data.came_up_at,
  };
};

/** What a channel that opted in to `alert` receives when an anomaly is detected. */
export interface AlertNotification {
  /** The alert's id (its system.alert audit event's id): the same on every retry and redelivery. */
  id: string;
  type: 'anomaly.detected';
  project_id: string;
  rule: RuleName;
  service_name: string;
  environment: string;
  /** The service, or for brute_force the identifier. */
  subject: string;
  /** The rule's fields (SPEC 6.2), as in the alert's request_body. */
  details: Record<string, unknown>;
  timestamp: string;
}

export type Notification = TransitionNotification | AlertNotification;

export const alertNotification = (d: AnomalyDetected): AlertNotification => ({
  id: d.alert_id, type: 'anomaly.detected', project_id: d.project_id, rule: d.rule, service_name: d.service_name,
  environment: d.environment, subject: d.subject, details: d.details, timestamp: d.detected_at,
});

/** `X-Watchlog-Signature`: `sha256=` and the hex HMAC-SHA256 of the exact body with the secret. */
export const signBody = (secret: string, body: string): string => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** What a receiver does: recompute and compare in constant time. */
export const verifySignature = (secret: string, body: string, header: string | undefined): boolean => {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

/** Delay before retry `attempt` (1-based): 0.5 s, 1 s, 2 s, … capped at 30 s. */
export const retryDelayMs = (attempt: number, baseMs = 500, maxMs = 30_000): number => Math.min(maxMs, baseMs * 2 ** (attempt - 1));

/** Network errors, 429 and 5xx may pass on a later try; other answers will not. */
export const isRetryable = (status: number | undefined): boolean => status === undefined || status === 429 || status >= 500;
