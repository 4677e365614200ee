import { bucketOf } from '../src/domain/stats.ts';
import type { StatsWriter } from '../src/views/stats/port.ts';
import type { Projection } from './projection.ts';

/** Per project × service × environment × minute counters and response-time bins, from the http
 *  events only. */
export const statsProjection: Projection<StatsWriter> = {
  name: 'stats-buckets',
  handles: ['AuditEventRecorded'],
  apply(event, recorded, writer) {
    if (event.type !== 'AuditEventRecorded' || event.data.event_type !== 'http') return;
    writer.add(bucketOf(event.data), recorded.position);
  },
};
