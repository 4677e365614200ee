import type Database from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import path from 'node:path';
import { ConnectionString } from 'mongodb-connection-string-url';
import type { Projection } from '../../projections/projection.ts';
import { bindProjection, newLeaseHolder, type ProjectionRunner } from '../../projections/projector.ts';
import { accessProjection } from '../../projections/access.ts';
import { anomaliesProjection } from '../../projections/anomalies.ts';
import { anomalyWindowsProjection } from '../../projections/anomaly-windows.ts';
import { auditEventsProjection } from '../../projections/audit-events.ts';
import { channelsProjection } from '../../projections/channels.ts';
import { deliveriesProjection } from '../../projections/deliveries.ts';
import { derivedSessionsProjection } from '../../projections/derived-sessions.ts';
import { maskingProjection } from '../../projections/masking.ts';
import { monitorsProjection } from '../../projections/monitors.ts';
import { orphansProjection } from '../../projections/orphans.ts';
import { statsProjection } from '../../projections/stats.ts';
import { treeProjection } from '../../projections/tree.ts';
import { retentionProjection } from '../../projections/retention.ts';
import { NOTIFICATIONS } from '../reactors/notifications/reactor.ts';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import { SchemaBusyError, type Leases, type ProjectionStore, type StoreFaults } from '../views/store/port.ts';
import { SqliteLeases, SqliteProjectionStore, finishBulkViewsDatabase, openBulkViewsDatabase, openViewsDatabase, type SqliteReadModel } from '../views/store/sqlite.ts';
import { STATE_FILE } from '../views/store/sqlite-files.ts';
import { MongoLeases, MongoProjectionStore, type MongoReadModel } from '../views/store/mongo.ts';
import { mongoAccess } from '../views/access/mongo.ts';
import { sqliteAccess } from '../views/access/sqlite.ts';
import { mongoAnomalies } from '../views/anomalies/mongo.ts';
import { sqliteAnomalies } from '../views/anomalies/sqlite.ts';
import { mongoAnomalyWindows } from '../views/anomaly-windows/mongo.ts';
import { sqliteAnomalyWindows } from '../views/anomaly-windows/sqlite.ts';
import { mongoAuditEvents } from '../views/audit-events/mongo.ts';
import { sqliteAuditEvents } from '../views/audit-events/sqlite.ts';
import { mongoChannels } from '../views/channels/mongo.ts';
import { sqliteChannels } from '../views/channels/sqlite.ts';
import { mongoDeliveries } from '../views/deliveries/mongo.ts';
import { sqliteDeliveries } from '../views/deliveries/sqlite.ts';
import { mongoDerivedSessions } from '../views/derived-sessions/mongo.ts';
import { sqliteDerivedSessions } from '../views/derived-sessions/sqlite.ts';
import { mongoMasking } from '../views/masking/mongo.ts';
import { sqliteMasking } from '../views/masking/sqlite.ts';
import { mongoMonitors } from '../views/monitors/mongo.ts';
import { sqliteMonitors } from '../views/monitors/sqlite.ts';
import { mongoNotifier } from '../views/notifier/mongo.ts';
import { sqliteNotifier } from '../views/notifier/sqlite.ts';
import { mongoOrphans } from '../views/orphans/mongo.ts';
import { sqliteOrphans } from '../views/orphans/sqlite.ts';
import { mongoStats } from '../views/stats/mongo.ts';
import { sqliteStats } from '../views/stats/sqlite.ts';
import { mongoTree } from '../views/tree/mongo.ts';
import { sqliteTree } from '../views/tree/sqlite.ts';
import { mongoRetention } from '../views/retention/mongo.ts';
import { sqliteRetention } from '../views/retention/sqlite.ts';

type WriterOf<K extends ReadModelKey> = ReadModels['stores'][K] extends ProjectionStore<infer W> ? W : never;

interface ReadModelEntry<W, Q> {
  /** What writes it: a projection, or (null) a reactor recording what it did. */
  readonly projection: Projection<W> | null;
  /** The name of its checkpoint and its lease: its projection's or reactor's. */
  readonly name: string;
  readonly sqlite: SqliteReadModel<W, Q>;
  readonly mongo: MongoReadModel<W, Q>;
}

