import { alertAuditEvent } from './anomaly.ts';
import type { StoredAuditEvent } from './audit-event.ts';
import type { DomainEvent, EventMetadata, EventType } from './events.ts';
import { maintenanceAuditEvent } from './maintenance-audit.ts';
import { certificateAuditEvent, transitionAuditEvent } from './monitor-audit.ts';
import { AUDITED_CHANGES, changeAccessEvent } from './self-audit.ts';

/** The audit record each log record is: the rows the audit-events projection keeps (the list,
 *  search, export) and the records a log sink forwards, once, when it enters the log. An erasure
 *  or retention later changes what watchlog shows, not what a destination was already sent. */

/** The event types that are audit records of some project. */
export const RECORD_EVENT_TYPES: readonly EventType[] = [
  'AuditEventRecorded',
  'MonitorWentDown',
  'MonitorCameUp',
  'CertificateExpiring',
  'AnomalyDetected',
  'MaintenanceStarted',
  'MaintenanceEnded',
  ...AUDITED_CHANGES,
];
export const RECORD_TYPES: ReadonlySet<string> = new Set(RECORD_EVENT_TYPES);

/** The audit record a log record is, or null. `id` is the record's own id where the audit list
 *  keys it by the log record (transitions, warnings, windows, changes). */
export const auditRecordOf = (id: string, event: DomainEvent, metadata: EventMetadata): StoredAuditEvent | null => {
  switch (event.type) {
    case 'AuditEventRecorded':
      return event.data;
    case 'MonitorWentDown':
    case 'MonitorCameUp':
      return transitionAuditEvent(id, event);
    case 'CertificateExpiring':
      return certificateAuditEvent(id, event.data);
    case 'AnomalyDetected':
      return alertAuditEvent(event.data);
    case 'MaintenanceStarted':
    case 'MaintenanceEnded':
      return maintenanceAuditEvent(id, event);
    default:
      return changeAccessEvent(id, event, metadata);
  }
};
