import type * as t from 'io-ts';
import { AUDIT_EVENT_TYPE, type StoredAuditEvent } from './audit-event.ts';
import type { maintenanceEvents } from './maintenance.ts';

type Started = t.TypeOf<typeof maintenanceEvents.MaintenanceStarted>;
type Ended = t.TypeOf<typeof maintenanceEvents.MaintenanceEnded>;

/** An occurrence of a maintenance window opening or closing, as the audit event the list and
 *  export show in the window's project, keyed by the log event's id: `identifier` `system` and
 *  `environment` `production` as for monitor transitions, `method` POST (like an alert: something
 *  the service posts about the project), `path` `maintenance:<id>`, `service_name` the window's
 *  title. `timestamp`: when the occurrence began (as due, though the clock may see it a few
 *  seconds later) and when it ended (earlier than due when the window was changed or deleted). */
export const maintenanceAuditEvent = (
  id: string,
  e: { type: 'MaintenanceStarted'; data: Started } | { type: 'MaintenanceEnded'; data: Ended },
): StoredAuditEvent => {
  const d = e.data;
  const common = {
    id,
    project_id: d.project_id,
    identifier: 'system',
    method: 'POST',
    environment: 'production',
    source: 'backend' as const,
    path: `maintenance:${d.maintenance_id}`,
    service_name: d.title ?? 'maintenance',
  };
  const window = {
    maintenance_id: d.maintenance_id,
    title: d.title ?? null,
    occurrence_start: d.occurrence_start,
    occurrence_end: d.occurrence_end,
  };
  if (e.type === 'MaintenanceStarted') {
    return {
      ...common,
      event_type: AUDIT_EVENT_TYPE.maintenanceStarted,
      timestamp: e.data.occurrence_start,
      request_body: { ...window, monitor_ids: e.data.monitor_ids, seen_at: e.data.at },
    };
  }
  return {
    ...common,
    event_type: AUDIT_EVENT_TYPE.maintenanceEnded,
    timestamp: e.data.at,
    request_body: { ...window, ended_at: e.data.at },
  };
};
