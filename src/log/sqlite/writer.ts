import Database from 'better-sqlite3';
import { decompressBlock } from './blocks.ts';
import type { CommitStats, ExpectedRevision, NewEvent } from '../event-log.ts';

/** The write side of the embedded log: schema, pragmas, and one group commit. Runs on whichever
 *  thread owns the writer (see appender.ts). */

export const LOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  stream   TEXT NOT NULL,
  revision INTEGER NOT NULL,
  id       TEXT NOT NULL,
  type     TEXT NOT NULL,
  data     TEXT NOT NULL,
  metadata TEXT NOT NULL,
  block    INTEGER,
  UNIQUE (stream, revision)
);
CREATE TABLE IF NOT EXISTS stream_settings (
  stream    TEXT PRIMARY KEY,
  max_count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (
  id   INTEGER PRIMARY KEY AUTOINCREMENT,
  body BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS compaction (
  one     INTEGER PRIMARY KEY CHECK (one = 1),
  through INTEGER NOT NULL
);`;

/** A row whose payload is in a block (blocks.ts) has '' for id, data and metadata and the block's
 *  id in `block`. Logs made before blocks existed get the column on first open. */
const addBlockColumn = (db: Database.Database): void => {
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('events')").all();
  if (columns.some((c) => c.name === 'block')) return;
  try {
    db.exec('ALTER TABLE events ADD COLUMN block INTEGER');
  } catch (error) {
    // Another connection (the writer thread, another process) added it first.
    if (!/duplicate column/i.test((error as Error).message)) throw error;
  }
};

/** WAL with synchronous=FULL: a commit is fsynced before any of its appends is acknowledged. */
export const openLogDatabase = (file: string): Database.Database => {
  const db = new Database(file);
  // First, so that even switching a fresh file to WAL waits for another process opening it.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(LOG_SCHEMA);
  addBlockColumn(db);
  return db;
};

/** An append with its payloads already serialised, so it crosses threads as plain strings.
 *  `{ onceWithinMs }`: an appendOnce (one event; see EventLog.appendOnce). */
export interface SerializedAppend {
  stream: string;
  expected: ExpectedRevision | { onceWithinMs: number };
  events: Array<{ id: string; type: string; data: string; metadata: string }>;
}

/** The earlier event an appendOnce found, as stored. */
export interface StoredHead {
  id: string;
  position: string;
  metadata: string;
}

export type AppendOutcome =
  | { ok: true; revision: number; position: string; replay?: StoredHead }
  | { ok: false; kind: 'wrong_revision'; stream: string; expected: ExpectedRevision; actual: number | 'no_stream' }
  | { ok: false; kind: 'error'; message: string }
  /** Sent to a writer that stopped before answering: it may have committed, or not. */
  | { ok: false; kind: 'unknown'; message: string }
  /** Never sent: no writer was running. Nothing was stored. */
  | { ok: false; kind: 'unavailable'; message: string };

/** The events as JSON text; a metadata object shared by consecutive events (an ingested batch's)
 *  is written once. */
export const serializeAppend = (
  stream: string,
  events: readonly NewEvent[],
  expected: ExpectedRevision,
): SerializedAppend => {
  let metadata: NewEvent['metadata'] | null = null;
  let metadataText = '';
  return {
    stream,
    expected,
    events: events.map((e) => {
      if (e.metadata !== metadata) {
        metadata = e.metadata;
        metadataText = JSON.stringify(e.metadata);
      }
      return { id: e.id, type: e.type, data: JSON.stringify(e.data), metadata: metadataText };
    }),
  };
};

/* Appends cross to the writer thread as one string per batch: structured-cloning thousands of
 * small objects costs the HTTP thread more than the rest of an ingest. Fields are separated by
 * U+0000 and appends by U+0001; JSON.stringify escapes every control character, and stream
 * names, types and ids are made by this code, so neither separator occurs inside a field. */
const FIELD = '\u0000';
const RECORD = '\u0001';

const encodeExpected = (expected: SerializedAppend['expected']): string =>
  typeof expected === 'object' ? `once:${expected.onceWithinMs}` : String(expected);

const decodeExpected = (expected: string): SerializedAppend['expected'] => {
  if (/^\d+$/.test(expected)) return Number(expected);
  if (expected.startsWith('once:')) return { onceWithinMs: Number(expected.slice(5)) };
  return expected as 'any' | 'no_stream';
};

export const encodeAppends = (appends: readonly SerializedAppend[]): string =>
  appends
    .map((a) =>
      [a.stream, encodeExpected(a.expected), ...a.events.flatMap((e) => [e.id, e.type, e.data, e.metadata])].join(
        FIELD,
      ),
    )
    .join(RECORD);

export const decodeAppends = (payload: string): SerializedAppend[] =>
  payload.split(RECORD).map((record) => {
    const [stream = '', expected = 'any', ...fields] = record.split(FIELD);
    const events: SerializedAppend['events'] = [];
    for (let i = 0; i + 3 < fields.length; i += 4) {
      events.push({ id: fields[i]!, type: fields[i + 1]!, data: fields[i + 2]!, metadata: fields[i + 3]! });
    }
    return { stream, expected: decodeExpected(expected), events };
  });

const recordedAt = (metadata: string): number =>
  Date.parse((JSON.parse(metadata) as { recorded_at?: string }).recorded_at ?? '');

class WrongRevision {
  constructor(readonly actual: number | 'no_stream') {}
}

export class SqliteLogWriter {
  private readonly head;
  private readonly headEvent;
  private readonly insert;
  private readonly appendOne;
  private readonly blockBody;

  constructor(private readonly db: Database.Database) {
    this.head = db.prepare<[string], { revision: number | null }>(
      'SELECT MAX(revision) AS revision FROM events WHERE stream = ?',
    );
    this.headEvent = db.prepare<
      [string],
      { revision: number; id: string; position: number; metadata: string; block: number | null }
    >('SELECT revision, id, position, metadata, block FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1');
    this.blockBody = db.prepare<[number], { body: Buffer }>('SELECT body FROM blocks WHERE id = ?');
    this.insert = db.prepare(
      'INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    );
    // A nested transaction is a savepoint, so that a failed append of several events rolls back
    // alone; an append of one event needs none (its one insert succeeds or fails whole), and the
    // savepoint would be a fifth of its cost.
    const savepointed = db.transaction((a: SerializedAppend) => this.appendUnguarded(a));
    this.appendOne = (a: SerializedAppend) => (a.events.length === 1 ? this.appendUnguarded(a) : savepointed(a));
  }

  private appendUnguarded(a: SerializedAppend): { revision: number; position: string; replay?: StoredHead } {
    let current: number | null;
    if (typeof a.expected === 'object') {
      // Once per stream within the window: checked and written in this one transaction, which
      // the writer (one per file, IMMEDIATE across processes) runs alone.
      const event = a.events[0];
      if (a.events.length !== 1 || !event) throw new Error('an appendOnce stores exactly one event');
      const head = this.withPayload(this.headEvent.get(a.stream));
      if (head && recordedAt(event.metadata) - recordedAt(head.metadata) < a.expected.onceWithinMs) {
        return {
          revision: head.revision,
          position: String(head.position),
          replay: { id: head.id, position: String(head.position), metadata: head.metadata },
        };
      }
      current = head?.revision ?? null;
    } else {
      current = this.head.get(a.stream)?.revision ?? null;
      const expectedOk =
        a.expected === 'any' || (a.expected === 'no_stream' ? current === null : a.expected === current);
      if (!expectedOk) throw new WrongRevision(current ?? 'no_stream');
    }
    let revision = current ?? -1;
    let position = 0;
    for (const e of a.events) {
      revision += 1;
      position = Number(this.insert.run(a.stream, revision, e.id, e.type, e.data, e.metadata).lastInsertRowid);
    }
    return { revision, position: String(position) };
  }

  /** An idempotency key's event is read long after it was compressed (retries come within a
   *  day): its id and metadata are in its block. */
  private withPayload<R extends { position: number; id: string; metadata: string; block: number | null }>(
    row: R | undefined,
  ): R | undefined {
    if (!row || row.block === null) return row;
    const body = this.blockBody.get(row.block)?.body;
    const record = body && decompressBlock(body).get(row.position);
    if (!record) throw new Error(`log.db: event ${row.position} is missing from its block ${row.block}`);
    return { ...row, id: record.id, metadata: record.metadata };
  }

  /** Commits a batch of appends in one transaction; one outcome per append, in order. IMMEDIATE:
   *  the append reads the stream head before writing, and in WAL mode a deferred transaction that
   *  must upgrade after another process's commit fails at once instead of waiting its turn. */
  commit(batch: readonly SerializedAppend[]): AppendOutcome[] {
    return this.commitTimed(batch).outcomes;
  }

  /** `commit`, with what it stored and how long it took (for the log's metrics). */
  commitTimed(batch: readonly SerializedAppend[]): { outcomes: AppendOutcome[]; stats: CommitStats } {
    const started = performance.now();
    const outcomes = this.commitBatch(batch);
    const events = batch.reduce((n, a, i) => n + (outcomes[i]!.ok ? a.events.length : 0), 0);
    return { outcomes, stats: { appends: batch.length, events, seconds: (performance.now() - started) / 1000 } };
  }

  private commitBatch(batch: readonly SerializedAppend[]): AppendOutcome[] {
    try {
      return this.db
        .transaction(() =>
          batch.map((a): AppendOutcome => {
            try {
              return { ok: true, ...this.appendOne(a) };
            } catch (error) {
              if (error instanceof WrongRevision && typeof a.expected !== 'object') {
                return {
                  ok: false,
                  kind: 'wrong_revision',
                  stream: a.stream,
                  expected: a.expected,
                  actual: error.actual,
                };
              }
              return { ok: false, kind: 'error', message: (error as Error).message };
            }
          }),
        )
        .immediate();
    } catch (error) {
      const message = `commit failed: ${(error as Error).message}`;
      return batch.map(() => ({ ok: false, kind: 'error', message }));
    }
  }
}
