import { transitionAuditEvent } from '../src/domain/monitor.ts';
import type { AuditEventsWriter } from '../src/views/ports.ts';
import type { Projection } from './projection.ts';

/** Ingested events, and monitor transitions as the system.healthcheck events of SPEC 6.1 (keyed
 *  by the transition's event id, so they list, filter and export like ingested ones). */
export const auditEventsProjection: Projection<AuditEventsWriter> = {
  name: 'audit-events',
  handles: ['AuditEventRecorded', 'MonitorWentDown', 'MonitorCameUp'],
  apply(event, recorded, writer) {
    if (event.type === 'AuditEventRecorded') writer.record(event.data, recorded.position);
    else if (event.type === 'MonitorWentDown' || event.type === 'MonitorCameUp') {
      writer.record(transitionAuditEvent(recorded.id, event), recorded.position);
    }
  },
};
