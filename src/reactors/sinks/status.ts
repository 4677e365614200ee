import { batchDecoder } from '../../../projections/projector.ts';
import { sinkStream } from '../../domain/streams.ts';
import type { EventLog } from '../../log/event-log.ts';
import type { SinkView } from '../../views/sinks/port.ts';
import { sinkRecordOf } from './records.ts';
import type { SinkStates } from './state/port.ts';

/** How far behind a sink is, read when asked: its checkpoint and progress from its store, and
 *  the records it has still to send counted in the log after that checkpoint. */
export interface SinkStatus {
  state: 'active' | 'degraded' | 'paused';
  position: string | null;
  /** The project's records the sink takes, logged and not yet taken by its destination. */
  lag_records: number;
  /** False when there were more than the scan looks at (`lag_records` is then a floor). */
  lag_exact: boolean;
  /** Since the oldest of those was logged; 0 when there are none. */
  lag_seconds: number;
  forwarded_total: number;
  last_forwarded_at: string | null;
  failures: number;
  last_error: string | null;
  last_error_at: string | null;
}

/** The log is read from the checkpoint up to this many records at most per question. */
export const LAG_SCAN_LIMIT = 100_000;
const PAGE = 2000;

export const sinkStatusOf = async (
  deps: { log: EventLog; states: SinkStates; now: () => Date },
  view: SinkView,
): Promise<SinkStatus> => {
  const stored = await deps.states.store(view.id).checkpoint();
  // Before its reactor first ran, a sink stands where it was created.
  const from = stored ?? (await deps.log.readStream(sinkStream(view.id), { maxCount: 1 }))[0]?.position ?? null;
  let position = from;
  let lag = 0;
  let scanned = 0;
  let oldest: string | null = null;
  let exact = true;
  for (;;) {
    const page = await deps.log.readAll(position, PAGE);
    const decode = batchDecoder();
    for (const recorded of page) {
      if (sinkRecordOf(view, recorded, decode) === null) continue;
      lag += 1;
      oldest ??= recorded.metadata.recorded_at;
    }
    scanned += page.length;
    if (page.length < PAGE) break;
    if (scanned >= LAG_SCAN_LIMIT) {
      exact = false;
      break;
    }
    position = page[page.length - 1]!.position;
  }
  const progress = await deps.states.progress(view.id);
  return {
    state: !view.active ? 'paused' : view.degraded ? 'degraded' : 'active',
    position: stored,
    lag_records: lag,
    lag_exact: exact,
    lag_seconds: oldest === null ? 0 : Math.max(0, (deps.now().getTime() - Date.parse(oldest)) / 1000),
    forwarded_total: progress?.forwarded_total ?? 0,
    last_forwarded_at: progress?.last_forwarded_at ?? null,
    failures: progress?.failures ?? 0,
    last_error: progress?.last_error ?? null,
    last_error_at: progress?.last_error_at ?? null,
  };
};
