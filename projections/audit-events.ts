import { certificateAuditEvent, transitionAuditEvent } from '../src/domain/monitor-audit.ts';
import { alertAuditEvent } from '../src/domain/anomaly.ts';
import { maintenanceAuditEvent } from '../src/domain/maintenance-audit.ts';
import { AUDITED_CHANGES, changeAccessEvent } from '../src/domain/self-audit.ts';
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
  handles: [
    'AuditEventRecorded',
    'MonitorWentDown',
    'MonitorCameUp',
    'CertificateExpiring',
    'AnomalyDetected',
    'MaintenanceStarted',
    'MaintenanceEnded',
    'RecordRedacted',
    'RetentionApplied',
    ...AUDITED_CHANGES,
  ],
  apply(event, recorded, writer) {
    if (event.type === 'AuditEventRecorded') writer.record(event.data, recorded.position);
    else if (event.type === 'RecordRedacted') {
      if (event.data.event) writer.record(event.data.event, recorded.position);
    } else if (event.type === 'RetentionApplied') writer.expire(expiredRangeOf(event.data));
    else if (event.type === 'MonitorWentDown' || event.type === 'MonitorCameUp') {
      writer.record(transitionAuditEvent(recorded.id, event), recorded.position);
    } else if (event.type === 'CertificateExpiring') {
      writer.record(certificateAuditEvent(recorded.id, event.data), recorded.position);
    } else if (event.type === 'AnomalyDetected') writer.record(alertAuditEvent(event.data), recorded.position);
    else if (event.type === 'MaintenanceStarted' || event.type === 'MaintenanceEnded')
      writer.record(maintenanceAuditEvent(recorded.id, event), recorded.position);
    else {
      // IdentifierErased is also a change, audited in the built-in project.
      if (event.type === 'IdentifierErased')
        writer.erase(event.data.project_id, event.data.identifier, event.data.through_position);
      const change = changeAccessEvent(recorded.id, event, recorded.metadata);
      if (change) writer.record(change, recorded.position);
    }
  },
};
