import type { AuditEventsWriter } from '../src/views/ports.ts';
import type { Projection } from './projection.ts';

export const auditEventsProjection: Projection<AuditEventsWriter> = {
  name: 'audit-events',
  handles: ['AuditEventRecorded'],
  apply(event, recorded, writer) {
    if (event.type === 'AuditEventRecorded') writer.record(event.data, recorded.position);
  },
};
