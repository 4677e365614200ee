import type { EventMetadata } from '../../domain/events.ts';
import type { RecordedEvent } from '../event-log.ts';
import type { BlockRecord } from './blocks.ts';
import type { Row } from './statements.ts';

/** `data` and `metadata` are parsed on first use: a projection reading the whole log skips the
 *  JSON of every event type it does not handle, which is most of a replay's cost. A class, not an
 *  object literal with getters: V8 pretenures such a literal once many of them are alive at a
 *  scavenge, and a replay then fills the old generation with records it drops a moment later
 *  (a 1M-record stream grew the heap by 100 MB between collections). */
export class StoredRecord implements RecordedEvent {
  readonly position: string;
  readonly stream: string;
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  readonly text: { readonly data: string; readonly metadata: string };
  #data: unknown;
  #metadata: EventMetadata | undefined;

  constructor(r: Row, payload: Pick<BlockRecord, 'id' | 'data' | 'metadata'>) {
    this.position = String(r.position);
    this.stream = r.stream;
    this.revision = r.revision;
    this.id = payload.id;
    this.type = r.type;
    this.text = { data: payload.data, metadata: payload.metadata };
  }

  get data(): unknown {
    this.#data ??= JSON.parse(this.text.data) as unknown;
    return this.#data;
  }

  get metadata(): EventMetadata {
    this.#metadata ??= JSON.parse(this.text.metadata) as EventMetadata;
    return this.#metadata;
  }

  /** The record as a plain object, for JSON.stringify (which reads own properties only). */
  toJSON(): RecordedEvent {
    const { position, stream, revision, id, type, data, metadata, text } = this;
    return { position, stream, revision, id, type, data, metadata, text };
  }
}
