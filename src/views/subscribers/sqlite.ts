import type Database from 'better-sqlite3';
import type { DeliveryStatus } from '../../domain/delivery.ts';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../domain/page.ts';
import type { SubscriberStatus } from '../../domain/subscriber.ts';
import type {
  LastDelivery,
  Recipient,
  SubscriberCounts,
  SubscriberView,
  SubscribersQueries,
  SubscribersWriter,
} from './port.ts';
import { Where, statementCache, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** One row per subscription: the view as JSON, with the columns lookups read. A removed one keeps
 *  its row with status `removed` (its view as it was), which no answer but `withEmail` reads. */
const subscribersSchema: SqliteSchema = {
  version: 1,
  tables: ['subscribers'],
  create: `
CREATE TABLE IF NOT EXISTS subscribers (
  id TEXT PRIMARY KEY,
  page_id TEXT NOT NULL,
  project_id TEXT NOT NULL,
  email TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  view TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS subscribers_page ON subscribers (page_id, status, created_at DESC, id DESC);
`,
  // A page's list (any status), newest first; a project's subscriptions of one address.
  queryIndexes: `
CREATE INDEX IF NOT EXISTS subscribers_page_newest ON subscribers (page_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS subscribers_email ON subscribers (project_id, email);
`,
};

const viewOf = (row: { view: string }): SubscriberView => JSON.parse(row.view) as SubscriberView;

class SqliteSubscribersWriter implements SubscribersWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        'INSERT INTO subscribers VALUES (@id, @page_id, @project_id, @email, @status, @created_at, @view) ' +
          'ON CONFLICT (id) DO UPDATE SET email = excluded.email, status = excluded.status, view = excluded.view',
      ),
      view: db.prepare<[string], { view: string; status: string }>('SELECT view, status FROM subscribers WHERE id = ?'),
      set: db.prepare('UPDATE subscribers SET status = ?, view = ? WHERE id = ?'),
      remove: db.prepare("UPDATE subscribers SET status = 'removed' WHERE id = ?"),
      removePage: db.prepare("UPDATE subscribers SET status = 'removed' WHERE page_id = ?"),
      erase: db.prepare('DELETE FROM subscribers WHERE project_id = ? AND email = ?'),
    };
  }

  private change(id: string, patch: (view: SubscriberView) => SubscriberView | null): void {
    const row = this.stmts.view.get(id);
    if (!row || row.status === 'removed') return;
    const view = patch(viewOf(row));
    if (view !== null) this.stmts.set.run(view.status, JSON.stringify(view), id);
  }

  requested(s: { id: string; page_id: string; project_id: string; email: string; at: string }): void {
    const before = this.stmts.view.get(s.id);
    // Asked for again after a removal: a new subscription, its last delivery kept.
    const was = before ? viewOf(before) : null;
    const view: SubscriberView = {
      id: s.id,
      page_id: s.page_id,
      project_id: s.project_id,
      email: s.email,
      status: 'pending',
      created_at: was?.created_at ?? s.at,
      updated_at: s.at,
      requested_at: s.at,
      confirmed_at: null,
      unsubscribed_at: null,
      last_delivery: was?.last_delivery ?? null,
    };
    const { id, page_id, project_id, email, status, created_at } = view;
    this.stmts.insert.run({ id, page_id, project_id, email, status, created_at, view: JSON.stringify(view) });
  }

  confirmed(id: string, at: string): void {
    this.change(id, (v) => ({ ...v, status: 'confirmed', confirmed_at: at, updated_at: at }));
  }

  unsubscribed(id: string, at: string): void {
    this.change(id, (v) => ({ ...v, status: 'unsubscribed', unsubscribed_at: at, updated_at: at }));
  }

  removed(id: string): void {
    this.stmts.remove.run(id);
  }

  pageDeleted(pageId: string): void {
    this.stmts.removePage.run(pageId);
  }

  erased(projectId: string, email: string): void {
    this.stmts.erase.run(projectId, email);
  }

  delivery(subscriberId: string, delivery: LastDelivery): void {
    this.change(subscriberId, (v) => ({ ...v, last_delivery: delivery }));
  }

  deliveryStatus(subscriberId: string, deliveryId: string, status: DeliveryStatus, at: string): void {
    this.change(subscriberId, (v) =>
      v.last_delivery?.id === deliveryId ? { ...v, last_delivery: { ...v.last_delivery, status, at } } : null,
    );
  }
}

class SqliteSubscribersQueries implements SubscribersQueries {
  private readonly stmts;
  private readonly cached;
  constructor(db: Database.Database) {
    this.cached = statementCache(db);
    this.stmts = {
      get: db.prepare<[string], { view: string }>("SELECT view FROM subscribers WHERE id = ? AND status != 'removed'"),
      counts: db.prepare<[string], { status: SubscriberStatus; n: number }>(
        'SELECT status, COUNT(*) AS n FROM subscribers WHERE page_id = ? GROUP BY status',
      ),
      confirmed: db.prepare<[string], Recipient>(
        "SELECT id, page_id, email FROM subscribers WHERE page_id = ? AND status = 'confirmed' " +
          'ORDER BY created_at, id',
      ),
      email: db.prepare<[string, string], { id: string }>(
        'SELECT id FROM subscribers WHERE project_id = ? AND email = ? ORDER BY created_at, id',
      ),
    };
  }

  async list(pageId: string, request: PageRequest & { status?: SubscriberStatus }): Promise<Page<SubscriberView>> {
    const where = new Where().add('page_id = ?', pageId);
    if (request.status === undefined) where.add("status != 'removed'");
    else where.add('status = ?', request.status);
    const total = (this.cached(`SELECT COUNT(*) AS n FROM subscribers ${where}`).get(...where.params) as { n: number })
      .n;
    const rows = this.cached(
      `SELECT view FROM subscribers ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...where.params, request.limit, offsetOf(request)) as Array<{ view: string }>;
    return pageOf(rows.map(viewOf), request, total);
  }

  async counts(pageId: string): Promise<SubscriberCounts> {
    const counts: SubscriberCounts = { pending: 0, confirmed: 0, unsubscribed: 0 };
    for (const { status, n } of this.stmts.counts.all(pageId)) if (status in counts) counts[status] = n;
    return counts;
  }

  async confirmed(pageIds: readonly string[]): Promise<Recipient[]> {
    return pageIds.flatMap((id) => this.stmts.confirmed.all(id));
  }

  async get(id: string): Promise<SubscriberView | null> {
    const row = this.stmts.get.get(id);
    return row ? viewOf(row) : null;
  }

  async withEmail(projectId: string, email: string): Promise<string[]> {
    return this.stmts.email.all(projectId, email).map((r) => r.id);
  }
}

export const sqliteSubscribers: SqliteReadModel<SubscribersWriter, SubscribersQueries> = {
  schema: subscribersSchema,
  writer: (db) => new SqliteSubscribersWriter(db),
  queries: (db) => new SqliteSubscribersQueries(db),
};
