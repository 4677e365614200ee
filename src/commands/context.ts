import { randomUUID } from 'node:crypto';
import type { EventData, EventType } from '../domain/events.ts';
import { decodeEvent, type DomainEvent } from '../domain/events.ts';
import type { EventLog, NewEvent } from '../log/event-log.ts';
import type { ReadModels } from '../views/ports.ts';

export const SCHEMA_VERSION = 1;

/** Who asked, and the correlation id that ties the resulting events to the request. */
export interface CommandContext {
  readonly actor: string;
  readonly correlationId: string;
  readonly now: () => Date;
}

export interface CommandDeps {
  readonly log: EventLog;
  readonly readModels: ReadModels;
  /** Resolves once the access read model has applied the log up to `position` (read-your-writes). */
  readonly accessSettled: (position: string) => Promise<unknown>;
  /** The same for the monitors read model. */
  readonly monitorsSettled: (position: string) => Promise<unknown>;
  /** The same for the channels read model. */
  readonly channelsSettled: (position: string) => Promise<unknown>;
  /** The same for the anomalies read model (settings and open alerts). */
  readonly anomaliesSettled: (position: string) => Promise<unknown>;
}

export const newEvent = <K extends EventType>(type: K, data: EventData<K>, ctx: CommandContext): NewEvent => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    recorded_at: ctx.now().toISOString(),
    actor: ctx.actor,
    correlation_id: ctx.correlationId,
    schema_version: SCHEMA_VERSION,
  },
});

/** Folds a stream into state; returns the state and the revision to expect on the next append. */
export const loadAggregate = async <S>(
  log: EventLog, stream: string, initial: S, evolve: (s: S, e: DomainEvent) => S,
): Promise<{ state: S; revision: number | 'no_stream' }> => {
  const events = await log.readStream(stream);
  const state = events.reduce((s, e) => evolve(s, decodeEvent(e.position, e.type, e.data)), initial);
  const last = events[events.length - 1];
  return { state, revision: last ? last.revision : 'no_stream' };
};
