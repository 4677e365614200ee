import type Database from 'better-sqlite3';
import type { ChannelTarget } from '../../domain/channel.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { ChannelChanges, ChannelTargetRow, ChannelView, ChannelsQueries, ChannelsWriter } from './port.ts';
import { Where, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Channels (the view as JSON plus the target, with its secrets, for delivery only). */
const channelsSchema: SqliteSchema = {
  version: 2,
  tables: ['channels'],
  create: `
CREATE TABLE IF NOT EXISTS channels (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  all_projects INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  view TEXT NOT NULL,
  target TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS channels_project ON channels (project_id, created_at);
CREATE INDEX IF NOT EXISTS channels_all_projects ON channels (all_projects) WHERE all_projects = 1;
`,
};

class SqliteChannelsWriter implements ChannelsWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare('INSERT OR IGNORE INTO channels VALUES (?, ?, ?, ?, ?, ?)'),
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
    this.stmts.insert.run(
      view.id,
      view.project_id,
      view.project_scope === 'all' ? 1 : 0,
      view.created_at,
      JSON.stringify(view),
      JSON.stringify(target),
    );
  }

  updated(id: string, changes: ChannelChanges, updatedAt: string): void {
    const patch: Partial<ChannelView> = { ...changes, updated_at: updatedAt };
    if (changes.active === true) patch.deactivated_reason = null;
    this.change(id, patch);
  }

  deactivated(id: string, reason: string, at: string): void {
    this.change(id, { active: false, deactivated_reason: reason, updated_at: at });
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

/** A channel for all projects is an admin's: only admins see it (and so change it). */
const visibleIn = (scope: Scope, view: ChannelView): boolean =>
  inScope(scope, view.project_id) && (scope.all || view.project_scope === 'project');

const rowOf = (r: { view: string; target: string }): ChannelTargetRow => {
  const view = JSON.parse(r.view) as ChannelView;
  return { id: view.id, view, target: JSON.parse(r.target) as ChannelTarget };
};

class SqliteChannelsQueries implements ChannelsQueries {
  private readonly stmts;
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], { view: string }>('SELECT view FROM channels WHERE id = ?'),
      target: db.prepare<[string], { view: string; target: string }>('SELECT view, target FROM channels WHERE id = ?'),
      project: db.prepare<[string], { view: string; target: string }>(
        'SELECT view, target FROM channels WHERE project_id = ? OR all_projects = 1 ORDER BY created_at, id',
      ),
    };
  }

  async list(scope: Scope, projectId?: string): Promise<ChannelView[]> {
    const where = new Where().inProjects(projectsInScope(scope, projectId));
    if (!scope.all) where.add('all_projects = 0');
    if (where.matchesNothing) return [];
    return (
      this.db.prepare(`SELECT view FROM channels ${where} ORDER BY created_at, id`).all(...where.params) as Array<{
        view: string;
      }>
    ).map((r) => JSON.parse(r.view) as ChannelView);
  }

  async get(id: string, scope: Scope): Promise<ChannelView | null> {
    const row = this.stmts.get.get(id);
    const view = row ? (JSON.parse(row.view) as ChannelView) : null;
    return view && visibleIn(scope, view) ? view : null;
  }

  async targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<ChannelTargetRow[]> {
    return this.stmts.project
      .all(projectId)
      .map(rowOf)
      .filter(({ view }) => view.active && view.events.includes(kind));
  }

  async target(id: string): Promise<ChannelTargetRow | null> {
    const row = this.stmts.target.get(id);
    return row ? rowOf(row) : null;
  }
}

export const sqliteChannels: SqliteReadModel<ChannelsWriter, ChannelsQueries> = {
  schema: channelsSchema,
  writer: (db) => new SqliteChannelsWriter(db),
  queries: (db) => new SqliteChannelsQueries(db),
};
