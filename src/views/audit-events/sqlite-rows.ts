import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import type { AuditListItem } from './port.ts';

/** The audit_events table's rows as the queries read them (sqlite.ts). */

/** A row's project id, in a SELECT list. */
export const PROJECT_ID = '(SELECT project_id FROM audit_projects WHERE key = project) AS project_id';

/** A list item's columns, with its time as the epoch ms the table keeps. */
export interface ListRow extends Omit<AuditListItem, 'timestamp'> {
  rest?: string;
  ts: number;
}

/** The row keeps an event's columns once: `rest` is the JSON of its other fields (bodies, user
 *  fields, source…), and `eventOf` puts the two back together. */
export interface EventRow extends ListRow {
  session_id: string | null;
  tenant_id: string | null;
  rest: string;
}
export const EVENT_COLUMNS =
  `id, ${PROJECT_ID}, event_type, method, path, status_code, response_time, identifier, ` +
  `user_email, service_name, environment, session_id, tenant_id, ts, rest`;

export const eventOf = (r: EventRow): StoredAuditEvent => {
  const event: Record<string, unknown> = {
    id: r.id,
    project_id: r.project_id,
    event_type: r.event_type,
    timestamp: new Date(r.ts).toISOString(),
    path: r.path,
    method: r.method,
  };
  if (r.status_code !== null) event.status_code = r.status_code;
  if (r.response_time !== null) event.response_time = r.response_time;
  event.identifier = r.identifier;
  if (r.user_email !== null) event.user_email = r.user_email;
  event.service_name = r.service_name;
  event.environment = r.environment;
  if (r.session_id !== null) event.session_id = r.session_id;
  if (r.tenant_id !== null) event.tenant_id = r.tenant_id;
  return Object.assign(event, JSON.parse(r.rest) as Record<string, unknown>) as StoredAuditEvent;
};

export const toListItem = (r: ListRow): AuditListItem => ({
  id: r.id,
  project_id: r.project_id,
  event_type: r.event_type,
  method: r.method,
  path: r.path,
  status_code: r.status_code,
  response_time: r.response_time,
  identifier: r.identifier,
  user_email: r.user_email,
  service_name: r.service_name,
  environment: r.environment,
  timestamp: new Date(r.ts).toISOString(),
});
