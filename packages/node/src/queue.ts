import type { WireEvent } from './event.ts';

/** A queued event and the estimated size of its JSON. The batch is serialised in one
 *  JSON.stringify when it leaves (much cheaper per event than one call each), once: every
 *  attempt resends those bytes, idempotency keys included. */
export interface QueuedEvent {
  seq: number;
  event: WireEvent;
  bytes: number;
}

/** The JSON array's bytes for `count` events of `bytes` in total: brackets and commas. */
export const arrayBytes = (count: number, bytes: number): number => bytes + Math.max(count - 1, 0) + 2;

/** Events serialised per call: large enough to keep JSON.stringify's per-call cost small, small
 *  enough that no call holds the application's event loop for long. */
const SERIALISE_CHUNK = 100;

const yieldToApplication = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The batch's JSON array, serialised a chunk at a time with the event loop released between
 *  chunks, so requests arriving meanwhile are not held behind a whole batch. */
export const batchBody = async (events: readonly QueuedEvent[]): Promise<string> => {
  if (events.length <= SERIALISE_CHUNK) return JSON.stringify(events.map((e) => e.event));
  const parts: string[] = [];
  for (let i = 0; i < events.length; i += SERIALISE_CHUNK) {
    if (i > 0) await yieldToApplication();
    const json = JSON.stringify(events.slice(i, i + SERIALISE_CHUNK).map((e) => e.event));
    parts.push(json.slice(1, -1));
  }
  return `[${parts.join(',')}]`;
};

/** What every event's JSON holds besides its variable strings and objects: the keys, quotes,
 *  numbers, method, environment, source and the idempotency key. */
const FIXED_BYTES = 200;

/** The JSON size of an event, near enough for flushing by bytes (exact to a few bytes for
 *  ASCII); `objectBytes` is what its captured objects weigh. The batch's real size is checked
 *  once it is serialised. */
export const estimateBytes = (event: WireEvent, objectBytes: number): number => {
  let bytes = FIXED_BYTES + objectBytes + event.path.length + event.identifier.length + event.service_name.length;
  // The optional strings, each with its key and quotes.
  for (const value of [
    event.request_id,
    event.ip,
    event.user_agent,
    event.user_email,
    event.user_name,
    event.user_type,
    event.tenant_id,
    event.session_id,
    event.error_message,
  ]) {
    if (value !== undefined) bytes += value.length + 16;
  }
  if (event.user_roles) for (const role of event.user_roles) bytes += role.length + 3;
  return bytes;
};

/** FIFO of events with O(1) push and shift, tracking the JSON bytes it holds. */
export class EventQueue {
  /** Consumed slots are cleared to undefined so their events can be collected. */
  #items: Array<QueuedEvent | undefined> = [];
  #head = 0;
  bytes = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  /** Sequence number of the oldest event, or undefined when empty. */
  headSeq(): number | undefined {
    return this.#items[this.#head]?.seq;
  }

  push(event: QueuedEvent): void {
    this.#items.push(event);
    this.bytes += event.bytes;
  }

  shift(): QueuedEvent | undefined {
    const event = this.#items[this.#head];
    if (!event) return undefined;
    this.#items[this.#head] = undefined;
    this.#head += 1;
    this.bytes -= event.bytes;
    // Compact once the consumed prefix dominates, so the backing array stays bounded.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return event;
  }

  /** The oldest events, at most `maxEvents`, whose JSON array fits `maxBytes`; always at least
   *  one (an event larger than `maxBytes` travels alone). */
  take(maxEvents: number, maxBytes: number): QueuedEvent[] {
    const out: QueuedEvent[] = [];
    let bytes = 0;
    while (out.length < maxEvents) {
      const next = this.#items[this.#head];
      if (!next) break;
      if (out.length > 0 && arrayBytes(out.length + 1, bytes + next.bytes) > maxBytes) break;
      out.push(this.shift()!);
      bytes += next.bytes;
    }
    return out;
  }

  clear(): number {
    const n = this.length;
    this.#items = [];
    this.#head = 0;
    this.bytes = 0;
    return n;
  }
}
