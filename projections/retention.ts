import { identifierDigest } from '../src/domain/retention.ts';
import type { RetentionWriter } from '../src/views/retention/port.ts';
import type { Projection } from './projection.ts';

/** Each project's retention setting, what retention and erasure removed, and the erasure
 *  requests, which name the identifier by its digest only. */
export const retentionProjection: Projection<RetentionWriter> = {
  name: 'retention',
  handles: ['RetentionSet', 'RetentionApplied', 'ErasureRequested', 'IdentifierErased'],
  apply(event, recorded, writer) {
    if (event.type === 'RetentionSet')
      writer.retentionSet(event.data.project_id, event.data.retention_days, event.data.updated_at);
    else if (event.type === 'RetentionApplied') {
      const { project_id, cutoff, removed, applied_at } = event.data;
      writer.retentionApplied(project_id, cutoff, removed, applied_at, recorded.position);
    } else if (event.type === 'ErasureRequested') {
      const { erasure_id, project_id, identifier, through_position, requested_at } = event.data;
      writer.erasureRequested(
        { id: erasure_id, project_id, identifier_sha256: identifierDigest(identifier), through_position, requested_at },
        recorded.position,
      );
    } else if (event.type === 'IdentifierErased') {
      const { project_id, erased, erasure_id, erased_at } = event.data;
      writer.identifierErased(
        project_id,
        erased,
        recorded.position,
        erasure_id === undefined ? undefined : { erasure_id, erased_at },
      );
    }
  },
};
