import type { ReadModels } from '../ports.ts';
import { SqliteAccessQueries, SqliteAccessWriter, accessSchema } from './access.ts';
import { SqliteAuditEventsQueries, SqliteAuditEventsWriter, auditEventsSchema } from './audit-events.ts';
import { SqliteDerivedSessionsQueries, SqliteDerivedSessionsWriter, derivedSessionsSchema } from './derived-sessions.ts';
import { SqliteStatsQueries, SqliteStatsWriter, statsSchema } from './stats.ts';
import { SqliteOrphansQueries, SqliteOrphansWriter, orphansSchema } from './orphans.ts';
import { SqliteMonitorsQueries, SqliteMonitorsWriter, monitorsSchema } from './monitors.ts';
import {
  SqliteChannelsQueries, SqliteChannelsWriter, SqliteDeliveriesQueries, SqliteDeliveriesWriter, channelsSchema, deliveriesSchema,
} from './channels.ts';
import {
  SqliteAnomaliesQueries, SqliteAnomaliesWriter, SqliteAnomalyWindowsQueries, SqliteAnomalyWindowsWriter, anomaliesSchema, anomalyWindowsSchema,
} from './anomalies.ts';
import { SqliteLeases, SqliteProjectionStore, openViewsDatabase } from './database.ts';

/** Every read model in one SQLite file, separate from the log: it can be deleted and rebuilt. */
export const openSqliteReadModels = (file: string): ReadModels => {
  const db = openViewsDatabase(file);
  // The stores create (or rebuild) their tables before the queries prepare statements on them.
  const stores = {
    auditEvents: new SqliteProjectionStore(db, 'audit-events', auditEventsSchema, (d) => new SqliteAuditEventsWriter(d)),
    derivedSessions: new SqliteProjectionStore(db, 'derived-sessions', derivedSessionsSchema, (d) => new SqliteDerivedSessionsWriter(d)),
    stats: new SqliteProjectionStore(db, 'stats-buckets', statsSchema, (d) => new SqliteStatsWriter(d)),
    orphans: new SqliteProjectionStore(db, 'orphans', orphansSchema, (d) => new SqliteOrphansWriter(d)),
    access: new SqliteProjectionStore(db, 'access', accessSchema, (d) => new SqliteAccessWriter(d)),
    monitors: new SqliteProjectionStore(db, 'monitors', monitorsSchema, (d) => new SqliteMonitorsWriter(d)),
    channels: new SqliteProjectionStore(db, 'channels', channelsSchema, (d) => new SqliteChannelsWriter(d)),
    deliveries: new SqliteProjectionStore(db, 'notifications', deliveriesSchema, (d) => new SqliteDeliveriesWriter(d)),
    anomalyWindows: new SqliteProjectionStore(db, 'anomaly-windows', anomalyWindowsSchema, (d) => new SqliteAnomalyWindowsWriter(d)),
    anomalies: new SqliteProjectionStore(db, 'anomalies', anomaliesSchema, (d) => new SqliteAnomaliesWriter(d)),
  };
  return {
    leases: new SqliteLeases(db),
    auditEvents: new SqliteAuditEventsQueries(db),
    derivedSessions: new SqliteDerivedSessionsQueries(db),
    stats: new SqliteStatsQueries(db),
    orphans: new SqliteOrphansQueries(db),
    access: new SqliteAccessQueries(db),
    monitors: new SqliteMonitorsQueries(db),
    channels: new SqliteChannelsQueries(db),
    deliveries: new SqliteDeliveriesQueries(db),
    anomalyWindows: new SqliteAnomalyWindowsQueries(db),
    anomalies: new SqliteAnomaliesQueries(db),
    stores,
    async close() {
      db.close();
    },
  };
};
