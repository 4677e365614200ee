import type Database from 'better-sqlite3';
import type { ChannelEvents, ChannelTarget } from '../../domain/channel.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { ChannelView, ChannelsQueries, ChannelsWriter } from './port.ts';
import { Where, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Channels (the view as JSON plus the target, with its secret, for delivery only). */
const channelsSchema: SqliteSchema = {
  version: 1,
  tables: ['channels'],
  create: `
CREATE TABLE IF NOT EXISTS channels (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  created_at TEXT NOT NULL,
  view TEXT NOT NULL,
  target TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS channels_project ON channels (project_id, created_at);
`,
};

class SqliteChannelsWriter implements ChannelsWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare('INSERT OR IGNORE INTO channels VALUES (?, ?, ?, ?, ?)'),
      view: db.prepare<[string], { view: string }>('SELECT view FROM channels WHERE id = ?'),
      setView: db.prepare('UPDATE channels SET view = ? WHERE id = ?'),
      delete: db.prepare('DELETE FROM channels WHERE id = ?'),
    };
  }

  private change(id: string, patch: Partial<ChannelView>): void {
    const row = this.stmts.view.get(id);
    if (row) this.stmts.setView.run(JSON.stringify({ ...(JSON.parse(row.view) as ChannelView), ...patch }), id);
  }

  created(view: ChannelView, target: ChannelTarget): void {
    this.stmts.insert.run(view.id, view.project_id, view.created_at, JSON.stringify(view), JSON.stringify(target));
  }

  updated(id: string, changes: { active?: boolean; events?: ChannelEvents }, updatedAt: string): void {
    const patch: Partial<ChannelView> = { ...changes, updated_at: updatedAt };
    if (changes.active === true) patch.deactivated_reason = null;
    this.change(id, patch);
  }

  deactivated(id: string, reason: string, at: string): void {
    this.change(id, { active: false, deactivated_reason: reason, updated_at: at });
  }

  deleted(id: string): void {
    this.stmts.delete.run(id);
  }
}

class SqliteChannelsQueries implements ChannelsQueries {
  private readonly stmts;
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], { view: string }>('SELECT view FROM channels WHERE id = ?'),
      project: db.prepare<[string], { view: string; target: string }>('SELECT view, target FROM channels WHERE project_id = ? ORDER BY created_at, id'),
    };
  }

  async list(scope: Scope, projectId?: string): Promise<ChannelView[]> {
    const where = new Where().inProjects(projectsInScope(scope, projectId));
    if (where.matchesNothing) return [];
    return (this.db.prepare(`SELECT view FROM channels ${where} ORDER BY created_at, id`).all(...where.params) as Array<{ view: string }>)
      .map((r) => JSON.parse(r.view) as ChannelView);
  }

  async get(id: string, scope: Scope): Promise<ChannelView | null> {
    const row = this.stmts.get.get(id);
    const view = row ? (JSON.parse(row.view) as ChannelView) : null;
    return view && inScope(scope, view.project_id) ? view : null;
  }

  async targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<Array<{ id: string; target: ChannelTarget }>> {
    return this.stmts.project.all(projectId)
      .map((r) => ({ view: JSON.parse(r.view) as ChannelView, target: JSON.parse(r.target) as ChannelTarget }))
      .filter(({ view }) => view.active && view.events.includes(kind))
      .map(({ view, target }) => ({ id: view.id, target }));
  }
}

export const sqliteChannels: SqliteReadModel<ChannelsWriter, ChannelsQueries> = {
  schema: channelsSchema,
  writer: (db) => new SqliteChannelsWriter(db),
  queries: (db) => new SqliteChannelsQueries(db),
};
