import { MongoClient } from 'mongodb';
import type { ReadModels } from '../ports.ts';
import { MongoAccessQueries, accessMongoSchema, mongoAccessWriter } from './access.ts';
import { MongoAuditEventsQueries, auditEventsMongoSchema, mongoAuditEventsWriter } from './audit-events.ts';
import { MongoDerivedSessionsQueries, derivedSessionsMongoSchema, mongoDerivedSessionsWriter } from './derived-sessions.ts';
import { MongoStatsQueries, mongoStatsWriter, statsMongoSchema } from './stats.ts';
import { MongoOrphansQueries, mongoOrphansWriter, orphansMongoSchema } from './orphans.ts';
import { MongoMonitorsQueries, monitorsMongoSchema, mongoMonitorsWriter } from './monitors.ts';
import {
  MongoChannelsQueries, MongoDeliveriesQueries, channelsMongoSchema, deliveriesMongoSchema, mongoChannelsWriter, mongoDeliveriesWriter,
} from './channels.ts';
import {
  MongoAnomaliesQueries, MongoAnomalyWindowsQueries, anomaliesMongoSchema, anomalyWindowsMongoSchema, mongoAnomaliesWriter, mongoAnomalyWindowsWriter,
  windowsPruning,
} from './anomalies.ts';
import { MongoLeases, MongoProjectionStore } from './store.ts';

/** Every read model in one MongoDB database (`dbName`, else the URL's, else `watchlog`). Indexes
 *  are created at start-up, idempotently. Fails within `timeoutMs` when the server cannot be
 *  reached. */
export const openMongoReadModels = async (url: string, { timeoutMs = 5000, dbName }: { timeoutMs?: number; dbName?: string } = {}): Promise<ReadModels> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs });
  await client.connect();
  // Without a name, the driver uses the URL's database, or "test": ours is "watchlog".
  const named = new URL(url.replace(/^mongodb(\+srv)?:/, 'http:')).pathname.slice(1);
  const db = client.db(dbName ?? (named || 'watchlog'));
  const pruning = windowsPruning();
  const stores = {
    auditEvents: new MongoProjectionStore(db, 'audit-events', auditEventsMongoSchema, mongoAuditEventsWriter),
    derivedSessions: new MongoProjectionStore(db, 'derived-sessions', derivedSessionsMongoSchema, mongoDerivedSessionsWriter),
    stats: new MongoProjectionStore(db, 'stats-buckets', statsMongoSchema, mongoStatsWriter),
    orphans: new MongoProjectionStore(db, 'orphans', orphansMongoSchema, mongoOrphansWriter),
    access: new MongoProjectionStore(db, 'access', accessMongoSchema, mongoAccessWriter),
    monitors: new MongoProjectionStore(db, 'monitors', monitorsMongoSchema, mongoMonitorsWriter),
    channels: new MongoProjectionStore(db, 'channels', channelsMongoSchema, mongoChannelsWriter),
    deliveries: new MongoProjectionStore(db, 'notifications', deliveriesMongoSchema, mongoDeliveriesWriter),
    anomalyWindows: new MongoProjectionStore(db, 'anomaly-windows', anomalyWindowsMongoSchema, (ops) => mongoAnomalyWindowsWriter(ops, pruning)),
    anomalies: new MongoProjectionStore(db, 'anomalies', anomaliesMongoSchema, mongoAnomaliesWriter),
  };
  for (const store of Object.values(stores)) await store.migrate();
  return {
    leases: new MongoLeases(db),
    auditEvents: new MongoAuditEventsQueries(db),
    derivedSessions: new MongoDerivedSessionsQueries(db),
    stats: new MongoStatsQueries(db),
    orphans: new MongoOrphansQueries(db),
    access: new MongoAccessQueries(db),
    monitors: new MongoMonitorsQueries(db),
    channels: new MongoChannelsQueries(db),
    deliveries: new MongoDeliveriesQueries(db),
    anomalyWindows: new MongoAnomalyWindowsQueries(db),
    anomalies: new MongoAnomaliesQueries(db),
    stores,
    async close() {
      await client.close();
    },
  };
};
