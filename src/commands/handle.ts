import type { Decider } from '../domain/decider.ts';
import { decodeEvent, type DomainEvent } from '../domain/events.ts';
import { WrongExpectedRevisionError, type EventLog, type NewEvent } from '../log/event-log.ts';
import { newEventId } from './event-ids.ts';

export const SCHEMA_VERSION = 1;

/** Who asked, and the correlation id that ties the resulting events to the request. */
export interface CommandContext {
  readonly actor: string;
  readonly correlationId: string;
  readonly now: () => Date;
}

/** What every command needs: the log. Commands read and write streams, never read models. */
export interface CommandDeps {
  readonly log: EventLog;
}

/** A domain event as it is appended: with its id and metadata. */
export type NewDomainEvent = NewEvent & DomainEvent;

/** The metadata of an event appended now in this context. */
export const metadataOf = (ctx: CommandContext): NewEvent['metadata'] => ({
  recorded_at: ctx.now().toISOString(),
  actor: ctx.actor,
  correlation_id: ctx.correlationId,
  schema_version: SCHEMA_VERSION,
});

export const newEvent = (event: DomainEvent, ctx: CommandContext): NewDomainEvent => ({
  ...event,
  id: newEventId(),
  metadata: metadataOf(ctx),
});

/** A stream folded into its aggregate's state, and the revision to expect on the next append. */
export interface Loaded<S> {
  readonly state: S;
  readonly revision: number | 'no_stream';
}

export const load = async <S>(
  log: EventLog,
  stream: string,
  decider: Pick<Decider<S, unknown>, 'initialState' | 'evolve'>,
): Promise<Loaded<S>> => {
  const events = await log.readStream(stream);
  const state = events.reduce(
    (s, e) => decider.evolve(s, decodeEvent(e.position, e.type, e.data)),
    decider.initialState,
  );
  const last = events[events.length - 1];
  return { state, revision: last ? last.revision : 'no_stream' };
};

/** What a command did. */
export interface Handled<S> {
  /** The events appended, as appended; none when the command changed nothing. */
  readonly events: readonly NewDomainEvent[];
  /** The log position of the last of them (for read-your-writes); null when none. */
  readonly position: string | null;
  /** The aggregate's state after them. */
  readonly state: S;
}

/** Another writer appended between a load and its append at most this many times in a row
 *  before the command gives up. */
const MAX_ATTEMPTS = 5;

/** The one shape of a command on an aggregate: load the stream (or take `loaded`, when the
 *  caller has just read it), decide, and append at the revision the decision was made on. When
 *  another writer appended first, the decision is made again on the new state, which may now be
 *  "nothing to do" or a refusal. */
export const handle = async <S, C>(
  deps: CommandDeps,
  stream: string,
  decider: Decider<S, C>,
  command: C,
  ctx: CommandContext,
  loaded?: Loaded<S>,
): Promise<Handled<S>> => {
  let current = loaded ?? (await load(deps.log, stream, decider));
  for (let attempt = 1; ; attempt += 1) {
    const decided = decider.decide(command, current.state);
    if (decided.length === 0) return { events: [], position: null, state: current.state };
    const events = decided.map((e) => newEvent(e, ctx));
    try {
      const { position } = await deps.log.append(stream, events, current.revision);
      return { events, position, state: decided.reduce(decider.evolve, current.state) };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
      current = await load(deps.log, stream, decider);
    }
  }
};
