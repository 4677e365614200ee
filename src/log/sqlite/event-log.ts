import type Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { EventMetadata } from '../../domain/events.ts';
import type { Worker } from 'node:worker_threads';
import { InlineAppender, ThreadAppender, type Appender, type WriterState } from './appender.ts';
import { openLogDatabase, serializeAppend, type AppendOutcome, type SerializedAppend } from './writer.ts';
import {
  BlockCache,
  compressBlock,
  compressBlockSync,
  compressible,
  decompressBlock,
  type BlockRecord,
  type DecodedBlock,
} from './blocks.ts';
import {
  AppendOutcomeUnknownError,
  LogUnavailableError,
  WrongExpectedRevisionError,
  type CommitObserver,
  type LogHealth,
  type AppendResult,
  type CompactionResult,
  type EventLog,
  type ExpectedRevision,
  type NewEvent,
  type OnceEvent,
  type OnceOutcome,
  type RecordedEvent,
  type Redaction,
  type Subscription,
} from '../event-log.ts';

/** The embedded event log: one append-only table in a SQLite file (schema and durability in
 *  sqlite-writer.ts, group commit in sqlite-appender.ts). Reads and subscriptions use this
 *  thread's connection; WAL lets them run beside the writer. */

interface Row {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
  block: number | null;
}

/** A row whose payload is still in it, as compaction reads it. */
type InlineRow = Omit<Row, 'block'>;

/** `data` and `metadata` are parsed on first use: a projection reading the whole log skips the
 *  JSON of every event type it does not handle, which is most of a replay's cost. A class, not an
 *  object literal with getters: V8 pretenures such a literal once many of them are alive at a
 *  scavenge, and a replay then fills the old generation with records it drops a moment later
 *  (a 1M-record stream grew the heap by 100 MB between collections). */
class StoredRecord implements RecordedEvent {
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
    return (this.#data ??= JSON.parse(this.text.data) as unknown);
  }

  get metadata(): EventMetadata {
    return (this.#metadata ??= JSON.parse(this.text.metadata) as EventMetadata);
  }

  /** The record as a plain object, for JSON.stringify (which reads own properties only). */
  toJSON(): RecordedEvent {
    const { position, stream, revision, id, type, data, metadata, text } = this;
    return { position, stream, revision, id, type, data, metadata, text };
  }
}

const REDACT_PAGE = 100;

/** The pause after a write transaction of redact or compact, so that the writer thread (or
 *  another process) gets the lock: a commit that finds the file locked retries after SQLite's
 *  busy-handler sleeps (1, 2, 5, 10… ms from when it first waited), not when the lock is
 *  released, so transactions one turn of the event loop apart could keep it waiting for all of
 *  them. As long as the transaction took, and at least 5 ms. */
const restAfterWrite = (startedAt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.max(5, performance.now() - startedAt)));
/** Positions compaction reads at once. */
const READ_SLICE = 512;

/** How the log compresses records past its recent tail (blocks.ts). */
export interface CompactionOptions {
  /** Records at the head of the log left as they are: the live tail that projections, appendOnce
   *  and recent reads touch. */
  keepRecent?: number;
  /** Positions looked at per step; a block's records all come from one such window, so a replay
   *  needs at most one window's blocks decoded at a time. */
  window?: number;
  /** Records per block at most. */
  blockRecords?: number;
  /** Records whose streams share a family share blocks (by default each stream is its own). */
  familyOf?: (stream: string) => string;
}

/** A row changed between compaction's read and its write (a redaction ran meanwhile). */
class ChangedMeanwhile extends Error {}

export interface SqliteEventLogOptions {
  /** How often a live subscription looks for appends made by other processes. */
  pollIntervalMs?: number;
  /** Largest batch a subscription delivers. */
  batchSize?: number;
  /** Commit appends on a dedicated thread (servers) rather than on the caller's (tools, tests). */
  writerThread?: boolean;
  /** Told when the writer thread stops and when it runs again (it is restarted on its own). */
  onWriterStateChange?: (state: WriterState) => void;
  /** Told the size and time of every commit, on this thread (metrics). */
  onCommitted?: CommitObserver;
  compaction?: CompactionOptions;
}

export class SqliteEventLog implements EventLog {
  readonly redacts = true;
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private readonly appender: Appender;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly stmts;
  private readonly blocks = new BlockCache();
  private readonly loadBlock = (id: number): Buffer | undefined => this.stmts.blockBody.get(id)?.body;
  private readonly compaction: Required<CompactionOptions>;

