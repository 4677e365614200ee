import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { comparePositions, type RecordedEvent } from '../../log/event-log.ts';
import {
  LeaseLostError,
  holderProcess,
  type Lease,
  type Leases,
  type ProjectionStore,
  type StoreFaults,
} from './port.ts';

/** Read models are disposable (rebuilt from the log), so synchronous=NORMAL: a power loss may
 *  drop the last commits, and the projector replays them from the checkpoint committed with them. */
export const openViewsDatabase = (file: string): Database.Database => {
  const db = new Database(file);
  // First, so that even switching a fresh file to WAL waits for another process opening it.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  createStoreTables(db);
  return db;
};

/** A new file that a rebuild fills in bulk, which nobody else opens until it is complete and
 *  published: a crash leaves a file the next rebuild deletes, so it needs no journal and no sync.
 *  One big page cache: the load writes each page once instead of evicting and reading it back. */
export const openBulkViewsDatabase = (file: string): Database.Database => {
  const db = new Database(file);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('temp_store = MEMORY');
  db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
  createStoreTables(db);
  return db;
};

const BULK_CACHE_KIB = 256 * 1024;

/** Makes a bulk-filled file an ordinary one: WAL, as every process opens it. */
export const finishBulkViewsDatabase = (db: Database.Database): void => {
  db.pragma('locking_mode = NORMAL');
  db.pragma('journal_mode = WAL');
  db.close();
};

const createStoreTables = (db: Database.Database): void => {
  db.transaction(() => {
    db.exec(
      'CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL);\n' +
        'CREATE TABLE IF NOT EXISTS leases (projection TEXT PRIMARY KEY, holder TEXT NOT NULL, ' +
        'expires_at INTEGER NOT NULL, token INTEGER NOT NULL DEFAULT 0);\n' +
        'CREATE TABLE IF NOT EXISTS read_model_versions (projection TEXT PRIMARY KEY, version INTEGER NOT NULL);',
    );
    // Files made before leases had fencing tokens.
    const columns = db.prepare<[], { name: string }>('PRAGMA table_info(leases)').all();
    if (!columns.some((c) => c.name === 'token'))
      db.exec('ALTER TABLE leases ADD COLUMN token INTEGER NOT NULL DEFAULT 0');
  }).immediate();
};

/** Whether `holder` names a process of this machine that no longer runs. (A reused pid counts as
 *  alive: the lease then simply expires.) */
