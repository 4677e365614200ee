import type * as t from 'io-ts';
import { AUDIT_EVENT_TYPE, type StoredAuditEvent } from './audit-event.ts';
import type { monitorEvents } from './monitor.ts';

/** Monitor events as the audit events the list and export show. */

/** SPEC 6.1: a transition as the audit event the list and export show. `identifier` is the
 *  constant `system`, `method` the check's (GET unless an http monitor sends another), `environment` production. */
export const transitionAuditEvent = (
  id: string,
  e: {
    type: 'MonitorWentDown' | 'MonitorCameUp';
    data: t.TypeOf<(typeof monitorEvents)['MonitorWentDown' | 'MonitorCameUp']>;
  },
): StoredAuditEvent => {
  const common = {
    id,
    project_id: e.data.project_id,
    identifier: 'system',
    method: e.data.method ?? 'GET',
    environment: 'production',
    source: 'backend' as const,
    service_name: e.data.name,
    path: e.data.url.slice(0, 255),
    response_time: e.data.response_ms,
  };
  if (e.type === 'MonitorWentDown') {
    const d = e.data as t.TypeOf<typeof monitorEvents.MonitorWentDown>;
    return {
      ...common,
      event_type: AUDIT_EVENT_TYPE.healthcheckDown,
      timestamp: d.went_down_at,
      ...(d.status_code === undefined ? {} : { status_code: d.status_code }),
      request_body: {
        url: d.url,
        expected_status: d.expected_status,
        status_code: d.status_code ?? 0,
        response_ms: d.response_ms,
        error: d.error,
      },
    };
  }
  const d = e.data as t.TypeOf<typeof monitorEvents.MonitorCameUp>;
  return {
    ...common,
    event_type: AUDIT_EVENT_TYPE.healthcheckUp,
    timestamp: d.came_up_at,
    status_code: d.status_code,
    request_body: {
      url: d.url,
      status_code: d.status_code,
      response_ms: d.response_ms,
      downtime_seconds: d.downtime_seconds,
    },
  };
};

/** A certificate warning as a `system.healthcheck.certificate_expiring` audit event of the
 *  monitor's project, keyed by the warning's event id. */
export const certificateAuditEvent = (
  id: string,
  d: t.TypeOf<typeof monitorEvents.CertificateExpiring>,
): StoredAuditEvent => ({
  id,
  project_id: d.project_id,
  identifier: 'system',
  method: 'GET',
  environment: 'production',
  source: 'backend',
  service_name: d.name,
  path: d.url.slice(0, 255),
  event_type: AUDIT_EVENT_TYPE.certificateExpiring,
  timestamp: d.checked_at,
  request_body: {
    url: d.url,
    days_left: d.days_left,
    threshold_days: d.threshold_days,
    expires_at: d.certificate.valid_to,
    issuer: d.certificate.issuer,
    subject: d.certificate.subject,
    names: d.certificate.names,
  },
});