const projected = <W, Q>(projection: Projection<W>, sqlite: SqliteReadModel<W, Q>, mongo: MongoReadModel<W, Q>): ReadModelEntry<W, Q> =>
  ({ projection, name: projection.name, sqlite, mongo });

/** The read-model registry: each read model once, with what writes it (which names it) and its
 *  adapter for each store. */
export const READ_MODELS: { readonly [K in ReadModelKey]: ReadModelEntry<WriterOf<K>, ReadModels[K]> } = {
  access: projected(accessProjection, sqliteAccess, mongoAccess),
  auditEvents: projected(auditEventsProjection, sqliteAuditEvents, mongoAuditEvents),
  derivedSessions: projected(derivedSessionsProjection, sqliteDerivedSessions, mongoDerivedSessions),
  stats: projected(statsProjection, sqliteStats, mongoStats),
  orphans: projected(orphansProjection, sqliteOrphans, mongoOrphans),
  monitors: projected(monitorsProjection, sqliteMonitors, mongoMonitors),
  channels: projected(channelsProjection, sqliteChannels, mongoChannels),
  anomalyWindows: projected(anomalyWindowsProjection, sqliteAnomalyWindows, mongoAnomalyWindows),
  anomalies: projected(anomaliesProjection, sqliteAnomalies, mongoAnomalies),
  masking: projected(maskingProjection, sqliteMasking, mongoMasking),
  tree: projected(treeProjection, sqliteTree, mongoTree),
  retention: projected(retentionProjection, sqliteRetention, mongoRetention),
  deliveries: projected(deliveriesProjection, sqliteDeliveries, mongoDeliveries),
  notifier: { projection: null, name: NOTIFICATIONS, sqlite: sqliteNotifier, mongo: mongoNotifier },
};

const KEYS = Object.keys(READ_MODELS) as ReadModelKey[];
export const READ_MODEL_KEYS: readonly ReadModelKey[] = KEYS;

/** One value per read model, built by `build` from its entry. (The one place the entries' types
 *  are asserted: TypeScript does not follow a key's types through an object built from entries.) */
const perReadModel = <R extends { [K in ReadModelKey]: unknown }>(build: (entry: ReadModelEntry<unknown, unknown>) => unknown): R =>
  Object.fromEntries(KEYS.map((key) => [key, build(READ_MODELS[key] as ReadModelEntry<unknown, unknown>)])) as R;

/** Read models another version of watchlog built are migrated (dropped, to be replayed) here
 *  when no live process projects them; those another process holds are left to the projector
 *  that next takes their lease (it migrates first). Says which are left. */
const migrateUnheld = async (stores: ReadonlyArray<ProjectionStore<unknown>>, leases: Leases): Promise<Array<{ name: string; holder: string | null }>> => {
  const busy: Array<{ name: string; holder: string | null }> = [];
  for (const store of stores) {
    if (await store.schemaCurrent()) continue;
    const holder = newLeaseHolder();
    const lease = await leases.acquire(store.name, holder, 60_000);
    if (!lease) {
      busy.push({ name: store.name, holder: (await leases.holderOf(store.name))?.holder ?? null });
      continue;
    }
    try {
      await store.migrate(lease);
    } finally {
      await leases.release(store.name, holder);
    }
  }
  return busy;
};

/** The projections' leases in the read models' file, the reactors' in the state file: each
 *  beside the rows it fences. */
const routedLeases = (projections: Leases, reactors: Leases, projected: ReadonlySet<string>): Leases => {
  const of = (name: string) => (projected.has(name) ? projections : reactors);
  return {
    acquire: (name, holder, ttlMs) => of(name).acquire(name, holder, ttlMs),
    release: (name, holder) => of(name).release(name, holder),
    async releaseAll(holder) {
      await projections.releaseAll(holder);
      await reactors.releaseAll(holder);
    },
    holderOf: (name) => of(name).holderOf(name),
  };
};

const PROJECTED = new Set(KEYS.flatMap((key) => (READ_MODELS[key].projection ? [READ_MODELS[key].name] : [])));

/** Every read model a projection writes in one SQLite file, separate from the log: it can be
 *  deleted and rebuilt. What reactors record (the log cannot rebuild it) goes to `stateFile`
 *  (default: state.db beside it). Queries are prepared on this version's tables, so a read model
 *  that another version built and a running process still projects stops the opening
 *  (SchemaBusyError). */
