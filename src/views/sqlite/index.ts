import type { ReadModels } from '../ports.ts';
import { SqliteAccessQueries, SqliteAccessWriter, accessSchema } from './access.ts';
import { SqliteAuditEventsQueries, SqliteAuditEventsWriter, auditEventsSchema } from './audit-events.ts';
import { SqliteLeases, SqliteProjectionStore, openViewsDatabase } from './database.ts';

/** Every read model in one SQLite file, separate from the log: it can be deleted and rebuilt. */
export const openSqliteReadModels = (file: string): ReadModels => {
  const db = openViewsDatabase(file);
  db.exec(auditEventsSchema.create);
  db.exec(accessSchema.create);
  return {
    leases: new SqliteLeases(db),
    auditEvents: new SqliteAuditEventsQueries(db),
    access: new SqliteAccessQueries(db),
    stores: {
      auditEvents: new SqliteProjectionStore(db, 'audit-events', auditEventsSchema, new SqliteAuditEventsWriter(db)),
      access: new SqliteProjectionStore(db, 'access', accessSchema, new SqliteAccessWriter(db)),
    },
    async close() {
      db.close();
    },
  };
};
