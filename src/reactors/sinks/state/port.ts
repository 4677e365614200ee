import type { ReactorStore } from '../../port.ts';

/** Each sink is a reactor of its own, with its own checkpoint and lease (`sink-{id}`): what it
 *  has forwarded is committed with that checkpoint only once the destination acknowledged it. */

export const sinkReactorName = (sinkId: string) => `sink-${sinkId}`;

export interface SinkProgressWriter {
  /** `count` records of the sink were acknowledged, up to the one with `lastEventId`. */
  forwarded(sinkId: string, count: number, lastEventId: string, at: string): void;
}

/** What a sink has done so far. */
export interface SinkProgress {
  forwarded_total: number;
  last_forwarded_at: string | null;
  last_event_id: string | null;
  /** Failed tries in a row (0 once a batch gets through). */
  failures: number;
  last_error: string | null;
  last_error_at: string | null;
}

export interface SinkStates {
  /** The sink's store: its checkpoint and progress, fenced by its lease. */
  store(sinkId: string): ReactorStore<SinkProgressWriter>;
  progress(sinkId: string): Promise<SinkProgress | null>;
  /** A failed try, recorded at once (outside any commit: the checkpoint does not move). */
  failed(sinkId: string, failures: number, error: string, at: string): Promise<void>;
}
