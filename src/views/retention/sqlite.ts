import type Database from 'better-sqlite3';
import type { ProjectRetention, RetentionQueries, RetentionWriter } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** One row per project that set retention or had an identifier erased. */
const retentionSchema: SqliteSchema = {
  version: 1,
  tables: ['retention'],
  create: `CREATE TABLE IF NOT EXISTS retention (
  project_id TEXT PRIMARY KEY, retention_days INTEGER, updated_at TEXT NOT NULL,
  last_applied_at TEXT, last_cutoff TEXT, removed_total INTEGER NOT NULL, erased_total INTEGER NOT NULL
);`,
};

class SqliteRetentionWriter implements RetentionWriter {
  private readonly set;
  private readonly applied;
  private readonly erased;

  constructor(db: Database.Database) {
    this.set = db.prepare(`INSERT INTO retention VALUES (?, ?, ?, NULL, NULL, 0, 0)
      ON CONFLICT (project_id) DO UPDATE SET retention_days = excluded.retention_days, updated_at = excluded.updated_at`);
    this.applied = db.prepare(`INSERT INTO retention VALUES (@project_id, NULL, '', @at, @cutoff, @removed, 0)
      ON CONFLICT (project_id) DO UPDATE SET last_applied_at = excluded.last_applied_at, last_cutoff = excluded.last_cutoff,
        removed_total = removed_total + excluded.removed_total`);
    this.erased = db.prepare(`INSERT INTO retention VALUES (?, NULL, '', NULL, NULL, 0, ?)
      ON CONFLICT (project_id) DO UPDATE SET erased_total = erased_total + excluded.erased_total`);
  }

  retentionSet(projectId: string, retentionDays: number | null, at: string): void {
    this.set.run(projectId, retentionDays, at);
  }

  retentionApplied(projectId: string, cutoff: string, removed: number, at: string): void {
    this.applied.run({ project_id: projectId, at, cutoff, removed });
  }

  identifierErased(projectId: string, erased: number): void {
    this.erased.run(projectId, erased);
  }
}

class SqliteRetentionQueries implements RetentionQueries {
  private readonly one;
  private readonly all;

  constructor(db: Database.Database) {
    this.one = db.prepare<[string], ProjectRetention>('SELECT * FROM retention WHERE project_id = ?');
    this.all = db.prepare<[], { project_id: string; retention_days: number }>(
      'SELECT project_id, retention_days FROM retention WHERE retention_days IS NOT NULL ORDER BY project_id');
  }

  async retentionOf(projectId: string): Promise<ProjectRetention | null> {
    return this.one.get(projectId) ?? null;
  }

  async limited(): Promise<Array<{ project_id: string; retention_days: number }>> {
    return this.all.all();
  }
}

export const sqliteRetention: SqliteReadModel<RetentionWriter, RetentionQueries> = {
  schema: retentionSchema,
  writer: (db) => new SqliteRetentionWriter(db),
  queries: (db) => new SqliteRetentionQueries(db),
};
