import type { DomainEvent, EventType } from '../src/domain/events.ts';
import type { RecordedEvent } from '../src/log/event-log.ts';

/** A projection: a deterministic function of the log onto one read model's writer. */
export interface Projection<W> {
  readonly name: string;
  /** Event types it reads; the projector decodes only these, and skips the rest (checkpoint still moves). */
  readonly handles: readonly EventType[];
  apply(event: DomainEvent, recorded: RecordedEvent, writer: W): void;
}
