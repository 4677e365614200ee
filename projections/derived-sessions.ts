import type { DerivedSessionsWriter } from '../src/views/derived-sessions/port.ts';
import type { Projection } from './projection.ts';

/** SPEC 3.3: sessions per project × identifier × service, from the http events only (alerts and
 *  healthcheck events carry the identifier "system"). */
export const derivedSessionsProjection: Projection<DerivedSessionsWriter> = {
  name: 'derived-sessions',
  handles: ['AuditEventRecorded'],
  apply(event, recorded, writer) {
    if (event.type !== 'AuditEventRecorded' || event.data.event_type !== 'http') return;
    const { project_id, identifier, service_name, timestamp } = event.data;
    writer.event({ project_id, identifier, service_name }, Date.parse(timestamp), recorded.position);
  },
};
