import type Database from 'better-sqlite3';
import { SqliteProjectionStore, type SqliteSchema } from '../../../views/store/sqlite.ts';
import type { StoreFaults } from '../../../views/store/port.ts';
import type { ReactorStore } from '../../port.ts';
import { sinkReactorName, type SinkProgress, type SinkProgressWriter, type SinkStates } from './port.ts';

/** One row per sink, whatever store (checkpoint) wrote it: every sink's store shares the table. */
const sinkStateSchema: SqliteSchema = {
  version: 1,
  tables: ['sink_progress'],
  create: `
CREATE TABLE IF NOT EXISTS sink_progress (
  sink_id TEXT PRIMARY KEY,
  forwarded_total INTEGER NOT NULL DEFAULT 0,
  last_forwarded_at TEXT,
  last_event_id TEXT,
  failures INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  last_error_at TEXT
);
`,
};

class SqliteSinkProgressWriter implements SinkProgressWriter {
  private readonly stmt;
  constructor(db: Database.Database) {
    this.stmt = db.prepare(
      'INSERT INTO sink_progress (sink_id, forwarded_total, last_forwarded_at, last_event_id) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (sink_id) DO UPDATE SET forwarded_total = forwarded_total + excluded.forwarded_total, ' +
        'last_forwarded_at = excluded.last_forwarded_at, last_event_id = excluded.last_event_id, failures = 0',
    );
  }
  forwarded(sinkId: string, count: number, lastEventId: string, at: string): void {
    this.stmt.run(sinkId, count, at, lastEventId);
  }
}

export const sqliteSinkStates = (db: Database.Database, { faults }: { faults?: StoreFaults } = {}): SinkStates => {
  // The table is made here too: a sink's progress may be asked before its reactor first ran.
  db.exec(sinkStateSchema.create);
  const stores = new Map<string, ReactorStore<SinkProgressWriter>>();
  const model = { schema: sinkStateSchema, writer: (d: Database.Database) => new SqliteSinkProgressWriter(d) };
  const progress = db.prepare<[string], SinkProgress>(
    'SELECT forwarded_total, last_forwarded_at, last_event_id, failures, last_error, last_error_at ' +
      'FROM sink_progress WHERE sink_id = ?',
  );
  const failed = db.prepare(
    'INSERT INTO sink_progress (sink_id, failures, last_error, last_error_at) VALUES (?, ?, ?, ?) ' +
      'ON CONFLICT (sink_id) DO UPDATE SET failures = excluded.failures, last_error = excluded.last_error, ' +
      'last_error_at = excluded.last_error_at',
  );
  return {
    store(sinkId) {
      let store = stores.get(sinkId);
      if (store === undefined) {
        store = new SqliteProjectionStore(db, sinkReactorName(sinkId), model, { faults });
        stores.set(sinkId, store);
      }
      return store;
    },
    progress: async (sinkId) => progress.get(sinkId) ?? null,
    failed: async (sinkId, failures, error, at) => {
      failed.run(sinkId, failures, error, at);
    },
  };
};
