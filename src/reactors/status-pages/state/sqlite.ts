import type Database from 'better-sqlite3';
import type { PageEffectsStateQueries, PageEffectsStateWriter, PendingMail } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../../../views/store/sqlite.ts';

const pageEffectsStateSchema: SqliteSchema = {
  version: 1,
  tables: ['page_effects_pending', 'page_effects_auto'],
  create: `
CREATE TABLE IF NOT EXISTS page_effects_pending (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL UNIQUE,
  subscriber_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS page_effects_auto (
  monitor_id TEXT NOT NULL,
  incident_id TEXT NOT NULL,
  PRIMARY KEY (monitor_id, incident_id)
) WITHOUT ROWID;
`,
};

class SqlitePageEffectsStateWriter implements PageEffectsStateWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      queue: db.prepare('INSERT OR IGNORE INTO page_effects_pending (delivery_id, subscriber_id) VALUES (?, ?)'),
      settle: db.prepare('DELETE FROM page_effects_pending WHERE delivery_id = ?'),
      opened: db.prepare('INSERT OR IGNORE INTO page_effects_auto VALUES (?, ?)'),
      resolved: db.prepare('DELETE FROM page_effects_auto WHERE monitor_id = ?'),
    };
  }
  /** In the order queued (the row id), which is log order: the position is not needed. */
  queued(mail: PendingMail): void {
    this.stmts.queue.run(mail.delivery_id, mail.subscriber_id);
  }
  settled(deliveryId: string): void {
    this.stmts.settle.run(deliveryId);
  }
  autoOpened(monitorId: string, incidentId: string): void {
    this.stmts.opened.run(monitorId, incidentId);
  }
  autoResolved(monitorId: string): void {
    this.stmts.resolved.run(monitorId);
  }
}

class SqlitePageEffectsStateQueries implements PageEffectsStateQueries {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      pending: db.prepare<[], PendingMail>('SELECT delivery_id, subscriber_id FROM page_effects_pending ORDER BY seq'),
      auto: db.prepare<[string], { incident_id: string }>(
        'SELECT incident_id FROM page_effects_auto WHERE monitor_id = ? ORDER BY incident_id',
      ),
    };
  }
  async pending(): Promise<PendingMail[]> {
    return this.stmts.pending.all();
  }
  async autoOpen(monitorId: string): Promise<string[]> {
    return this.stmts.auto.all(monitorId).map((r) => r.incident_id);
  }
}

export const sqlitePageEffectsState: SqliteReadModel<PageEffectsStateWriter, PageEffectsStateQueries> = {
  schema: pageEffectsStateSchema,
  writer: (db) => new SqlitePageEffectsStateWriter(db),
  queries: (db) => new SqlitePageEffectsStateQueries(db),
};
