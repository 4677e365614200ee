import type Database from 'better-sqlite3';
import { offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { DeliveriesQueries, DeliveriesWriter, DeliveryListQuery, DeliveryView } from './port.ts';
import { Where, statementCache, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** The delivery log: one row per delivery, its view (tries included) as JSON. (Not the table
 *  named `deliveries`: that was the notification reactor's record before this log.) */
const deliveryLogSchema: SqliteSchema = {
  version: 1,
  tables: ['delivery_log'],
  create: `
CREATE TABLE IF NOT EXISTS delivery_log (
  id TEXT PRIMARY KEY,
  channel_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  view TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS delivery_log_channel ON delivery_log (channel_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS delivery_log_event ON delivery_log (event_id);
`,
};

class SqliteDeliveriesWriter implements DeliveriesWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare('INSERT OR IGNORE INTO delivery_log VALUES (?, ?, ?, ?, ?, ?, ?)'),
      view: db.prepare<[string], { view: string }>('SELECT view FROM delivery_log WHERE id = ?'),
      set: db.prepare('UPDATE delivery_log SET status = ?, view = ? WHERE id = ?'),
    };
  }

  private change(id: string, patch: (view: DeliveryView) => DeliveryView): void {
    const row = this.stmts.view.get(id);
    if (!row) return;
    const view = patch(JSON.parse(row.view) as DeliveryView);
    this.stmts.set.run(view.status, JSON.stringify(view), id);
  }

  created(view: DeliveryView): void {
    this.stmts.insert.run(
      view.id,
      view.channel_id,
      view.event_id,
      view.project_id,
      view.status,
      view.created_at,
      JSON.stringify(view),
    );
  }

  attempted(id: string, attempt: DeliveryView['attempts'][number], status: DeliveryView['status']): void {
    this.change(id, (v) => ({
      ...v,
      status,
      attempts: [...v.attempts.filter((a) => a.attempt !== attempt.attempt), attempt].sort(
        (a, b) => a.attempt - b.attempt,
      ),
      updated_at: attempt.at,
    }));
  }

  statusChanged(id: string, status: DeliveryView['status'], reason: string | null, at: string): void {
    this.change(id, (v) => ({ ...v, status, reason, updated_at: at }));
  }
}

class SqliteDeliveriesQueries implements DeliveriesQueries {
  private readonly stmts;
  private readonly cached;
  constructor(db: Database.Database) {
    this.cached = statementCache(db);
    this.stmts = {
      get: db.prepare<[string], { view: string }>('SELECT view FROM delivery_log WHERE id = ?'),
      event: db.prepare<[string], { view: string }>(
        'SELECT view FROM delivery_log WHERE event_id = ? ORDER BY channel_id',
      ),
    };
  }

  async forChannel(channelId: string, query: DeliveryListQuery, scope: Scope): Promise<Page<DeliveryView>> {
    const where = new Where()
      .add('channel_id = ?', channelId)
      .inProjects(projectsInScope(scope))
      .addIf(query.status, 'status = ?');
    if (where.matchesNothing) return pageOf([], query, 0);
    const total = (this.cached(`SELECT COUNT(*) AS n FROM delivery_log ${where}`).get(...where.params) as { n: number })
      .n;
    const rows = this.cached(
      `SELECT view FROM delivery_log ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...where.params, query.limit, offsetOf(query)) as Array<{ view: string }>;
    return pageOf(
      rows.map((r) => JSON.parse(r.view) as DeliveryView),
      query,
      total,
    );
  }

  async forEvent(eventId: string, scope: Scope): Promise<DeliveryView[]> {
    return this.stmts.event
      .all(eventId)
      .map((r) => JSON.parse(r.view) as DeliveryView)
      .filter((d) => inScope(scope, d.project_id));
  }

  async get(id: string, scope: Scope): Promise<DeliveryView | null> {
    const row = this.stmts.get.get(id);
    const view = row ? (JSON.parse(row.view) as DeliveryView) : null;
    return view && inScope(scope, view.project_id) ? view : null;
  }
}

export const sqliteDeliveries: SqliteReadModel<DeliveriesWriter, DeliveriesQueries> = {
  schema: deliveryLogSchema,
  writer: (db) => new SqliteDeliveriesWriter(db),
  queries: (db) => new SqliteDeliveriesQueries(db),
};
