import type Database from 'better-sqlite3';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import { monitorIdsOf, type StatusPageChanges } from '../../domain/status-page.ts';
import type { StatusPageView, StatusPagesQueries, StatusPagesWriter } from './port.ts';
import { Where, type BatchedWriter, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Status pages (the view as JSON, with the columns lookups read), which monitors each shows, and
 *  each page's version in a table of its own: a failed check rewrites that small row, never a
 *  page's settings. A version is kept as its log position zero-padded to 20 digits (a u64 has
 *  at most 20), so that text order is the positions' order and it only ever moves forward. */
const statusPagesSchema: SqliteSchema = {
  version: 1,
  tables: ['status_pages', 'status_page_monitors', 'status_page_versions'],
  create: `
CREATE TABLE IF NOT EXISTS status_pages (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  slug TEXT NOT NULL,
  custom_domain TEXT,
  published INTEGER NOT NULL,
  auto_incidents INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  view TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS status_page_monitors (
  monitor_id TEXT NOT NULL,
  page_id TEXT NOT NULL,
  PRIMARY KEY (monitor_id, page_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS status_page_monitors_page ON status_page_monitors (page_id);
CREATE TABLE IF NOT EXISTS status_page_versions (
  page_id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  version TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS status_page_versions_project ON status_page_versions (project_id);
`,
  queryIndexes: `
CREATE INDEX IF NOT EXISTS status_pages_project ON status_pages (project_id, created_at);
CREATE INDEX IF NOT EXISTS status_pages_slug ON status_pages (slug);
CREATE INDEX IF NOT EXISTS status_pages_domain ON status_pages (custom_domain) WHERE custom_domain IS NOT NULL;
`,
};

const versionKey = (position: string): string => position.padStart(20, '0');
const positionOf = (key: string): string => key.replace(/^0+(?=\d)/, '');

const rowOf = (view: StatusPageView) => ({
  id: view.id,
  project_id: view.project_id,
  slug: view.slug,
  custom_domain: view.custom_domain,
  published: view.published ? 1 : 0,
  auto_incidents: view.auto_incidents ? 1 : 0,
  created_at: view.created_at,
  view: JSON.stringify(view),
});

/** Page rows are written as their events come; touches wait for the end of the batch, one write
 *  per project and monitor however many failed checks the batch holds. That is safe because a
 *  version only moves forward: a page created or changed later in the batch is already at or
 *  past the touch's position, and one deleted is gone. */
class SqliteStatusPagesWriter implements StatusPagesWriter, BatchedWriter {
  private readonly stmts;
  private readonly touches = new Map<string, { project: string; monitor: string | null; version: string }>();

  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        'INSERT OR IGNORE INTO status_pages VALUES ' +
          '(@id, @project_id, @slug, @custom_domain, @published, @auto_incidents, @created_at, @view)',
      ),
      view: db.prepare<[string], { view: string }>('SELECT view FROM status_pages WHERE id = ?'),
      update: db.prepare(
        'UPDATE status_pages SET slug = @slug, custom_domain = @custom_domain, published = @published, ' +
          'auto_incidents = @auto_incidents, view = @view WHERE id = @id',
      ),
      delete: db.prepare('DELETE FROM status_pages WHERE id = ?'),
      show: db.prepare('INSERT OR IGNORE INTO status_page_monitors VALUES (?, ?)'),
      unshowAll: db.prepare('DELETE FROM status_page_monitors WHERE page_id = ?'),
      version: db.prepare(
        'INSERT INTO status_page_versions VALUES (@page, @project, @version) ' +
          'ON CONFLICT (page_id) DO UPDATE SET version = excluded.version WHERE version < excluded.version',
      ),
      deleteVersion: db.prepare('DELETE FROM status_page_versions WHERE page_id = ?'),
      touchProject: db.prepare(
        'UPDATE status_page_versions SET version = @version WHERE project_id = @project AND version < @version',
      ),
      touchMonitor: db.prepare(
        'UPDATE status_page_versions SET version = @version WHERE page_id IN ' +
          '(SELECT page_id FROM status_page_monitors WHERE monitor_id = @monitor) ' +
          'AND project_id = @project AND version < @version',
      ),
    };
  }

  private show(view: StatusPageView): void {
    for (const monitor of monitorIdsOf(view.groups)) this.stmts.show.run(monitor, view.id);
  }

  created(view: StatusPageView, position: string): void {
    if (this.stmts.insert.run(rowOf(view)).changes === 0) return;
    this.show(view);
    this.stmts.version.run({ page: view.id, project: view.project_id, version: versionKey(position) });
  }

  updated(id: string, changes: StatusPageChanges, updatedAt: string, position: string): void {
    const row = this.stmts.view.get(id);
    if (!row) return;
    const view: StatusPageView = { ...(JSON.parse(row.view) as StatusPageView), ...changes, updated_at: updatedAt };
    this.stmts.update.run(rowOf(view));
    if (changes.groups !== undefined) {
      this.stmts.unshowAll.run(id);
      this.show(view);
    }
    this.stmts.version.run({ page: id, project: view.project_id, version: versionKey(position) });
  }

  deleted(id: string): void {
    this.stmts.delete.run(id);
    this.stmts.unshowAll.run(id);
    this.stmts.deleteVersion.run(id);
  }

  touched(projectId: string, monitorId: string | null, position: string): void {
    this.touches.set(`${projectId} ${monitorId ?? ''}`, {
      project: projectId,
      monitor: monitorId,
      version: versionKey(position),
    });
  }

  flush(): void {
    for (const { project, monitor, version } of this.touches.values()) {
      if (monitor === null) this.stmts.touchProject.run({ project, version });
      else this.stmts.touchMonitor.run({ project, monitor, version });
    }
    this.touches.clear();
  }

  discard(): void {
    this.touches.clear();
  }
}

