import type Database from 'better-sqlite3';
import type { NotificationsStateQueries, NotificationsStateWriter, PendingDelivery } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../../../views/store/sqlite.ts';

/** Still version 1, the version of the reactor's record before the delivery log: a new version
 *  would drop its checkpoint, and the reactor would then notify again of the last hour's
 *  transitions. The tables are new, so creating them where they are missing is the whole
 *  migration; the old record (`deliveries`) goes. */
const notificationsStateSchema: SqliteSchema = {
  version: 1,
  tables: ['notifier_pending', 'notifier_down_sent', 'notifier_failures'],
  create: `
DROP TABLE IF EXISTS deliveries;
CREATE TABLE IF NOT EXISTS notifier_pending (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL UNIQUE,
  channel_id TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS notifier_down_sent (
  channel_id TEXT NOT NULL,
  monitor_id TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (channel_id, monitor_id)
);
CREATE TABLE IF NOT EXISTS notifier_failures (channel_id TEXT PRIMARY KEY, count INTEGER NOT NULL);
`,
};

class SqliteNotificationsStateWriter implements NotificationsStateWriter {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      queue: db.prepare('INSERT OR IGNORE INTO notifier_pending (delivery_id, channel_id) VALUES (?, ?)'),
      settle: db.prepare('DELETE FROM notifier_pending WHERE delivery_id = ?'),
      down: db.prepare(
        'INSERT INTO notifier_down_sent VALUES (?, ?, ?) ' +
          'ON CONFLICT (channel_id, monitor_id) DO UPDATE SET at = excluded.at',
      ),
      failures: db.prepare(
        'INSERT INTO notifier_failures VALUES (?, ?) ON CONFLICT (channel_id) DO UPDATE SET count = excluded.count',
      ),
    };
  }
  /** In the order queued (the row id), which is log order: the position is not needed. */
  queued(d: PendingDelivery): void {
    this.stmts.queue.run(d.delivery_id, d.channel_id);
  }
  settled(deliveryId: string): void {
    this.stmts.settle.run(deliveryId);
  }
  downSent(channelId: string, monitorId: string, at: string): void {
    this.stmts.down.run(channelId, monitorId, at);
  }
  failuresInARow(channelId: string, count: number): void {
    this.stmts.failures.run(channelId, count);
  }
}

class SqliteNotificationsStateQueries implements NotificationsStateQueries {
  private readonly stmts;
  constructor(db: Database.Database) {
    this.stmts = {
      pending: db.prepare<[], PendingDelivery>('SELECT delivery_id, channel_id FROM notifier_pending ORDER BY seq'),
      down: db.prepare<[string, string], { at: string }>(
        'SELECT at FROM notifier_down_sent WHERE channel_id = ? AND monitor_id = ?',
      ),
      failures: db.prepare<[string], { count: number }>('SELECT count FROM notifier_failures WHERE channel_id = ?'),
    };
  }
  async pending(): Promise<PendingDelivery[]> {
    return this.stmts.pending.all();
  }
  async lastDownSent(channelId: string, monitorId: string): Promise<string | null> {
    return this.stmts.down.get(channelId, monitorId)?.at ?? null;
  }
  async failuresInARow(channelId: string): Promise<number> {
    return this.stmts.failures.get(channelId)?.count ?? 0;
  }
}

export const sqliteNotificationsState: SqliteReadModel<NotificationsStateWriter, NotificationsStateQueries> = {
  schema: notificationsStateSchema,
  writer: (db) => new SqliteNotificationsStateWriter(db),
  queries: (db) => new SqliteNotificationsStateQueries(db),
};
