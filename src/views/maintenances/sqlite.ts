import type Database from 'better-sqlite3';
import { coversMonitor, type MaintenanceSettings } from '../../domain/maintenance.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { MaintenancesQueries, MaintenancesWriter, MaintenanceView } from './port.ts';
import { Where, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Maintenance windows: the view as JSON, with the columns queries select by. `is_open` mirrors
 *  the view's `open`, so the few open windows of a project are found by its index. */
const maintenancesSchema: SqliteSchema = {
  version: 1,
  tables: ['maintenances'],
  create: `
CREATE TABLE IF NOT EXISTS maintenances (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  is_open INTEGER NOT NULL,
  view TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS maintenances_project ON maintenances (project_id, created_at);
CREATE INDEX IF NOT EXISTS maintenances_open ON maintenances (project_id) WHERE is_open = 1;
`,
};

const parse = (row: { view: string }): MaintenanceView => JSON.parse(row.view) as MaintenanceView;

class SqliteMaintenancesWriter implements MaintenancesWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare('INSERT OR IGNORE INTO maintenances VALUES (?, ?, ?, ?, ?)'),
      view: db.prepare<[string], { view: string }>('SELECT view FROM maintenances WHERE id = ?'),
      setView: db.prepare('UPDATE maintenances SET view = ?, is_open = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM maintenances WHERE id = ?'),
    };
  }

  private change(id: string, patch: Partial<MaintenanceView>): void {
    const row = this.stmts.view.get(id);
    if (!row) return;
    const view = { ...parse(row), ...patch };
    this.stmts.setView.run(JSON.stringify(view), view.open === null ? 0 : 1, id);
  }

  scheduled(view: MaintenanceView): void {
    this.stmts.insert.run(view.id, view.project_id, view.created_at, view.open === null ? 0 : 1, JSON.stringify(view));
  }

  updated(id: string, changes: Partial<MaintenanceSettings>, updatedAt: string): void {
    this.change(id, { ...changes, updated_at: updatedAt });
  }

  deleted(id: string): void {
    this.stmts.delete.run(id);
  }

  started(id: string, open: { start: string; end: string }): void {
    this.change(id, { open });
  }

  ended(id: string): void {
    this.change(id, { open: null });
  }
}

class SqliteMaintenancesQueries implements MaintenancesQueries {
  private readonly stmts;
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], { view: string }>('SELECT view FROM maintenances WHERE id = ?'),
      all: db.prepare<[], { view: string }>('SELECT view FROM maintenances ORDER BY created_at, id'),
      project: db.prepare<[string], { view: string }>(
        'SELECT view FROM maintenances WHERE project_id = ? ORDER BY created_at, id',
      ),
      open: db.prepare<[string], { view: string }>(
        'SELECT view FROM maintenances WHERE project_id = ? AND is_open = 1 ORDER BY created_at, id',
      ),
    };
  }

  async list(scope: Scope, projectId?: string): Promise<MaintenanceView[]> {
    const where = new Where().inProjects(projectsInScope(scope, projectId));
    if (where.matchesNothing) return [];
    return (
      this.db.prepare(`SELECT view FROM maintenances ${where} ORDER BY created_at, id`).all(...where.params) as Array<{
        view: string;
      }>
    ).map(parse);
  }

  async get(id: string, scope: Scope): Promise<MaintenanceView | null> {
    const row = this.stmts.get.get(id);
    const view = row ? parse(row) : null;
    return view && inScope(scope, view.project_id) ? view : null;
  }

  async all(): Promise<MaintenanceView[]> {
    return this.stmts.all.all().map(parse);
  }

  async ofProject(projectId: string): Promise<MaintenanceView[]> {
    return this.stmts.project.all(projectId).map(parse);
  }

  async openFor(projectId: string, monitorId: string): Promise<MaintenanceView[]> {
    return this.stmts.open
      .all(projectId)
      .map(parse)
      .filter((view) => coversMonitor(view.monitor_ids, monitorId));
  }
}

export const sqliteMaintenances: SqliteReadModel<MaintenancesWriter, MaintenancesQueries> = {
  schema: maintenancesSchema,
  writer: (db) => new SqliteMaintenancesWriter(db),
  queries: (db) => new SqliteMaintenancesQueries(db),
};