  constructor(file: string, options: SqliteEventLogOptions = {}) {
    this.compaction = {
      keepRecent: 10_000,
      window: 4096,
      blockRecords: 128,
      familyOf: (stream) => stream,
      ...options.compaction,
    };
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.batchSize = options.batchSize ?? 1000;
    this.db = openLogDatabase(file);
    this.appended.setMaxListeners(0);
    // 'commit': an append through this handle; 'wake': live subscriptions should read again.
    const onCommit = () => {
      this.appended.emit('commit');
      this.appended.emit('wake');
    };
    this.appender = options.writerThread
      ? new ThreadAppender(file, onCommit, {
          ...(options.onWriterStateChange ? { onStateChange: options.onWriterStateChange } : {}),
          ...(options.onCommitted ? { onCommitted: options.onCommitted } : {}),
        })
      : new InlineAppender(this.db, onCommit, options.onCommitted);
    this.stmts = {
      head: this.db.prepare<[string], { revision: number | null }>(
        'SELECT MAX(revision) AS revision FROM events WHERE stream = ?',
      ),
      readStream: this.db.prepare<[string, number, number], Row>(
        'SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?',
      ),
      // Events that their stream's maxCount hides are skipped here, not only once the trim job has
      // deleted them: a replay gives the same result before and after a trim. The probe costs
      // one primary-key lookup per event, and the head revision only for the few capped streams.
      readAll: this.db.prepare<[number, number], Row>(`SELECT e.* FROM events e WHERE e.position > ? AND NOT EXISTS (
          SELECT 1 FROM stream_settings s WHERE s.stream = e.stream
            AND e.revision <= (SELECT MAX(h.revision) FROM events h WHERE h.stream = e.stream) - s.max_count)
        ORDER BY e.position LIMIT ?`),
      lastPosition: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
      maxCount: this.db.prepare<[string], { max_count: number }>(
        'SELECT max_count FROM stream_settings WHERE stream = ?',
      ),
      setMaxCount: this.db.prepare(
        'INSERT INTO stream_settings (stream, max_count) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET max_count = excluded.max_count',
      ),
      trim: this.db.prepare('DELETE FROM events WHERE stream = ? AND revision <= ?'),
      trimmable: this.db.prepare<[], { stream: string; max_count: number }>(
        'SELECT stream, max_count FROM stream_settings',
      ),
      redact: this.db.prepare<[string, string, string, number]>(
        'UPDATE events SET type = ?, data = ?, metadata = ? WHERE position = ?',
      ),
      blockOf: this.db.prepare<[number], { block: number | null }>('SELECT block FROM events WHERE position = ?'),
      blockBody: this.db.prepare<[number], { body: Buffer }>('SELECT body FROM blocks WHERE id = ?'),
      insertBlock: this.db.prepare<[Buffer]>('INSERT INTO blocks (body) VALUES (?)'),
      deleteBlock: this.db.prepare<[number]>('DELETE FROM blocks WHERE id = ?'),
      moveToBlock: this.db.prepare<[number, string, number]>(
        'UPDATE events SET block = ?, type = ? WHERE position = ?',
      ),
      compactedThrough: this.db.prepare<[], { through: number }>('SELECT through FROM compaction WHERE one = 1'),
      setCompactedThrough: this.db.prepare<[number]>(
        'INSERT INTO compaction (one, through) VALUES (1, ?) ON CONFLICT (one) DO UPDATE SET through = MAX(through, excluded.through)',
      ),
      // Capped streams are left alone: trimming deletes their rows, which would strand their
      // payloads in blocks.
      compactable: this.db.prepare<
        [number, number],
        InlineRow
      >(`SELECT position, stream, revision, id, type, data, metadata FROM events
        WHERE position > ? AND position <= ? AND block IS NULL AND stream NOT IN (SELECT stream FROM stream_settings) ORDER BY position`),
      // Deleted and inserted again rather than updated: SQLite merges the pages a delete leaves
      // nearly empty (and the freed ones go to later appends), but not those an update shrinks.
      uncompacted: this.db.prepare<[number, string, string, string, string]>(
        'DELETE FROM events WHERE position = ? AND block IS NULL AND id = ? AND type = ? AND data = ? AND metadata = ?',
      ),
      compacted: this.db.prepare<[number, string, number, string, number]>(
        "INSERT INTO events (position, stream, revision, id, type, data, metadata, block) VALUES (?, ?, ?, '', ?, '', '', ?)",
      ),
    };
  }

