import type Database from 'better-sqlite3';
import type { SinkTarget } from '../../domain/sink.ts';
import type { SinkChanges, SinkRow, SinkView, SinksQueries, SinksWriter } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** Sinks (the view as JSON plus the target, with its secrets, for forwarding only). */
const sinksSchema: SqliteSchema = {
  version: 1,
  tables: ['sinks'],
  create: `
CREATE TABLE IF NOT EXISTS sinks (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_position TEXT NOT NULL,
  view TEXT NOT NULL,
  target TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sinks_project ON sinks (project_id, created_at);
`,
};

class SqliteSinksWriter implements SinksWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare('INSERT OR IGNORE INTO sinks VALUES (?, ?, ?, ?, ?, ?)'),
      view: db.prepare<[string], { view: string }>('SELECT view FROM sinks WHERE id = ?'),
      setView: db.prepare('UPDATE sinks SET view = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM sinks WHERE id = ?'),
    };
  }

  private change(id: string, patch: Partial<SinkView>): void {
    const row = this.stmts.view.get(id);
    if (row) this.stmts.setView.run(JSON.stringify({ ...(JSON.parse(row.view) as SinkView), ...patch }), id);
  }

  created(view: SinkView, target: SinkTarget, position: string): void {
    this.stmts.insert.run(
      view.id,
      view.project_id,
      view.created_at,
      position,
      JSON.stringify(view),
      JSON.stringify(target),
    );
  }
  updated(id: string, changes: SinkChanges, updatedAt: string): void {
    this.change(id, { ...changes, updated_at: updatedAt });
  }
  degraded(id: string, reason: string, at: string): void {
    this.change(id, { degraded: true, degraded_reason: reason, degraded_since: at });
  }
  recovered(id: string): void {
    this.change(id, { degraded: false, degraded_reason: null, degraded_since: null });
  }
  deleted(id: string): void {
    this.stmts.delete.run(id);
  }
}

class SqliteSinksQueries implements SinksQueries {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      list: db.prepare<[string], { view: string }>(
        'SELECT view FROM sinks WHERE project_id = ? ORDER BY created_at, id',
      ),
      get: db.prepare<[string, string], { view: string }>('SELECT view FROM sinks WHERE project_id = ? AND id = ?'),
      all: db.prepare<[], { view: string; target: string; created_position: string }>(
        'SELECT view, target, created_position FROM sinks ORDER BY created_at, id',
      ),
    };
  }
  async list(projectId: string): Promise<SinkView[]> {
    return this.stmts.list.all(projectId).map((r) => JSON.parse(r.view) as SinkView);
  }
  async get(projectId: string, id: string): Promise<SinkView | null> {
    const row = this.stmts.get.get(projectId, id);
    return row ? (JSON.parse(row.view) as SinkView) : null;
  }
  async all(): Promise<SinkRow[]> {
    return this.stmts.all.all().map((r) => ({
      view: JSON.parse(r.view) as SinkView,
      target: JSON.parse(r.target) as SinkTarget,
      created_position: r.created_position,
    }));
  }
}

export const sqliteSinks: SqliteReadModel<SinksWriter, SinksQueries> = {
  schema: sinksSchema,
  writer: (db) => new SqliteSinksWriter(db),
  queries: (db) => new SqliteSinksQueries(db),
};
