import type { RetentionWriter } from '../src/views/retention/port.ts';
import type { Projection } from './projection.ts';

/** Each project's retention setting, and what retention and erasure removed. */
export const retentionProjection: Projection<RetentionWriter> = {
  name: 'retention',
  handles: ['RetentionSet', 'RetentionApplied', 'IdentifierErased'],
  apply(event, recorded, writer) {
    if (event.type === 'RetentionSet') writer.retentionSet(event.data.project_id, event.data.retention_days, event.data.updated_at);
    else if (event.type === 'RetentionApplied') {
      const { project_id, cutoff, removed, applied_at } = event.data;
      writer.retentionApplied(project_id, cutoff, removed, applied_at, recorded.position);
    } else if (event.type === 'IdentifierErased') writer.identifierErased(event.data.project_id, event.data.erased, recorded.position);
  },
};
