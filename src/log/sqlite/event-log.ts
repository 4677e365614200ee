import type Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { EventMetadata } from '../../domain/events.ts';
import type { Worker } from 'node:worker_threads';
import { InlineAppender, ThreadAppender, type Appender, type WriterState } from './appender.ts';
import { openLogDatabase, serializeAppend, type AppendOutcome, type SerializedAppend } from './writer.ts';
import { BlockCache, type DecodedBlock } from './blocks.ts';
import { compactLog, compactionSettings, type CompactionOptions } from './compaction.ts';
import { redactRecords } from './redaction.ts';
import { prepareLogStatements, type LogStatements, type Row } from './statements.ts';
import { StoredRecord } from './stored-record.ts';
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
 *  writer.ts, group commit in appender.ts, compressed blocks in blocks.ts). Reads and
 *  subscriptions use this thread's connection; WAL lets them run beside the writer. */

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
  private readonly stmts: LogStatements;
  private readonly blocks = new BlockCache();
  private readonly loadBlock = (id: number): Buffer | undefined => this.stmts.blockBody.get(id)?.body;
  private readonly compaction: Required<CompactionOptions>;

  constructor(file: string, options: SqliteEventLogOptions = {}) {
    this.compaction = compactionSettings(options.compaction);
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
    this.stmts = prepareLogStatements(this.db);
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

  async readLast(stream: string): Promise<RecordedEvent | null> {
    const head = this.stmts.head.get(stream)?.revision ?? null;
    if (head === null) return null;
    return this.read(() => this.stmts.readStream.all(stream, head, 1))[0] ?? null;
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

  /** In pages, with the writer let in between (redaction.ts). */
  redact(redactions: readonly Redaction[]): Promise<number> {
    return redactRecords(this.db, this.stmts, redactions);
  }

  /** In the background, a block at a time (compaction.ts). */
  compact(): Promise<CompactionResult> {
    return compactLog(this.db, this.stmts, this.compaction, () => this.closed);
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

  subscribeAll(after: string | null, maxBatch = this.batchSize): Subscription {
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
          const batch = self.readAllSync(position, maxBatch);
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
