import Database from 'better-sqlite3';
import { createSchema } from './schema.ts';

const NOT_CONNECTED = 'SqliteJobRepository is not connected: call connect() first';

export class SqliteConnection {
  readonly ownsConnection: boolean;
  private db: Database.Database | undefined;
  private readonly statements = new Map<string, Database.Statement<unknown[], unknown>>();
  /** One transaction function per connection, running the body it is given: better-sqlite3 builds
   *  four wrapped functions per transaction() call, which cost more than an empty transaction,
   *  and Agenda writes here two or three times per job run. */
  private transaction: Database.Transaction<(body: () => unknown) => unknown> | undefined;

  constructor(private readonly source: string | Database.Database) {
    this.ownsConnection = typeof source === 'string';
  }

  /** Opens the file (when given a path and not open yet) and creates the schema; idempotent, so a
   *  caller can connect before handing the backend to Agenda and see a failure as a rejection here. */
  async connect(): Promise<void> {
    if (this.db === undefined) {
      if (typeof this.source === 'string') {
        const db = new Database(this.source);
        try {
          // Before switching to WAL, which itself needs the lock another process may hold.
          db.pragma('busy_timeout = 5000');
          db.pragma('journal_mode = WAL');
          // Under WAL a commit survives a process crash; only a power loss may drop the last ones.
          db.pragma('synchronous = NORMAL');
        } catch (error) {
          db.close();
          throw error;
        }
        this.db = db;
      } else {
        this.db = this.source;
      }
    }
    const db = this.db;
    this.transaction = db.transaction((body: () => unknown) => body());
    this.write(() => createSchema(db));
  }

  /** Closes the database only when it opened it; a connection handed in belongs to the caller. */
  async disconnect(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    this.transaction = undefined;
    this.statements.clear();
    if (db !== undefined && this.ownsConnection && db.open) db.close();
  }

  connection(): Database.Database {
    if (this.db === undefined) throw new Error(NOT_CONNECTED);
    return this.db;
  }

  /** Statements are prepared once per SQL text; the dynamic ones only vary with field paths and
   *  job names, never with values, so the cache stays small. */
  statement(sql: string): Database.Statement<unknown[], unknown> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.connection().prepare<unknown[], unknown>(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Every write runs in a BEGIN IMMEDIATE transaction: a deferred one would read, then fail to
   * upgrade to a writer (SQLITE_BUSY, which the busy timeout does not retry) when another connection
   * committed in between, and that is exactly what concurrent workers on one file do. With the write
   * lock taken first, "find one and lock it" and the unique upserts are atomic across processes.
   */
  write<T>(body: () => T): T {
    return this.transactionOf().immediate(body) as T;
  }

  read<T>(body: () => T): T {
    return this.transactionOf().deferred(body) as T;
  }

  private transactionOf(): Database.Transaction<(body: () => unknown) => unknown> {
    if (this.transaction === undefined) throw new Error(NOT_CONNECTED);
    return this.transaction;
  }
}
