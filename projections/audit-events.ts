import { RECORD_EVENT_TYPES, auditRecordOf } from '../src/domain/audit-record.ts';
import { expiredRangeOf } from '../src/domain/retention.ts';
import type { AuditEventsWriter } from '../src/views/audit-events/port.ts';
import type { Projection } from './projection.ts';

/** Ingested events, monitor transitions as the system.healthcheck events of SPEC 6.1 (keyed by
 *  the transition's event id), certificate warnings as system.healthcheck.certificate_expiring
 *  (keyed by the warning's event id), anomaly alerts as the system.alert events of SPEC 2.10
 *  (keyed by the alert id), maintenance windows opening and closing as system.maintenance.started
 *  and .ended (keyed by the event's id), and changes made through watchlog as system.access events of the built-in
 *  project (keyed by the change's event id), so they list, filter and export like ingested ones.
 *  Retention drops rows, an erasure rewrites them, and an erased record replayed from the log
 *  comes back in its erased form. */
export const auditEventsProjection: Projection<AuditEventsWriter> = {
  name: 'audit-events',
  handles: [...RECORD_EVENT_TYPES, 'RecordRedacted', 'RetentionApplied'],
  apply(event, recorded, writer) {
    if (event.type === 'RecordRedacted') {
      if (event.data.event) writer.record(event.data.event, recorded.position);
      return;
    }
    if (event.type === 'RetentionApplied') {
      writer.expire(expiredRangeOf(event.data));
      return;
    }
    // IdentifierErased is also a change, audited in the built-in project.
    if (event.type === 'IdentifierErased')
      writer.erase(event.data.project_id, event.data.identifier, event.data.through_position);
    const record = auditRecordOf(recorded.id, event, recorded.metadata);
    if (record) writer.record(record, recorded.position);
  },
};