  /** Serialised before it returns: the caller's events are not kept through the commit's wait. */
  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event log is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    let request: SerializedAppend;
    try {
      request = serializeAppend(stream, events, expected);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.appendSerialized(request);
  }

  private async appendSerialized(request: SerializedAppend): Promise<AppendResult> {
    const outcome = await this.appender.append(request);
    if (outcome.ok) return { revision: outcome.revision, position: outcome.position };
    if (outcome.kind === 'wrong_revision')
      throw new WrongExpectedRevisionError(outcome.stream, outcome.expected, outcome.actual);
    if (outcome.kind === 'unknown') throw new AppendOutcomeUnknownError(outcome.message);
    if (outcome.kind === 'unavailable') throw new LogUnavailableError(outcome.message);
    throw new Error(outcome.message);
  }

  /** Each item is an append of its own in the writer's next group commit: the check of the
   *  stream's last event and the insert run in that commit's transaction. Like `append`, it keeps
   *  only the events' streams and ids through the wait. */
  appendOnce(items: readonly OnceEvent[], withinMs: number): Promise<OnceOutcome[]> {
    if (this.closed) return Promise.reject(new Error('event log is closed'));
    let requests: SerializedAppend[];
    try {
      requests = items.map((item) => ({
        ...serializeAppend(item.stream, [item.event], 'any'),
        expected: { onceWithinMs: withinMs },
      }));
    } catch (error) {
      return Promise.reject(error);
    }
    const sent = requests.map((request) => this.appender.append(request));
    return this.onceOutcomes(
      sent,
      items.map((item) => ({ stream: item.stream, id: item.event.id })),
    );
  }

  private async onceOutcomes(
    sent: ReadonlyArray<Promise<AppendOutcome>>,
    items: ReadonlyArray<{ stream: string; id: string }>,
  ): Promise<OnceOutcome[]> {
    const outcomes = await Promise.all(sent);
    return outcomes.map((outcome, i): OnceOutcome => {
      if (!outcome.ok) {
        if (outcome.kind === 'unknown') throw new AppendOutcomeUnknownError(outcome.message);
        if (outcome.kind === 'unavailable') throw new LogUnavailableError(outcome.message);
        throw new Error(
          outcome.kind === 'error' ? outcome.message : `appendOnce to ${items[i]!.stream} met a revision conflict`,
        );
      }
      return outcome.replay
        ? {
            replay: true,
            id: outcome.replay.id,
            position: outcome.replay.position,
            metadata: JSON.parse(outcome.replay.metadata) as EventMetadata,
          }
        : { replay: false, id: items[i]!.id, position: outcome.position };
    });
  }

  health(): LogHealth {
    const state = this.appender instanceof ThreadAppender ? this.appender.state : { running: true as const };
    return state.running ? { ok: true } : { ok: false, since: state.since, reason: state.reason };
  }

  /** The writer thread, when appends commit on one (fault-injection tests terminate it). */
  get writerThread(): Worker | null {
    return this.appender instanceof ThreadAppender ? this.appender.thread : null;
  }

  /** Called after every commit made through this handle (wires in-process wake-ups across threads). */
  onAppend(listener: () => void): () => void {
    this.appended.on('commit', listener);
    return () => this.appended.off('commit', listener);
  }

  /** Wakes live subscriptions now: another handle on the same file has committed. */
  notifyAppended(): void {
    this.appended.emit('wake');
  }

  async readStream(
    stream: string,
    options: { fromRevision?: number; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    const keep = this.stmts.maxCount.get(stream)?.max_count;
    let from = options.fromRevision ?? 0;
    if (keep !== undefined) {
      const head = this.stmts.head.get(stream)?.revision ?? null;
      if (head !== null) from = Math.max(from, head - keep + 1);
    }
    return this.read(() => this.stmts.readStream.all(stream, from, options.maxCount ?? -1));
  }

  async readAll(after: string | null, maxCount: number): Promise<RecordedEvent[]> {
    return this.readAllSync(after, maxCount);
  }

  private readAllSync(after: string | null, maxCount: number): RecordedEvent[] {
    return this.read(() => this.stmts.readAll.all(after === null ? 0 : Number(after), maxCount));
  }

  /** Rows as records, their payloads taken from their blocks where compressed. A block is read
   *  after its rows, so a redaction in between may have replaced it: the read is then done again
   *  in one transaction, which sees rows and blocks as of one moment. */
  private read(rows: () => Row[]): RecordedEvent[] {
    return (
      this.recordsOf(rows()) ??
      this.db.transaction(() => {
        const records = this.recordsOf(rows());
        if (!records) throw new Error('log.db: an event refers to a block that does not exist');
        return records;
      })()
    );
  }

  private recordsOf(rows: Row[]): RecordedEvent[] | null {
    const out: RecordedEvent[] = new Array(rows.length);
    // Rows in position order come a block's worth at a time: one cache look-up per run of them.
    let blockId = -1;
    let block: DecodedBlock | undefined;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (r.block === null) {
        out[i] = new StoredRecord(r, r);
        continue;
      }
      if (r.block !== blockId) {
        blockId = r.block;
        block = this.blocks.get(r.block, this.loadBlock);
      }
      const payload = block?.get(r.position);
      if (!payload) return null;
      out[i] = new StoredRecord(r, payload);
    }
    return out;
  }

