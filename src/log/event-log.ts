import type { EventMetadata } from '../domain/events.ts';

/** The EventLog port. Revisions count from 0 within a stream; positions are global, strictly
 *  increasing, and exposed as decimal strings (KurrentDB positions are 64-bit). */

export type ExpectedRevision = 'any' | 'no_stream' | number;

export interface NewEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

/** A record as a log gives it back. Its `data` and `metadata` may be getters (the embedded log
 *  parses them on first use): copy the fields by name rather than spreading a record. */
export interface RecordedEvent extends NewEvent {
  readonly stream: string;
  readonly revision: number;
  readonly position: string;
  /** The data and metadata as the log stores them, JSON text, when the log keeps text (the
   *  embedded log): a reader that only passes a record on writes them unparsed. */
  readonly text?: { readonly data: string; readonly metadata: string };
}

/** An event to store once: as the next event of its own `stream`, unless that stream's last
 *  event was recorded less than the window before this one (by their `recorded_at`). */
export interface OnceEvent {
  readonly stream: string;
  readonly event: NewEvent;
}

/** What `appendOnce` did with one event: stored it, or found it there already (a replay: the
 *  earlier event, which the caller answers with; nothing was stored). */
export type OnceOutcome =
  | { readonly replay: false; readonly id: string; readonly position: string }
  | { readonly replay: true; readonly id: string; readonly position: string; readonly metadata: EventMetadata };

export interface AppendResult {
  /** Revision of the last event appended: the expected revision for the next append. */
  readonly revision: number;
  readonly position: string;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** The log cannot take appends now (its writer is down): nothing was stored, and a retry is
 *  safe. */
export class LogUnavailableError extends Error {}

/** The log's writer stopped after an append was handed to it and before it confirmed: the events
 *  may or may not be stored. A retry may store them twice unless it carries an idempotency key. */
export class AppendOutcomeUnknownError extends Error {}

/** One commit of the log's writer, as metrics see it: how many appends (requests) and events it
 *  stored and how long the write took (the embedded log: one group-committed transaction with its
 *  fsync; KurrentDB: one append call). Adapters report it to a `CommitObserver` they are given,
 *  so the log has no metrics library of its own. */
export interface CommitStats {
  readonly appends: number;
  readonly events: number;
  readonly seconds: number;
}
export type CommitObserver = (stats: CommitStats) => void;

/** What a log tells the process's metrics: its commits, and the events its reads skipped because
 *  their stream's maxCount hides them while the store still keeps them (KurrentDB keeps them
 *  until a scavenge: a count that keeps growing means nothing scavenges). */
export interface LogObserver {
  readonly committed: CommitObserver;
  readonly unscavenged?: (events: number) => void;
}

/** A record replaced in place (retention, erasure: src/domain/retention.ts): it keeps its
 *  position, stream, revision and id; its type, data and metadata are these. */
export interface Redaction {
  readonly position: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

/** The log cannot replace records (KurrentDB's events are immutable): retention and erasure are
 *  not available on it. */
export class RedactionUnsupportedError extends Error {
  constructor() {
    super('the KurrentDB log cannot replace records: retention and erasure need the embedded log');
  }
}

/** Whether the log can take appends now. */
export type LogHealth = { readonly ok: true } | { readonly ok: false; readonly since: string; readonly reason: string };

/** A catch-up subscription: batches in log order, first from the store, then live; like
 *  `readAll`, without the events maxCount hides. */
export interface Subscription extends AsyncIterable<readonly RecordedEvent[]> {
  close(): Promise<void>;
}

export interface CompactionResult {
  records: number;
  blocks: number;
  /** The records' payloads (id, data, metadata) before compression, and the blocks after. */
  bytesIn: number;
  bytesOut: number;
}

export interface EventLog {
  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Idempotent appends: each event goes to its own stream (one per idempotency key) unless that
   *  stream's last event was recorded less than `withinMs` before it, in which case nothing is
   *  stored and that earlier event is the answer. Atomic per stream, whatever the concurrency
   *  (two requests with one key store one event), and durable like `append`; appends made in the
   *  same turn as other appends of this handle commit with them where the adapter groups. */
  appendOnce(items: readonly OnceEvent[], withinMs: number): Promise<OnceOutcome[]>;
  /** Events of one stream in revision order (honouring its maxCount); [] when it does not exist. */
  readStream(stream: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  /** The newest event of one stream; null when it has none. */
  readLast(stream: string): Promise<RecordedEvent | null>;
  /** Events after `after` (null: from the start) in position order, without those their
   *  stream's maxCount hides (a replay never sees more of a stream than `readStream` would). */
  readAll(after: string | null, maxCount: number): Promise<RecordedEvent[]>;
  /** The events at these positions, in position order; a position with no event (trimmed,
   *  deleted) is left out. */
  readPositions(positions: readonly string[]): Promise<RecordedEvent[]>;
  /** Position of the last event in the log, null when empty. */
  headPosition(): Promise<string | null>;
  /** History after `after`, then each append, in batches of at most `maxBatch` events (the
   *  adapter's own size when not given). */
  subscribeAll(after: string | null, maxBatch?: number): Subscription;
  /** Keep only the last `maxCount` events of the stream. */
  setStreamMaxCount(stream: string, maxCount: number): Promise<void>;
  /** Whether `redact` is available (it is not on KurrentDB). */
  readonly redacts: boolean;
  /** Replaces each record in place, in short transactions that leave room for appends between
   *  them; resolves to how many it replaced (a position with no record is skipped). Throws
   *  RedactionUnsupportedError where the log cannot. */
  redact(redactions: readonly Redaction[]): Promise<number>;
  /** Deletes the events that maxCount hides but the store still keeps; resolves to how many. */
  trim(): Promise<number>;
  /** Compresses what the store keeps of older events, where the adapter does (the embedded log;
   *  reads are unchanged); resolves to what it did. */
  compact(): Promise<CompactionResult>;
  /** Calls `listener` after each append committed through this handle; returns its removal. */
  onAppend(listener: () => void): () => void;
  /** Another handle on the same log has appended: wake this handle's live subscriptions now. */
  notifyAppended(): void;
  health(): LogHealth;
  close(): Promise<void>;
}

/** Orders two log positions (null: before the first). Positions are decimal integers as the logs
 *  write them, without a sign or leading zeros, so the longer is the greater and two of one length
 *  compare as text: no BigInt per call (a projector compares each event of a batch once per read
 *  model). */
export const comparePositions = (a: string | null, b: string | null): number => {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : 1;
};
