import { transitionAuditEvent } from '../src/domain/monitor.ts';
import { alertAuditEvent } from '../src/domain/anomaly.ts';
import { AUDITED_CHANGES, changeAccessEvent } from '../src/domain/self-audit.ts';
import type { AuditEventsWriter } from '../src/views/audit-events/port.ts';
import type { Projection } from './projection.ts';

/** Ingested events, monitor transitions as the system.healthcheck events of SPEC 6.1 (keyed by
 *  the transition's event id), anomaly alerts as the system.alert events of SPEC 2.10 (keyed
 *  by the alert id), and changes made through watchlog as system.access events of the built-in
 *  project (keyed by the change's event id), so they list, filter and export like ingested ones. */
export const auditEventsProjection: Projection<AuditEventsWriter> = {
  name: 'audit-events',
  handles: ['AuditEventRecorded', 'MonitorWentDown', 'MonitorCameUp', 'AnomalyDetected', ...AUDITED_CHANGES],
  apply(event, recorded, writer) {
    if (event.type === 'AuditEventRecorded') writer.record(event.data, recorded.position);
    else if (event.type === 'MonitorWentDown' || event.type === 'MonitorCameUp') {
      writer.record(transitionAuditEvent(recorded.id, event), recorded.position);
    } else if (event.type === 'AnomalyDetected') writer.record(alertAuditEvent(event.data), recorded.position);
    else {
      const change = changeAccessEvent(recorded.id, event, recorded.metadata);
      if (change) writer.record(change, recorded.position);
    }
  },
};