export const openSqliteReadModels = async (
  file: string, { faults, stateFile = path.join(path.dirname(file), STATE_FILE) }: { faults?: StoreFaults; stateFile?: string } = {},
): Promise<ReadModels> => {
  const db = openViewsDatabase(file);
  let state: Database.Database | null = null;
  try {
    state = openViewsDatabase(stateFile);
    const dbs = { views: db, state };
    const dbOf = (entry: ReadModelEntry<unknown, unknown>) => (entry.projection ? dbs.views : dbs.state);
    const stores = perReadModel<ReadModels['stores']>((entry) => new SqliteProjectionStore(dbOf(entry), entry.name, entry.sqlite, { faults }));
    const leases = routedLeases(new SqliteLeases(db), new SqliteLeases(state), PROJECTED);
    const busy = await migrateUnheld(Object.values(stores), leases);
    if (busy.length > 0) throw new SchemaBusyError(busy);
    return {
      ...perReadModel<Omit<ReadModels, 'leases' | 'stores' | 'close'>>((entry) => entry.sqlite.queries(dbOf(entry))),
      leases,
      stores,
      async close() {
        db.close();
        dbs.state.close();
      },
    };
  } catch (error) {
    db.close();
    state?.close();
    throw error;
  }
};

/** The projected read models in a new file, filled in bulk by a rebuild: no journal, and the
 *  query indexes made once the rows are in (`finish`). */
export interface BulkReadModels {
  readonly runners: ProjectionRunner[];
  readonly leases: Leases;
  /** Makes the query indexes and turns the file into an ordinary one, closed. */
  finish(): void;
}

export const bulkSqliteReadModels = (file: string): BulkReadModels => {
  const db = openBulkViewsDatabase(file);
  const stores = KEYS.flatMap((key) => {
    const entry = READ_MODELS[key] as ReadModelEntry<unknown, unknown>;
    return entry.projection ? [{ projection: entry.projection, store: new SqliteProjectionStore(db, entry.name, entry.sqlite, { deferQueryIndexes: true }) }] : [];
  });
  return {
    runners: stores.map(({ projection, store }) => bindProjection(projection, store)),
    leases: new SqliteLeases(db),
    finish() {
      for (const { store } of stores) store.createQueryIndexes();
      finishBulkViewsDatabase(db);
    },
  };
};

/** Every read model in one MongoDB database (`dbName`, else the URL's, else `watchlog`). Indexes
 *  of this version are created at start-up, idempotently; a read model another version built is
 *  migrated by whoever holds its lease. Fails within `timeoutMs` when the server cannot be
 *  reached, and closes its client whenever it fails. */
export const openMongoReadModels = async (
  url: string, { timeoutMs = 5000, dbName, faults }: { timeoutMs?: number; dbName?: string; faults?: StoreFaults } = {},
): Promise<ReadModels> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs });
  try {
    await client.connect();
    const db = client.db(dbName ?? mongoDatabaseName(url));
    const stores = perReadModel<ReadModels['stores']>((entry) => new MongoProjectionStore(db, entry.name, entry.mongo, faults));
    const all = Object.values(stores) as Array<MongoProjectionStore<unknown>>;
    for (const store of all) await store.open();
    const leases = new MongoLeases(db);
    await migrateUnheld(all, leases);
    return {
      ...perReadModel<Omit<ReadModels, 'leases' | 'stores' | 'close'>>((entry) => entry.mongo.queries(db)),
      leases,
      stores,
      async close() {
        await client.close();
      },
    };
  } catch (error) {
    await client.close();
    throw error;
  }
};

/** The database the URL names, or `watchlog` (without a name the driver would use "test").
 *  Parsed by the driver's own connection-string parser, which takes several hosts
 *  (`mongodb://h1:27017,h2:27017/watchlog?replicaSet=rs0`), unlike the WHATWG URL. */
export const mongoDatabaseName = (url: string): string =>
  decodeURIComponent(new ConnectionString(url).pathname.replace(/^\//, '')) || 'watchlog';

/** The projections bound to their stores, in registry order. */
export const projectionRunners = (readModels: ReadModels): ProjectionRunner[] =>
  KEYS.flatMap((key) => {
    const { projection } = READ_MODELS[key];
    return projection ? [bindProjection(projection as Projection<unknown>, readModels.stores[key] as ProjectionStore<unknown>)] : [];
  });
