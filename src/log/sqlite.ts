import Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import type { EventMetadata } from '../domain/events.ts';
import {
  WrongExpectedRevisionError,
  type AppendResult, type EventLog, type ExpectedRevision, type NewEvent, type RecordedEvent, type Subscription,
} from './event-log.ts';

/** The embedded event log: one append-only table in a SQLite file.
 *
 *  Durability: WAL with synchronous=FULL, so a transaction is fsynced before its appends resolve
 *  (an acknowledged event survives power loss, not only a process crash). The fsync is paid once
 *  per group commit: appends arriving in the same turn of the event loop share one transaction;
 *  each runs in its own savepoint so one failed expectation does not fail its neighbours.
 *  Positions are an AUTOINCREMENT key, so a trimmed position is never reused. */

interface Row {
  position: number; stream: string; revision: number; id: string; type: string; data: string; metadata: string;
}

interface PendingAppend {
  stream: string;
  events: readonly NewEvent[];
  expected: ExpectedRevision;
  resolve: (r: AppendResult) => void;
  reject: (e: unknown) => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream   TEXT NOT NULL,
  revision INTEGER NOT NULL,
  id       TEXT NOT NULL UNIQUE,
  type     TEXT NOT NULL,
  data     TEXT NOT NULL,
  metadata TEXT NOT NULL,
  UNIQUE (stream, revision)
);
CREATE TABLE IF NOT EXISTS stream_settings (
  stream    TEXT PRIMARY KEY,
  max_count INTEGER NOT NULL
);`;

const toRecorded = (r: Row): RecordedEvent => ({
  position: String(r.position),
  stream: r.stream,
  revision: r.revision,
  id: r.id,
  type: r.type,
  data: JSON.parse(r.data) as unknown,
  metadata: JSON.parse(r.metadata) as EventMetadata,
});

export interface SqliteEventLogOptions {
  /** How often a live subscription looks for appends made by other processes. */
  pollIntervalMs?: number;
  /** Largest batch a subscription delivers. */
  batchSize?: number;
}

export class SqliteEventLog implements EventLog {
  private readonly db: Database.Database;
  private readonly appended = new EventEmitter();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly stmts;

  constructor(file: string, options: SqliteEventLogOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.batchSize = options.batchSize ?? 1000;
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    this.appended.setMaxListeners(0);
    this.stmts = {
      head: this.db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
      insert: this.db.prepare('INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)'),
      readStream: this.db.prepare<[string, number, number], Row>(
        'SELECT * FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?'),
      readAll: this.db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      lastPosition: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
      maxCount: this.db.prepare<[string], { max_count: number }>('SELECT max_count FROM stream_settings WHERE stream = ?'),
      setMaxCount: this.db.prepare('INSERT INTO stream_settings (stream, max_count) VALUES (?, ?) ON CONFLICT (stream) DO UPDATE SET max_count = excluded.max_count'),
      trim: this.db.prepare('DELETE FROM events WHERE stream = ? AND revision <= ?'),
      trimmable: this.db.prepare<[], { stream: string; max_count: number }>('SELECT stream, max_count FROM stream_settings'),
    };
  }

  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event log is closed'));
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return new Promise((resolve, reject) => {
      this.queue.push({ stream, events, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits every queued append in one transaction, then settles their promises. */
  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const outcomes: Array<{ ok: true; result: AppendResult } | { ok: false; error: unknown }> = [];
    const appendOne = this.db.transaction((p: PendingAppend): AppendResult => {
      const current = this.stmts.head.get(p.stream)?.revision ?? null;
      const actual = current === null ? 'no_stream' : current;
      if (p.expected === 'no_stream' ? current !== null : p.expected !== 'any' && p.expected !== current) {
        throw new WrongExpectedRevisionError(p.stream, p.expected, actual);
      }
      let revision = current ?? -1;
      let position = 0;
      for (const e of p.events) {
        revision += 1;
        const info = this.stmts.insert.run(p.stream, revision, e.id, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
        position = Number(info.lastInsertRowid);
      }
      return { revision, position: String(position) };
    });
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try {
            outcomes.push({ ok: true, result: appendOne(p) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.result);
      else p.reject(o.error);
    });
    this.appended.emit('append');
  }

  async readStream(stream: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const keep = this.stmts.maxCount.get(stream)?.max_count;
    let from = options.fromRevision ?? 0;
    if (keep !== undefined) {
      const head = this.stmts.head.get(stream)?.revision ?? null;
      if (head !== null) from = Math.max(from, head - keep + 1);
    }
    return this.stmts.readStream.all(stream, from, options.maxCount ?? -1).map(toRecorded);
  }

  async readAll(after: string | null, maxCount: number): Promise<RecordedEvent[]> {
    return this.readAllSync(after, maxCount);
  }

  private readAllSync(after: string | null, maxCount: number): RecordedEvent[] {
    return this.stmts.readAll.all(after === null ? 0 : Number(after), maxCount).map(toRecorded);
  }

  async headPosition(): Promise<string | null> {
    const p = this.stmts.lastPosition.get()?.position ?? null;
    return p === null ? null : String(p);
  }

  async setStreamMaxCount(stream: string, maxCount: number): Promise<void> {
    this.stmts.setMaxCount.run(stream, maxCount);
  }

  /** Deletes events beyond each stream's maxCount (reads already hide them). */
  trim(): number {
    let deleted = 0;
    this.db.transaction(() => {
      for (const { stream, max_count } of this.stmts.trimmable.all()) {
        const head = this.stmts.head.get(stream)?.revision ?? null;
        if (head !== null) deleted += this.stmts.trim.run(stream, head - max_count).changes;
      }
    })();
    return deleted;
  }

  subscribeAll(after: string | null): Subscription {
    let position = after;
    let closed = false;
    let wake: (() => void) | null = null;
    const onAppend = () => wake?.();
    this.appended.on('append', onAppend);
    const waitForAppend = () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => { wake = null; resolve(); }, this.pollIntervalMs);
        wake = () => { clearTimeout(timer); wake = null; resolve(); };
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
        self.appended.off('append', onAppend);
        wake?.();
      },
    };
  }

  /** Commits what is queued, then closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.appended.emit('append');
    this.db.close();
  }
}
