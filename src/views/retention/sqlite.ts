import type Database from 'better-sqlite3';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../domain/page.ts';
import type { ErasureView, PendingErasure, ProjectRetention, RetentionQueries, RetentionWriter } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** One row per project that set retention or had an identifier erased, and one per erasure
 *  request. */
const retentionSchema: SqliteSchema = {
  version: 2,
  tables: ['retention', 'erasures'],
  create:
    `CREATE TABLE IF NOT EXISTS retention (
  project_id TEXT PRIMARY KEY, retention_days INTEGER, updated_at TEXT NOT NULL,
  last_applied_at TEXT, last_cutoff TEXT, removed_total INTEGER NOT NULL, erased_total INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS erasures (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, identifier_sha256 TEXT NOT NULL, status TEXT NOT NULL,
  requested_at TEXT NOT NULL, through_position TEXT NOT NULL, request_position TEXT NOT NULL, ` +
    `erased INTEGER, erased_at TEXT
);
CREATE INDEX IF NOT EXISTS erasures_project ON erasures (project_id, requested_at, id);
CREATE INDEX IF NOT EXISTS erasures_pending ON erasures (requested_at, id) WHERE status = 'pending';`,
};

/** The request_position column is the job's, not the API's. */
const ERASURE_COLUMNS = 'id, project_id, identifier_sha256, status, requested_at, through_position, erased, erased_at';

class SqliteRetentionWriter implements RetentionWriter {
  private readonly set;
  private readonly applied;
  private readonly erased;
  private readonly requested;
  private readonly done;

  constructor(db: Database.Database) {
    this.set = db.prepare(
      `INSERT INTO retention VALUES (?, ?, ?, NULL, NULL, 0, 0)
      ON CONFLICT (project_id) DO UPDATE SET retention_days = excluded.retention_days, ` +
        'updated_at = excluded.updated_at',
    );
    this.applied = db.prepare(
      `INSERT INTO retention VALUES (@project_id, NULL, '', @at, @cutoff, @removed, 0)
      ON CONFLICT (project_id) DO UPDATE SET last_applied_at = excluded.last_applied_at, ` +
        `last_cutoff = excluded.last_cutoff,
        removed_total = removed_total + excluded.removed_total`,
    );
    this.erased = db.prepare(`INSERT INTO retention VALUES (?, NULL, '', NULL, NULL, 0, ?)
      ON CONFLICT (project_id) DO UPDATE SET erased_total = erased_total + excluded.erased_total`);
    this.requested = db.prepare(`INSERT OR IGNORE INTO erasures VALUES (?, ?, ?, 'pending', ?, ?, ?, NULL, NULL)`);
    this.done = db.prepare(`UPDATE erasures SET status = 'done', erased = ?, erased_at = ? WHERE id = ?`);
  }

  retentionSet(projectId: string, retentionDays: number | null, at: string): void {
    this.set.run(projectId, retentionDays, at);
  }

  retentionApplied(projectId: string, cutoff: string, removed: number, at: string): void {
    this.applied.run({ project_id: projectId, at, cutoff, removed });
  }

  erasureRequested(r: Omit<ErasureView, 'status' | 'erased' | 'erased_at'>, position: string): void {
    this.requested.run(r.id, r.project_id, r.identifier_sha256, r.requested_at, r.through_position, position);
  }

  identifierErased(
    projectId: string,
    erased: number,
    _position: string,
    done?: { erasure_id: string; erased_at: string },
  ): void {
    this.erased.run(projectId, erased);
    if (done) this.done.run(erased, done.erased_at, done.erasure_id);
  }
}

class SqliteRetentionQueries implements RetentionQueries {
  private readonly one;
  private readonly all;
  private readonly erasureOne;
  private readonly erasurePage;
  private readonly erasureCount;
  private readonly pending;

  constructor(db: Database.Database) {
    this.one = db.prepare<[string], ProjectRetention>('SELECT * FROM retention WHERE project_id = ?');
    this.all = db.prepare<[], { project_id: string; retention_days: number }>(
      'SELECT project_id, retention_days FROM retention WHERE retention_days IS NOT NULL ORDER BY project_id',
    );
    this.erasureOne = db.prepare<[string, string], ErasureView>(
      `SELECT ${ERASURE_COLUMNS} FROM erasures WHERE id = ? AND project_id = ?`,
    );
    this.erasurePage = db.prepare<[string, number, number], ErasureView>(
      `SELECT ${ERASURE_COLUMNS} FROM erasures WHERE project_id = ? ` +
        'ORDER BY requested_at DESC, id DESC LIMIT ? OFFSET ?',
    );
    this.erasureCount = db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM erasures WHERE project_id = ?');
    this.pending = db.prepare<[], PendingErasure>(
      'SELECT id AS erasure_id, project_id, request_position FROM erasures ' +
        "WHERE status = 'pending' ORDER BY requested_at, id",
    );
  }

  async retentionOf(projectId: string): Promise<ProjectRetention | null> {
    return this.one.get(projectId) ?? null;
  }

  async limited(): Promise<Array<{ project_id: string; retention_days: number }>> {
    return this.all.all();
  }

  async erasure(projectId: string, erasureId: string): Promise<ErasureView | null> {
    return this.erasureOne.get(erasureId, projectId) ?? null;
  }

  async erasures(projectId: string, page: PageRequest): Promise<Page<ErasureView>> {
    return pageOf(
      this.erasurePage.all(projectId, page.limit, offsetOf(page)),
      page,
      this.erasureCount.get(projectId)!.n,
    );
  }

  async pendingErasures(): Promise<PendingErasure[]> {
    return this.pending.all();
  }
}

export const sqliteRetention: SqliteReadModel<RetentionWriter, RetentionQueries> = {
  schema: retentionSchema,
  writer: (db) => new SqliteRetentionWriter(db),
  queries: (db) => new SqliteRetentionQueries(db),
};
