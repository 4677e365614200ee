import { publicSettingsOf, type SinkFilter } from '../src/domain/sink.ts';
import type { SinksWriter } from '../src/views/sinks/port.ts';
import type { Projection } from './projection.ts';

export const sinksProjection: Projection<SinksWriter> = {
  name: 'sinks',
  handles: ['SinkCreated', 'SinkUpdated', 'SinkDegraded', 'SinkRecovered', 'SinkDeleted'],
  apply(event, recorded, writer) {
    switch (event.type) {
      case 'SinkCreated': {
        const s = event.data;
        writer.created(
          {
            id: s.sink_id,
            project_id: s.project_id,
            type: s.target.type,
            name: s.name,
            active: s.active,
            filter: s.filter as SinkFilter,
            settings: publicSettingsOf(s.target),
            degraded: false,
            degraded_reason: null,
            degraded_since: null,
            created_at: s.created_at,
            updated_at: s.created_at,
          },
          s.target,
          recorded.position,
        );
        break;
      }
      case 'SinkUpdated':
        writer.updated(event.data.sink_id, event.data.changes, event.data.updated_at);
        break;
      case 'SinkDegraded':
        writer.degraded(event.data.sink_id, event.data.reason, event.data.degraded_at);
        break;
      case 'SinkRecovered':
        writer.recovered(event.data.sink_id);
        break;
      case 'SinkDeleted':
        writer.deleted(event.data.sink_id);
        break;
      default:
        break;
    }
  },
};
