import { bucketOf } from '../src/domain/stats.ts';
import { auditEventOf, expiredRangeOf } from '../src/domain/retention.ts';
import type { StatsWriter } from '../src/views/stats/port.ts';
import type { Projection } from './projection.ts';

/** Per project × service × environment × minute counters and response-time bins, from the http
 *  events only. An erased event still counts (erasure keeps what statistics read); retention
 *  drops the buckets before its cutoff. */
export const statsProjection: Projection<StatsWriter> = {
  name: 'stats-buckets',
  handles: ['AuditEventRecorded', 'RecordRedacted', 'RetentionApplied'],
  apply(event, recorded, writer) {
    if (event.type === 'RetentionApplied') return writer.expire(expiredRangeOf(event.data));
    const audit = auditEventOf(event);
    if (audit?.event_type === 'http') writer.add(bucketOf(audit), recorded.position);
  },
};
