import type { Decoder } from '../../../projections/projector.ts';
import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import { sinkTakes } from '../../domain/sink.ts';
import { RECORD_TYPES, auditRecordOf } from '../../domain/audit-record.ts';
import { auditStream } from '../../domain/streams.ts';
import type { RecordedEvent } from '../../log/event-log.ts';
import type { SinkView } from '../../views/sinks/port.ts';

/** The audit record a sink takes from a log record, or null: a record of its project that its
 *  filter lets through. Another project's ingested event is told by its stream, undecoded. */
export const sinkRecordOf = (
  sink: Pick<SinkView, 'project_id' | 'filter'>,
  recorded: RecordedEvent,
  decode: Decoder,
): StoredAuditEvent | null => {
  if (!RECORD_TYPES.has(recorded.type)) return null;
  if (recorded.type === 'AuditEventRecorded' && !recorded.stream.startsWith(auditStream(sink.project_id))) return null;
  const record = auditRecordOf(recorded.id, decode(recorded), recorded.metadata);
  return record !== null && record.project_id === sink.project_id && sinkTakes(sink.filter, record) ? record : null;
};