const holderIsGone = (holder: string): boolean => {
  const owner = holderProcess(holder);
  if (!owner || owner.host !== hostname() || owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
};

/** Leases as rows: taken when free or expired, renewed by their holder, in one statement. The
 *  file is local, so every holder runs on this machine: a lease whose holder process is gone
 *  (killed, crashed) is taken over at once rather than after its expiry. A released lease keeps
 *  its row (holder '' and its token), so tokens only grow. */
export class SqliteLeases implements Leases {
  private readonly take;
  private readonly takeFrom;
  private readonly current;
  private readonly drop;
  private readonly dropAll;
  constructor(db: Database.Database) {
    this.take = db.prepare<{ name: string; holder: string; expires: number; now: number }, { token: number }>(
      `INSERT INTO leases (projection, holder, expires_at, token) VALUES (@name, @holder, @expires, 1)
      ON CONFLICT (projection) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,
        token = CASE WHEN leases.holder = excluded.holder THEN leases.token ELSE leases.token + 1 END
      WHERE leases.holder = excluded.holder OR leases.expires_at < @now
      RETURNING token`,
    );
    this.takeFrom = db.prepare<{ name: string; holder: string; expires: number; gone: string }, { token: number }>(
      'UPDATE leases SET holder = @holder, expires_at = @expires, token = token + 1 ' +
        'WHERE projection = @name AND holder = @gone RETURNING token',
    );
    this.current = db.prepare<[string], { holder: string; expires_at: number }>(
      "SELECT holder, expires_at FROM leases WHERE projection = ? AND holder != ''",
    );
    this.drop = db.prepare("UPDATE leases SET holder = '', expires_at = 0 WHERE projection = ? AND holder = ?");
    this.dropAll = db.prepare("UPDATE leases SET holder = '', expires_at = 0 WHERE holder = ?");
  }
  async acquire(name: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const now = Date.now();
    const taken = this.take.get({ name, holder, expires: now + ttlMs, now });
    if (taken) return { holder, token: taken.token };
    const gone = this.current.get(name)?.holder;
    if (gone === undefined || !holderIsGone(gone)) return null;
    const takenFrom = this.takeFrom.get({ name, holder, expires: now + ttlMs, gone });
    return takenFrom ? { holder, token: takenFrom.token } : null;
  }
  async release(name: string, holder: string): Promise<void> {
    this.drop.run(name, holder);
  }
  async releaseAll(holder: string): Promise<void> {
    this.dropAll.run(holder);
  }
  async holderOf(name: string): Promise<{ holder: string; expiresAt: number } | null> {
    const row = this.current.get(name);
    return row ? { holder: row.holder, expiresAt: row.expires_at } : null;
  }
}

export interface SqliteSchema {
  /** Bumped whenever `create` changes: a read model built by another version is dropped and
   *  rebuilt from the log, instead of being migrated. */
  version: number;
  /** Idempotent DDL: tables, and the indexes the writer reads by. */
  create: string;
  /** Idempotent DDL: indexes only queries read. A bulk build creates them once its rows are in
   *  (one sort each, instead of a B-tree insert per row). */
  queryIndexes?: string;
  /** Tables dropped by reset. */
  tables: readonly string[];
}

/** One read model's SQLite adapter: its tables, the writer its projection fills, its queries. */
export interface SqliteReadModel<W, Q> {
  readonly schema: SqliteSchema;
  writer(db: Database.Database): W;
  queries(db: Database.Database): Q;
}

/** A writer that gathers a batch in memory (to write each row once per batch rather than once
 *  per event): the store flushes it inside the batch's transaction, and discards what it gathered
 *  when the transaction fails, so a retried batch is not counted twice. */
export interface BatchedWriter {
  flush(): void;
  discard(): void;
}

const isBatched = (writer: unknown): writer is BatchedWriter =>
  typeof (writer as Partial<BatchedWriter>).flush === 'function' &&
  typeof (writer as Partial<BatchedWriter>).discard === 'function';

/** One projection's read model in SQLite: its rows and its checkpoint change in one transaction.
 *  Every write transaction is IMMEDIATE: a deferred one that reads first and then writes cannot
 *  wait for another process's writer in WAL mode (SQLITE_BUSY without the busy timeout), and
 *  several workers share this file. The lease is checked inside that transaction, so a holder
 *  that lost it writes nothing at all. */
export class SqliteProjectionStore<W> implements ProjectionStore<W> {
  private readonly getCheckpoint;
  private readonly setCheckpoint;
  private readonly deleteCheckpoint;
  private readonly leaseOf;
  private readonly builtVersion;
  private readonly setVersion;
  private readonly schema: SqliteSchema;
  private readonly makeWriter: (db: Database.Database) => W;
  private writerNow: W | null = null;

  private readonly faults: StoreFaults;
  private readonly ddl: string;

  /** `deferQueryIndexes`: a bulk build's store, whose query indexes wait for
   *  `queryIndexStatements()`. */
  constructor(
    private readonly db: Database.Database,
    readonly name: string,
    model: Pick<SqliteReadModel<W, unknown>, 'schema' | 'writer'>,
    { faults = {}, deferQueryIndexes = false }: { faults?: StoreFaults; deferQueryIndexes?: boolean } = {},
  ) {
    this.faults = faults;
    this.schema = model.schema;
    this.ddl = deferQueryIndexes ? model.schema.create : model.schema.create + (model.schema.queryIndexes ?? '');
    this.makeWriter = model.writer;
    this.getCheckpoint = db.prepare<[string], { position: string }>(
      'SELECT position FROM checkpoints WHERE projection = ?',
    );
    this.setCheckpoint = db.prepare(
      'INSERT INTO checkpoints (projection, position) VALUES (?, ?) ' +
        'ON CONFLICT (projection) DO UPDATE SET position = excluded.position',
    );
    this.deleteCheckpoint = db.prepare('DELETE FROM checkpoints WHERE projection = ?');
    this.leaseOf = db.prepare<[string], { holder: string; token: number }>(
      'SELECT holder, token FROM leases WHERE projection = ?',
    );
    this.builtVersion = db.prepare<[string], { version: number }>(
      'SELECT version FROM read_model_versions WHERE projection = ?',
    );
    this.setVersion = db.prepare(
      'INSERT INTO read_model_versions (projection, version) VALUES (?, ?) ' +
        'ON CONFLICT (projection) DO UPDATE SET version = excluded.version',
    );
    // What this version needs and is missing is made by whoever opens it first; a read model of
    // another version is left alone until its lease is held (migrate).
    this.db
      .transaction(() => {
        if (!this.current()) return;
        this.db.exec(this.ddl);
        this.setVersion.run(this.name, this.schema.version);
      })
      .immediate();
  }

  /** The query indexes' statements one by one (each may take seconds over a large table: a
   *  caller can let its event loop turn between them). */
  queryIndexStatements(): string[] {
    return (this.schema.queryIndexes ?? '')
      .split(';')
      .map((statement) => statement.trim())
      .filter((statement) => statement.length > 0);
  }

  private current(): boolean {
    const built = this.builtVersion.get(this.name);
    return built === undefined || built.version === this.schema.version;
  }

  /** Made on first use: its statements need this version's tables. */
  private get writer(): W {
    this.writerNow ??= this.makeWriter(this.db);
    return this.writerNow;
  }

  private checkLease(lease: Lease | undefined): void {
    if (lease === undefined) return;
    const row = this.leaseOf.get(this.name);
    if (row?.holder !== lease.holder || row.token !== lease.token) throw new LeaseLostError(this.name, lease.holder);
  }

  private dropAndCreate(): void {
    for (const table of this.schema.tables) this.db.exec(`DROP TABLE IF EXISTS ${table}`);
    this.db.exec(this.ddl);
    this.deleteCheckpoint.run(this.name);
  }

  async schemaCurrent(): Promise<boolean> {
    return this.current();
  }

  /** Drops the tables (and the checkpoint, so the projector replays the log) when another version
   *  built them, and creates this version's. */
  async migrate(lease: Lease): Promise<void> {
    this.db
      .transaction(() => {
        this.checkLease(lease);
        if (this.current()) this.db.exec(this.ddl);
        else this.dropAndCreate();
        this.setVersion.run(this.name, this.schema.version);
      })
      .immediate();
  }

  async checkpoint(): Promise<string | null> {
    return this.getCheckpoint.get(this.name)?.position ?? null;
  }

  async commit(
    events: readonly RecordedEvent[],
    apply: (event: RecordedEvent, writer: W) => void,
    lease?: Lease,
  ): Promise<void> {
    const last = events[events.length - 1];
    if (!last) return;
    const writer = this.writer;
    const batched = isBatched(writer) ? writer : null;
    await this.faults.beforeWrites?.(this.name);
    try {
      this.db
        .transaction(() => {
          this.checkLease(lease);
          // Events at or before the checkpoint were applied already: a replay changes nothing.
          const done = this.getCheckpoint.get(this.name)?.position ?? null;
          for (const e of events) if (comparePositions(e.position, done) > 0) apply(e, writer);
          batched?.flush();
          if (comparePositions(last.position, done) > 0) this.setCheckpoint.run(this.name, last.position);
        })
        .immediate();
    } catch (error) {
      batched?.discard();
      throw error;
    }
  }

  async reset(lease?: Lease): Promise<void> {
    this.db
      .transaction(() => {
        this.checkLease(lease);
        this.dropAndCreate();
        this.setVersion.run(this.name, this.schema.version);
      })
      .immediate();
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

/** A WHERE clause built condition by condition, with its parameters in order. */
export class Where {
  private readonly conditions: string[] = [];
  readonly params: unknown[] = [];
  /** Set once a condition can match no row (a caller who may see no project). */
  matchesNothing = false;

  add(condition: string, ...params: unknown[]): this {
    this.conditions.push(condition);
    this.params.push(...params);
    return this;
  }

  /** `condition` with `value` as its parameter, when a value is given. */
  addIf(value: unknown, condition: string): this {
    return value === undefined ? this : this.add(condition, value);
  }

  /** Rows of the projects a query may read, from projectsInScope (null: any). With `keys`, the
   *  column holds a project's integer key and `keys` is the table (key, project_id) that names
   *  them: the ids are turned into keys by a subquery, which the planner runs once before it
   *  enters the column's index, and a project with no key matches nothing. */
  inProjects(projects: readonly string[] | null, column = 'project_id', keys?: string): this {
    if (projects === null) return this;
    if (projects.length === 0) this.matchesNothing = true;
    const one = projects.length === 1;
    const op = one ? '=' : 'IN';
    const ids = one ? '?' : `(${projects.map(() => '?').join(', ')})`;
    return this.add(
      `${column} ${op} ${keys === undefined ? ids : `(SELECT key FROM ${keys} WHERE project_id ${op} ${ids})`}`,
      ...projects,
    );
  }

  toString(): string {
    return this.conditions.length > 0 ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}
