import type Database from 'better-sqlite3';
import type { DeliveriesQueries, DeliveriesWriter, DeliveryRecord } from './port.ts';
import type { SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';

/** What the notification reactor did for each (event, channel). */
const deliveriesSchema: SqliteSchema = {
  version: 1,
  tables: ['deliveries'],
  create: `
CREATE TABLE IF NOT EXISTS deliveries (
  event_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (event_id, channel_id)
);
`,
};

class SqliteDeliveriesWriter implements DeliveriesWriter {
  private readonly insert;
  constructor(db: Database.Database) {
    this.insert = db.prepare('INSERT OR IGNORE INTO deliveries VALUES (?, ?, ?)');
  }
  recorded(d: DeliveryRecord): void {
    this.insert.run(d.event_id, d.channel_id, JSON.stringify(d));
  }
}

class SqliteDeliveriesQueries implements DeliveriesQueries {
  private readonly stmt;
  constructor(db: Database.Database) {
    this.stmt = db.prepare<[string], { record: string }>('SELECT record FROM deliveries WHERE event_id = ? ORDER BY channel_id');
  }
  async handled(eventId: string): Promise<Set<string>> {
    return new Set((await this.forEvent(eventId)).map((d) => d.channel_id));
  }
  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    return this.stmt.all(eventId).map((r) => JSON.parse(r.record) as DeliveryRecord);
  }
}

export const sqliteDeliveries: SqliteReadModel<DeliveriesWriter, DeliveriesQueries> = {
  schema: deliveriesSchema,
  writer: (db) => new SqliteDeliveriesWriter(db),
  queries: (db) => new SqliteDeliveriesQueries(db),
};