  async readPositions(positions: readonly string[]): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    // SQLite's default limit on bound parameters is far above this; pages keep the statements few.
    for (let i = 0; i < positions.length; i += 500) {
      const page = positions.slice(i, i + 500).map(Number);
      out.push(...this.read(() => this.statementFor(page.length).all(...page)));
    }
    return out;
  }

  private readonly byPositions = new Map<number, Database.Statement<number[], Row>>();
  private statementFor(count: number): Database.Statement<number[], Row> {
    let stmt = this.byPositions.get(count);
    if (!stmt) {
      stmt = this.db.prepare<number[], Row>(
        `SELECT * FROM events WHERE position IN (${Array(count).fill('?').join(', ')}) ORDER BY position`,
      );
      this.byPositions.set(count, stmt);
    }
    return stmt;
  }

  async headPosition(): Promise<string | null> {
    const p = this.stmts.lastPosition.get()?.position ?? null;
    return p === null ? null : String(p);
  }

  async setStreamMaxCount(stream: string, maxCount: number): Promise<void> {
    this.stmts.setMaxCount.run(stream, maxCount);
  }

  /** Each transaction holds the write lock for a hundred rows (a few ms), and the next waits
   *  (restAfterWrite): the writer thread's group commits get in between. They are not
   *  fsynced one by one (synchronous=NORMAL on this connection for the while): the writer's next
   *  commit syncs the WAL they are in, and one lost to a crash is redone by the next run (retention
   *  and erasure are repeatable). */
  async redact(redactions: readonly Redaction[]): Promise<number> {
    let replaced = 0;
    const run = this.db.transaction((page: readonly Redaction[]) => {
      const compressed = new Map<number, Redaction[]>();
      for (const r of page) {
        const at = this.stmts.blockOf.get(Number(r.position));
        if (at === undefined) continue;
        if (at.block === null)
          replaced += this.stmts.redact.run(
            r.type,
            JSON.stringify(r.data),
            JSON.stringify(r.metadata),
            Number(r.position),
          ).changes;
        else if (compressed.has(at.block)) compressed.get(at.block)!.push(r);
        else compressed.set(at.block, [r]);
      }
      for (const [block, rs] of compressed) replaced += this.rewriteBlock(block, rs);
    });
    this.db.pragma('synchronous = NORMAL');
    try {
      for (let i = 0; i < redactions.length; i += REDACT_PAGE) {
        const started = performance.now();
        run.immediate(redactions.slice(i, i + REDACT_PAGE));
        if (i + REDACT_PAGE < redactions.length) await restAfterWrite(started);
      }
    } finally {
      this.db.pragma('synchronous = FULL');
    }
    return replaced;
  }

  /** A redaction of compressed records writes their block again, under a new id: the old
   *  payloads leave the file with the old block (an erasure must not leave them in it), and no
   *  reader's cached copy of a block is ever out of date. Records whose rows are gone are
   *  dropped from the new block. */
  private rewriteBlock(block: number, redactions: readonly Redaction[]): number {
    const body = this.stmts.blockBody.get(block)?.body;
    if (!body) throw new Error(`log.db: block ${block} does not exist`);
    const records = new Map(
      decompressBlock(body)
        .records()
        .map((record) => [record.position, record]),
    );
    for (const r of redactions) {
      const record = records.get(Number(r.position));
      if (!record) throw new Error(`log.db: event ${r.position} is missing from its block ${block}`);
      record.type = r.type;
      record.data = JSON.stringify(r.data);
      record.metadata = JSON.stringify(r.metadata);
    }
    const kept = [...records.values()].filter((record) => this.stmts.blockOf.get(record.position)?.block === block);
    this.stmts.deleteBlock.run(block);
    if (kept.length === 0) return redactions.length;
    const id = Number(this.stmts.insertBlock.run(compressBlockSync(kept)).lastInsertRowid);
    for (const record of kept) this.stmts.moveToBlock.run(id, record.type, record.position);
    return redactions.length;
  }

  /** Compresses the records behind the log's recent tail into blocks, a window of positions at
   *  a time (see CompactionOptions); resumes where the last run stopped. Deflating runs on
   *  libuv's pool; each block is written in a short transaction of its own, checked against the
   *  rows as they are then, so appends and redactions go on between them. */
  async compact(): Promise<CompactionResult> {
    const { keepRecent, window, blockRecords, familyOf } = this.compaction;
    const result: CompactionResult = { records: 0, blocks: 0, bytesIn: 0, bytesOut: 0 };
    const limit = (this.stmts.lastPosition.get()?.position ?? 0) - keepRecent;
    let through = this.stmts.compactedThrough.get()?.through ?? 0;
    const apply = this.db.transaction((block: InlineRow[], body: Buffer) => {
      const id = Number(this.stmts.insertBlock.run(body).lastInsertRowid);
      for (const r of block) {
        if (this.stmts.uncompacted.run(r.position, r.id, r.type, r.data, r.metadata).changes !== 1)
          throw new ChangedMeanwhile();
        this.stmts.compacted.run(r.position, r.stream, r.revision, r.type, id);
      }
    });
    while (!this.closed && through < limit) {
      const end = Math.min(limit, through + window);
      const families = new Map<string, InlineRow[][]>();
      // Read a slice at a time: the window's rows at once would hold the event loop for tens of ms.
      for (let from = through; from < end; from += READ_SLICE) {
        if (from > through) await new Promise((resolve) => setImmediate(resolve));
        if (this.closed) return result;
        for (const row of this.stmts.compactable.all(from, Math.min(end, from + READ_SLICE))) {
          if (!compressible(row)) continue;
          const family = familyOf(row.stream);
          let chunks = families.get(family);
          if (!chunks) families.set(family, (chunks = []));
          const last = chunks[chunks.length - 1];
          if (last && last.length < blockRecords) last.push(row);
          else chunks.push([row]);
        }
      }
      // One block at a time: deflated on libuv's pool, then written in a short transaction of its
      // own, and rested after (restAfterWrite).
      for (const block of [...families.values()].flat()) {
        const body = await compressBlock(block);
        if (this.closed) return result;
        const started = performance.now();
        try {
          apply.immediate(block, body);
        } catch (error) {
          // Done again on the next run, from the rows as they are then.
          if (error instanceof ChangedMeanwhile) return result;
          throw error;
        }
        result.blocks += 1;
        result.records += block.length;
        for (const r of block) result.bytesIn += r.id.length + r.data.length + r.metadata.length;
        result.bytesOut += body.length;
        await restAfterWrite(started);
      }
      if (this.closed) return result;
      this.stmts.setCompactedThrough.run(end);
      through = end;
    }
    return result;
  }

  /** Deletes events beyond each stream's maxCount (reads already hide them). */
  async trim(): Promise<number> {
    let deleted = 0;
    this.db
      .transaction(() => {
        for (const { stream, max_count } of this.stmts.trimmable.all()) {
          const head = this.stmts.head.get(stream)?.revision ?? null;
          if (head !== null) deleted += this.stmts.trim.run(stream, head - max_count).changes;
        }
      })
      .immediate();
    return deleted;
  }

  subscribeAll(after: string | null): Subscription {
    let position = after;
    let closed = false;
    let wake: (() => void) | null = null;
    const onWake = () => wake?.();
    this.appended.on('wake', onWake);
    const waitForAppend = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wake = null;
          resolve();
        }, this.pollIntervalMs);
        wake = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
      });
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        while (!closed && !self.closed) {
          const batch = self.readAllSync(position, self.batchSize);
          if (batch.length > 0) {
            position = batch[batch.length - 1]!.position;
            yield batch;
          } else {
            await waitForAppend();
          }
        }
      },
      async close() {
        closed = true;
        self.appended.off('wake', onWake);
        wake?.();
      },
    };
  }

  /** Commits what is queued, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.appender.close();
    this.closed = true;
    this.appended.emit('wake');
    this.db.close();
  }
}