const viewOf = (row: { view: string }): StatusPageView => JSON.parse(row.view) as StatusPageView;

class SqliteStatusPagesQueries implements StatusPagesQueries {
  private readonly stmts;
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], { view: string }>('SELECT view FROM status_pages WHERE id = ?'),
      slug: db.prepare<[string], { view: string }>(
        'SELECT view FROM status_pages WHERE slug = ? ORDER BY created_at, id LIMIT 1',
      ),
      domain: db.prepare<[string], { view: string }>(
        'SELECT view FROM status_pages WHERE custom_domain = ? ORDER BY created_at, id LIMIT 1',
      ),
      version: db.prepare<[string], { version: string }>('SELECT version FROM status_page_versions WHERE page_id = ?'),
      auto: db.prepare<[string], { view: string }>(
        'SELECT p.view FROM status_page_monitors m JOIN status_pages p ON p.id = m.page_id ' +
          'WHERE m.monitor_id = ? AND p.auto_incidents = 1 ORDER BY p.created_at, p.id',
      ),
      published: db.prepare<[string], { n: number }>(
        'SELECT COUNT(*) AS n FROM status_page_monitors m JOIN status_pages p ON p.id = m.page_id ' +
          'WHERE m.monitor_id = ? AND p.published = 1',
      ),
    };
  }

  async list(scope: Scope, projectId?: string): Promise<StatusPageView[]> {
    const where = new Where().inProjects(projectsInScope(scope, projectId));
    if (where.matchesNothing) return [];
    const rows = this.db
      .prepare(`SELECT view FROM status_pages ${where} ORDER BY created_at, id`)
      .all(...where.params) as Array<{ view: string }>;
    return rows.map(viewOf);
  }

  async get(id: string, scope: Scope): Promise<StatusPageView | null> {
    const row = this.stmts.get.get(id);
    const view = row ? viewOf(row) : null;
    return view && inScope(scope, view.project_id) ? view : null;
  }

  async bySlug(slug: string): Promise<StatusPageView | null> {
    const row = this.stmts.slug.get(slug);
    return row ? viewOf(row) : null;
  }

  async byDomain(host: string): Promise<StatusPageView | null> {
    const row = this.stmts.domain.get(host.toLowerCase());
    return row ? viewOf(row) : null;
  }

  async version(id: string): Promise<string | null> {
    const row = this.stmts.version.get(id);
    return row ? positionOf(row.version) : null;
  }

  async autoIncidentPages(monitorId: string): Promise<StatusPageView[]> {
    return this.stmts.auto.all(monitorId).map(viewOf);
  }

  async publishedShowing(monitorId: string): Promise<number> {
    return this.stmts.published.get(monitorId)!.n;
  }
}

export const sqliteStatusPages: SqliteReadModel<StatusPagesWriter, StatusPagesQueries> = {
  schema: statusPagesSchema,
  writer: (db) => new SqliteStatusPagesWriter(db),
  queries: (db) => new SqliteStatusPagesQueries(db),
};
