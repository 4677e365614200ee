import { createHmac, timingSafeEqual } from 'node:crypto';
import * as t from 'io-ts';
import type { monitorEvents } from './monitor.ts';
import { AnomalyRule, type AnomalyDetected } from './anomaly.ts';
import { JsonObject } from './codecs.ts';

/** What a channel receives on a monitor transition (SPEC 3.1: only transitions notify). The
 *  transition's event id is `id`: the same on every retry and redelivery, for deduplication. */
export const TransitionNotification = t.type({
  id: t.string,
  type: t.keyof({ 'monitor.down': null, 'monitor.up': null }),
  project_id: t.string,
  monitor: t.type({ id: t.string, name: t.string, url: t.string }),
  status: t.keyof({ DOWN: null, UP: null }),
  status_code: t.union([t.null, t.number]),
  response_ms: t.number,
  error: t.union([t.null, t.string]),
  downtime_seconds: t.union([t.null, t.number]),
  timestamp: t.string,
});
export type TransitionNotification = t.TypeOf<typeof TransitionNotification>;

type Down = t.TypeOf<typeof monitorEvents.MonitorWentDown>;
type Up = t.TypeOf<typeof monitorEvents.MonitorCameUp>;

export const transitionNotification = (
  eventId: string,
  e: { type: 'MonitorWentDown'; data: Down } | { type: 'MonitorCameUp'; data: Up },
): TransitionNotification => {
  const monitor = { id: e.data.monitor_id, name: e.data.name, url: e.data.url };
  if (e.type === 'MonitorWentDown') {
    return {
      id: eventId,
      type: 'monitor.down',
      project_id: e.data.project_id,
      monitor,
      status: 'DOWN',
      status_code: e.data.status_code ?? null,
      response_ms: e.data.response_ms,
      error: e.data.error,
      downtime_seconds: null,
      timestamp: e.data.went_down_at,
    };
  }
  return {
    id: eventId,
    type: 'monitor.up',
    project_id: e.data.project_id,
    monitor,
    status: 'UP',
    status_code: e.data.status_code,
    response_ms: e.data.response_ms,
    error: null,
    downtime_seconds: e.data.downtime_seconds,
    timestamp: e.data.came_up_at,
  };
};

/** What a channel that takes `healthcheck` events receives when a monitor's certificate is
 *  within one of its warning thresholds (once per threshold): `id` is the warning's event id. */
export const CertificateNotification = t.type({
  id: t.string,
  type: t.literal('monitor.certificate_expiring'),
  project_id: t.string,
  monitor: t.type({ id: t.string, name: t.string, url: t.string }),
  days_left: t.number,
  threshold_days: t.number,
  expires_at: t.string,
  issuer: t.string,
  names: t.array(t.string),
  timestamp: t.string,
});
export type CertificateNotification = t.TypeOf<typeof CertificateNotification>;

export const certificateNotification = (
  eventId: string,
  d: t.TypeOf<typeof monitorEvents.CertificateExpiring>,
): CertificateNotification => ({
  id: eventId,
  type: 'monitor.certificate_expiring',
  project_id: d.project_id,
  monitor: { id: d.monitor_id, name: d.name, url: d.url },
  days_left: d.days_left,
  threshold_days: d.threshold_days,
  expires_at: d.certificate.valid_to,
  issuer: d.certificate.issuer,
  names: d.certificate.names,
  timestamp: d.checked_at,
});

/** What a channel that opted in to `alert` receives when an anomaly is detected: `id` is the
 *  alert's (its system.alert audit event's id), `subject` the service or, for brute_force, the
 *  identifier, `details` the rule's fields (SPEC 6.2) as in the alert's request_body. */
export const AlertNotification = t.type({
  id: t.string,
  type: t.literal('anomaly.detected'),
  project_id: t.string,
  rule: AnomalyRule,
  service_name: t.string,
  environment: t.string,
  subject: t.string,
  details: JsonObject,
  timestamp: t.string,
});
export type AlertNotification = t.TypeOf<typeof AlertNotification>;

/** What `POST /v1/channels/:id/test` sends: proof that the channel reaches someone. */
export const TestNotification = t.type({
  id: t.string,
  type: t.literal('channel.test'),
  project_id: t.string,
  channel: t.type({ id: t.string, name: t.union([t.null, t.string]) }),
  timestamp: t.string,
});
export type TestNotification = t.TypeOf<typeof TestNotification>;

export const Notification = t.union([
  TransitionNotification,
  CertificateNotification,
  AlertNotification,
  TestNotification,
]);
export type Notification = TransitionNotification | CertificateNotification | AlertNotification | TestNotification;

export const alertNotification = (d: AnomalyDetected): AlertNotification => ({
  id: d.alert_id,
  type: 'anomaly.detected',
  project_id: d.project_id,
  rule: d.rule,
  service_name: d.service_name,
  environment: d.environment,
  subject: d.subject,
  details: d.details,
  timestamp: d.detected_at,
});

/** `X-Watchlog-Signature`: `sha256=` and the hex HMAC-SHA256 of the exact body with the secret. */
export const signBody = (secret: string, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** What a receiver does: recompute and compare in constant time. */
export const verifySignature = (secret: string, body: string, header: string | undefined): boolean => {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

/** Network errors, 429 and 5xx may pass on a later try; other answers will not. */
export const isRetryable = (status: number | undefined): boolean =>
  status === undefined || status === 429 || status >= 500;
