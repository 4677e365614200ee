import type Database from 'better-sqlite3';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../domain/page.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { IncidentUpdateView, IncidentView, IncidentsQueries, IncidentsWriter } from './port.ts';
import { Where, statementCache, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Incidents, the view (its updates included) as JSON, with the columns the lists read: an open
 *  incident is one with no `resolved_at`. */
const incidentsSchema: SqliteSchema = {
  version: 1,
  tables: ['incidents'],
  create: `
CREATE TABLE IF NOT EXISTS incidents (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  resolved_at TEXT,
  auto_monitor_id TEXT,
  view TEXT NOT NULL
);
`,
  // A project's list, newest first; its open ones and those resolved since a time (what a page
  // shows), by `resolved_at` (NULL while open); every project's list; the open automatic ones.
  queryIndexes: `
CREATE INDEX IF NOT EXISTS incidents_project ON incidents (project_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS incidents_shown ON incidents (project_id, resolved_at, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS incidents_newest ON incidents (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS incidents_open_auto ON incidents (auto_monitor_id)
  WHERE auto_monitor_id IS NOT NULL AND resolved_at IS NULL;
`,
};

const viewOf = (row: { view: string }): IncidentView => JSON.parse(row.view) as IncidentView;

class SqliteIncidentsWriter implements IncidentsWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        'INSERT OR IGNORE INTO incidents VALUES (@id, @project_id, @created_at, @resolved_at, @auto_monitor_id, @view)',
      ),
      view: db.prepare<[string], { view: string }>('SELECT view FROM incidents WHERE id = ?'),
      set: db.prepare('UPDATE incidents SET resolved_at = ?, view = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM incidents WHERE id = ?'),
    };
  }

  opened(view: IncidentView): void {
    this.stmts.insert.run({
      id: view.id,
      project_id: view.project_id,
      created_at: view.created_at,
      resolved_at: view.resolved_at,
      auto_monitor_id: view.auto?.monitor_id ?? null,
      view: JSON.stringify(view),
    });
  }

  updated(id: string, update: IncidentUpdateView): void {
    const row = this.stmts.view.get(id);
    if (!row) return;
    const view = viewOf(row);
    if (view.updates.some((u) => u.id === update.id)) return;
    const next: IncidentView = {
      ...view,
      status: update.status,
      impact: update.impact ?? view.impact,
      updated_at: update.at,
      resolved_at: update.status === 'resolved' ? update.at : null,
      updates: [...view.updates, update],
    };
    this.stmts.set.run(next.resolved_at, JSON.stringify(next), id);
  }

  deleted(id: string): void {
    this.stmts.delete.run(id);
  }
}

class SqliteIncidentsQueries implements IncidentsQueries {
  private readonly stmts;
  private readonly cached;
  constructor(db: Database.Database) {
    this.cached = statementCache(db);
    this.stmts = {
      get: db.prepare<[string], { view: string }>('SELECT view FROM incidents WHERE id = ?'),
      // Two ranges of incidents_shown, the open ones and those resolved since, rather than a walk
      // through every incident of the project that a page no longer shows.
      shown: db.prepare<[{ project: string; since: string; limit: number }], { view: string }>(
        'SELECT view, created_at, id FROM incidents WHERE project_id = @project AND resolved_at IS NULL UNION ALL ' +
          'SELECT view, created_at, id FROM incidents WHERE project_id = @project AND resolved_at >= @since ' +
          'ORDER BY created_at DESC, id DESC LIMIT @limit',
      ),
      openAuto: db.prepare<[string], { view: string }>(
        'SELECT view FROM incidents WHERE auto_monitor_id = ? AND resolved_at IS NULL ORDER BY created_at, id',
      ),
    };
  }

  async list(scope: Scope, request: PageRequest & { projectId?: string; open?: boolean }): Promise<Page<IncidentView>> {
    const where = new Where().inProjects(projectsInScope(scope, request.projectId));
    if (request.open === true) where.add('resolved_at IS NULL');
    if (where.matchesNothing) return pageOf([], request, 0);
    const total = (this.cached(`SELECT COUNT(*) AS n FROM incidents ${where}`).get(...where.params) as { n: number }).n;
    const rows = this.cached(
      `SELECT view FROM incidents ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...where.params, request.limit, offsetOf(request)) as Array<{ view: string }>;
    return pageOf(rows.map(viewOf), request, total);
  }

  async get(id: string, scope: Scope): Promise<IncidentView | null> {
    const row = this.stmts.get.get(id);
    const view = row ? viewOf(row) : null;
    return view && inScope(scope, view.project_id) ? view : null;
  }

  async shownSince(projectId: string, since: string, limit: number): Promise<IncidentView[]> {
    return this.stmts.shown.all({ project: projectId, since, limit }).map(viewOf);
  }

  async openAuto(monitorId: string): Promise<IncidentView[]> {
    return this.stmts.openAuto.all(monitorId).map(viewOf);
  }
}

export const sqliteIncidents: SqliteReadModel<IncidentsWriter, IncidentsQueries> = {
  schema: incidentsSchema,
  writer: (db) => new SqliteIncidentsWriter(db),
  queries: (db) => new SqliteIncidentsQueries(db),
};
