import Database from 'better-sqlite3';
import type { RecordedEvent } from '../../log/event-log.ts';
import type { ProjectionStore } from '../ports.ts';

/** Read models are disposable (rebuilt from the log), so synchronous=NORMAL: a power loss may
 *  drop the last commits, and the projector replays them from the checkpoint committed with them. */
export const openViewsDatabase = (file: string): Database.Database => {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL)');
  return db;
};

export interface SqliteSchema {
  /** Idempotent DDL: tables and indexes. */
  create: string;
  /** Tables dropped by reset. */
  tables: readonly string[];
}

/** One projection's read model in SQLite: its rows and its checkpoint change in one transaction. */
export class SqliteProjectionStore<W> implements ProjectionStore<W> {
  private readonly getCheckpoint;
  private readonly setCheckpoint;
  private readonly deleteCheckpoint;

  constructor(
    private readonly db: Database.Database,
    readonly name: string,
    private readonly schema: SqliteSchema,
    private readonly writer: W,
  ) {
    this.getCheckpoint = db.prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE projection = ?');
    this.setCheckpoint = db.prepare(
      'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ON CONFLICT (projection) DO UPDATE SET position = excluded.position');
    this.deleteCheckpoint = db.prepare('DELETE FROM checkpoints WHERE projection = ?');
  }

  async checkpoint(): Promise<string | null> {
    return this.getCheckpoint.get(this.name)?.position ?? null;
  }

  async commit(events: readonly RecordedEvent[], apply: (event: RecordedEvent, writer: W) => void): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    this.db.transaction(() => {
      for (const e of events) apply(e, this.writer);
      this.setCheckpoint.run(this.name, last.position);
    })();
  }

  async reset(): Promise<void> {
    this.db.transaction(() => {
      for (const table of this.schema.tables) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
      this.db.exec(this.schema.create);
      this.deleteCheckpoint.run(this.name);
    })();
  }
}

/** Prepared statements cached by SQL text, for queries whose WHERE clause varies. */
export const statementCache = (db: Database.Database) => {
  const cache = new Map<string, Database.Statement>();
  return (sql: string): Database.Statement => {
    let stmt = cache.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
};
