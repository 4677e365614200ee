import { auditEventOf, expiredRangeOf } from '../src/domain/retention.ts';
import type { OrphansWriter } from '../src/views/orphans/port.ts';
import type { Projection } from './projection.ts';

/** Pairs browser-side and backend http events by project and request_id. Events without a
 *  request_id cannot be paired and are left out. Erased events pair like the others, without
 *  their identifier and e-mail; retention drops the requests before its cutoff. */
export const orphansProjection: Projection<OrphansWriter> = {
  name: 'orphans',
  handles: ['AuditEventRecorded', 'RecordRedacted', 'RetentionApplied', 'IdentifierErased'],
  apply(event, _recorded, writer) {
    // On the last page of a removal only: the backend requests have no time index (a match looks
    // them up by request id), so each delete reads all of the project's.
    if (event.type === 'RetentionApplied')
      return event.data.until ? undefined : writer.expire(expiredRangeOf(event.data));
    if (event.type === 'IdentifierErased') return writer.erase(event.data.project_id, event.data.identifier);
    const e = auditEventOf(event);
    if (e?.event_type !== 'http' || !e.request_id) return;
    if (e.source === 'browser') {
      writer.browserEvent(
        {
          id: e.id,
          project_id: e.project_id,
          event_type: e.event_type,
          method: e.method,
          path: e.path,
          status_code: e.status_code ?? null,
          response_time: e.response_time ?? null,
          identifier: e.identifier,
          user_email: e.user_email ?? null,
          service_name: e.service_name,
          environment: e.environment,
          timestamp: e.timestamp,
        },
        e.request_id,
      );
    } else {
      writer.backendEvent(e.project_id, e.request_id, Date.parse(e.timestamp));
    }
  },
};
