import { expiredRangeOf } from '../src/domain/retention.ts';
import type { DerivedSessionsWriter } from '../src/views/derived-sessions/port.ts';
import type { Projection } from './projection.ts';

/** SPEC 3.3: sessions per project × identifier × service, from the http events only (alerts and
 *  healthcheck events carry the identifier "system"). Erased events belong to nobody's session;
 *  retention drops the sessions that ended before its cutoff (one that spans the cutoff keeps
 *  its count until it ends before it too; a rebuild counts only the events the log still has). */
export const derivedSessionsProjection: Projection<DerivedSessionsWriter> = {
  name: 'derived-sessions',
  handles: ['AuditEventRecorded', 'RetentionApplied', 'IdentifierErased'],
  apply(event, recorded, writer) {
    if (event.type === 'RetentionApplied') return writer.expire(expiredRangeOf(event.data));
    if (event.type === 'IdentifierErased') return writer.erase(event.data.project_id, event.data.identifier);
    if (event.type !== 'AuditEventRecorded' || event.data.event_type !== 'http') return;
    const { project_id, identifier, service_name, timestamp } = event.data;
    writer.event({ project_id, identifier, service_name }, Date.parse(timestamp), recorded.position);
  },
};
