import type { Projection } from '../../projections/projection.ts';
import type Database from 'better-sqlite3';
import { bindProjection, newLeaseHolder, type ProjectionRunner } from '../../projections/projector.ts';
import { accessProjection } from '../../projections/access.ts';
import { anomaliesProjection } from '../../projections/anomalies.ts';
import { anomalyWindowsProjection } from '../../projections/anomaly-windows.ts';
import { auditEventsProjection } from '../../projections/audit-events.ts';
import { channelsProjection } from '../../projections/channels.ts';
import { deliveriesProjection } from '../../projections/deliveries.ts';
import { incidentsProjection } from '../../projections/incidents.ts';
import { derivedSessionsProjection } from '../../projections/derived-sessions.ts';
import { maintenancesProjection } from '../../projections/maintenances.ts';
import { maskingProjection } from '../../projections/masking.ts';
import { otlpProjection } from '../../projections/otlp.ts';
import { monitorsProjection } from '../../projections/monitors.ts';
import { orphansProjection } from '../../projections/orphans.ts';
import { statsProjection } from '../../projections/stats.ts';
import { statusPagesProjection } from '../../projections/status-pages.ts';
import { subscribersProjection } from '../../projections/subscribers.ts';
import { treeProjection } from '../../projections/tree.ts';
import { retentionProjection } from '../../projections/retention.ts';
import { sinksProjection } from '../../projections/sinks.ts';
import { factorsProjection } from '../../projections/factors.ts';
import { sessionsProjection } from '../../projections/sessions.ts';
import { ssoProvidersProjection } from '../../projections/sso-providers.ts';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import { SchemaBusyError, type Leases, type ProjectionStore, type StoreFaults } from '../views/store/port.ts';
import {
  SqliteLeases,
  SqliteProjectionStore,
  finishBulkViewsDatabase,
  openBulkViewsDatabase,
  openViewsDatabase,
  type SqliteReadModel,
} from '../views/store/sqlite.ts';
import type { MongoReadModel } from '../views/store/mongo.ts';
import { sqliteAccess } from '../views/access/sqlite.ts';
import { sqliteAnomalies } from '../views/anomalies/sqlite.ts';
import { sqliteAnomalyWindows } from '../views/anomaly-windows/sqlite.ts';
import { sqliteAuditEvents } from '../views/audit-events/sqlite.ts';
import { sqliteChannels } from '../views/channels/sqlite.ts';
import { sqliteDeliveries } from '../views/deliveries/sqlite.ts';
import { sqliteDerivedSessions } from '../views/derived-sessions/sqlite.ts';
import { sqliteIncidents } from '../views/incidents/sqlite.ts';
import { sqliteMaintenances } from '../views/maintenances/sqlite.ts';
import { sqliteMasking } from '../views/masking/sqlite.ts';
import { sqliteOtlp } from '../views/otlp/sqlite.ts';
import { sqliteMonitors } from '../views/monitors/sqlite.ts';
import { sqliteOrphans } from '../views/orphans/sqlite.ts';
import { sqliteStats } from '../views/stats/sqlite.ts';
import { sqliteStatusPages } from '../views/status-pages/sqlite.ts';
import { sqliteSubscribers } from '../views/subscribers/sqlite.ts';
import { sqliteTree } from '../views/tree/sqlite.ts';
import { sqliteRetention } from '../views/retention/sqlite.ts';
import { sqliteSinks } from '../views/sinks/sqlite.ts';
import { sqliteFactors } from '../views/factors/sqlite.ts';
import { sqliteSessions } from '../views/sessions/sqlite.ts';
import { sqliteSsoProviders } from '../views/sso-providers/sqlite.ts';

type WriterOf<K extends ReadModelKey> = ReadModels['stores'][K] extends ProjectionStore<infer W> ? W : never;

interface ReadModelEntry<W, Q> {
  /** What writes it: every read model is a fold of the log (a reactor's state is not one: it is
   *  in the reactor registry, reactors.ts). */
  readonly projection: Projection<W>;
  /** The name of its checkpoint and its lease: its projection's. */
  readonly name: string;
  readonly sqlite: SqliteReadModel<W, Q>;
  /** Loaded when MongoDB is configured: the driver costs every thread that loads it ~25 MB. */
  readonly mongo: () => Promise<MongoReadModel<W, Q>>;
}

const projected = <W, Q>(
  projection: Projection<W>,
  sqlite: SqliteReadModel<W, Q>,
  mongo: () => Promise<MongoReadModel<W, Q>>,
): ReadModelEntry<W, Q> => ({ projection, name: projection.name, sqlite, mongo });

/** The read-model registry: each read model once, with the projection that writes it (which
 *  names it) and its adapter for each store. */
export const READ_MODELS: { readonly [K in ReadModelKey]: ReadModelEntry<WriterOf<K>, ReadModels[K]> } = {
  access: projected(accessProjection, sqliteAccess, () =>
    import('../views/access/mongo.ts').then((m) => m.mongoAccess),
  ),
  auditEvents: projected(auditEventsProjection, sqliteAuditEvents, () =>
    import('../views/audit-events/mongo.ts').then((m) => m.mongoAuditEvents),
  ),
  derivedSessions: projected(derivedSessionsProjection, sqliteDerivedSessions, () =>
    import('../views/derived-sessions/mongo.ts').then((m) => m.mongoDerivedSessions),
  ),
  stats: projected(statsProjection, sqliteStats, () => import('../views/stats/mongo.ts').then((m) => m.mongoStats)),
  orphans: projected(orphansProjection, sqliteOrphans, () =>
    import('../views/orphans/mongo.ts').then((m) => m.mongoOrphans),
  ),
  monitors: projected(monitorsProjection, sqliteMonitors, () =>
    import('../views/monitors/mongo.ts').then((m) => m.mongoMonitors),
  ),
  channels: projected(channelsProjection, sqliteChannels, () =>
    import('../views/channels/mongo.ts').then((m) => m.mongoChannels),
  ),
  anomalyWindows: projected(anomalyWindowsProjection, sqliteAnomalyWindows, () =>
    import('../views/anomaly-windows/mongo.ts').then((m) => m.mongoAnomalyWindows),
  ),
  anomalies: projected(anomaliesProjection, sqliteAnomalies, () =>
    import('../views/anomalies/mongo.ts').then((m) => m.mongoAnomalies),
  ),
  masking: projected(maskingProjection, sqliteMasking, () =>
    import('../views/masking/mongo.ts').then((m) => m.mongoMasking),
  ),
  otlp: projected(otlpProjection, sqliteOtlp, () => import('../views/otlp/mongo.ts').then((m) => m.mongoOtlp)),
  tree: projected(treeProjection, sqliteTree, () => import('../views/tree/mongo.ts').then((m) => m.mongoTree)),
  retention: projected(retentionProjection, sqliteRetention, () =>
    import('../views/retention/mongo.ts').then((m) => m.mongoRetention),
  ),
  deliveries: projected(deliveriesProjection, sqliteDeliveries, () =>
    import('../views/deliveries/mongo.ts').then((m) => m.mongoDeliveries),
  ),
  statusPages: projected(statusPagesProjection, sqliteStatusPages, () =>
    import('../views/status-pages/mongo.ts').then((m) => m.mongoStatusPages),
  ),
  incidents: projected(incidentsProjection, sqliteIncidents, () =>
    import('../views/incidents/mongo.ts').then((m) => m.mongoIncidents),
  ),
  maintenances: projected(maintenancesProjection, sqliteMaintenances, () =>
    import('../views/maintenances/mongo.ts').then((m) => m.mongoMaintenances),
  ),
  subscribers: projected(subscribersProjection, sqliteSubscribers, () =>
    import('../views/subscribers/mongo.ts').then((m) => m.mongoSubscribers),
  ),
  sinks: projected(sinksProjection, sqliteSinks, () => import('../views/sinks/mongo.ts').then((m) => m.mongoSinks)),
  factors: projected(factorsProjection, sqliteFactors, () =>
    import('../views/factors/mongo.ts').then((m) => m.mongoFactors),
  ),
  sessions: projected(sessionsProjection, sqliteSessions, () =>
    import('../views/sessions/mongo.ts').then((m) => m.mongoSessions),
  ),
  ssoProviders: projected(ssoProvidersProjection, sqliteSsoProviders, () =>
    import('../views/sso-providers/mongo.ts').then((m) => m.mongoSsoProviders),
  ),
};

const KEYS = Object.keys(READ_MODELS) as ReadModelKey[];
export const READ_MODEL_KEYS: readonly ReadModelKey[] = KEYS;

/** One value per read model, built by `build` from its entry. (The one place the entries' types
 *  are asserted: TypeScript does not follow a key's types through an object built from entries.) */
export const perReadModel = <R extends { [K in ReadModelKey]: unknown }>(
  build: (entry: ReadModelEntry<unknown, unknown>, key: ReadModelKey) => unknown,
): R =>
  Object.fromEntries(KEYS.map((key) => [key, build(READ_MODELS[key] as ReadModelEntry<unknown, unknown>, key)])) as R;

/** Read models (or reactors' states) another version of watchlog built are migrated here when no
 *  live process holds their lease; those another process holds are left to whoever next takes
 *  their lease (it migrates first). Says which are left. */
export const migrateUnheld = async (
  stores: ReadonlyArray<Pick<ProjectionStore<unknown>, 'name' | 'schemaCurrent' | 'migrate'>>,
  leases: Leases,
): Promise<Array<{ name: string; holder: string | null }>> => {
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

/** The names of the read models: their projections', checkpoints' and leases'. */
export const READ_MODEL_NAMES: readonly string[] = KEYS.map((key) => READ_MODELS[key].name);

/** A SQLite file of projection stores (the read models', or the reactors' states) and their
 *  leases: every store is migrated unless a running process of another version holds it (then
 *  the opening stops: SchemaBusyError), and the queries are prepared on this version's tables.
 *  The file is closed again when any of that fails. */
export const openSqliteStores = async <R extends { readonly leases: Leases; close(): Promise<void> }>(
  file: string,
  build: (db: Database.Database) => {
    stores: Record<string, Pick<ProjectionStore<never>, 'name' | 'schemaCurrent' | 'migrate'>>;
    queries: Omit<R, 'leases' | 'stores' | 'close'>;
  },
): Promise<R> => {
  const db = openViewsDatabase(file);
  try {
    const { stores, queries } = build(db);
    const leases = new SqliteLeases(db);
    const busy = await migrateUnheld(Object.values(stores), leases);
    if (busy.length > 0) throw new SchemaBusyError(busy);
    const close = async () => db.close();
    return { ...queries, leases, stores, close } as unknown as R;
  } catch (error) {
    db.close();
    throw error;
  }
};

/** Every read model in one SQLite file, separate from the log: it can be deleted and rebuilt
 *  (reactors keep their state elsewhere, in state.db: reactors.ts). */
export const openSqliteReadModels = (file: string, { faults }: { faults?: StoreFaults } = {}): Promise<ReadModels> =>
  openSqliteStores<ReadModels>(file, (db) => ({
    stores: perReadModel<ReadModels['stores']>(
      (entry) => new SqliteProjectionStore(db, entry.name, entry.sqlite, { faults }),
    ),
    queries: perReadModel<Omit<ReadModels, 'leases' | 'stores' | 'close'>>((entry) => entry.sqlite.queries(db)),
  }));

/** The projected read models in a new file, filled in bulk by a rebuild: no journal, and the
 *  query indexes made once the rows are in (`finish`). A rebuild may split the projections into
 *  lanes, each filling a file of its own on a thread of its own; one file then `absorb`s the
 *  others' before its indexes are made. */
export interface BulkReadModels {
  /** The runners of the projections this file's lane replays (every projection by default). */
  readonly runners: ProjectionRunner[];
  readonly leases: Leases;
  /** Copies in the read models `projections` that another lane built in `laneFile`: their rows,
   *  checkpoints and versions. */
  absorb(laneFile: string, projections: readonly string[]): void;
  /** Makes the query indexes of the read models named (all by default) that are not made yet,
   *  one statement at a time with a turn of the event loop between them (timers such as lease
   *  renewals run). */
  makeIndexes(projections?: ReadonlySet<string>): Promise<void>;
  /** Makes the query indexes left and turns the file into an ordinary one, closed. */
  finish(): Promise<void>;
  /** Closes a lane's file as it is, for another to absorb. */
  close(): void;
}

export const bulkSqliteReadModels = (file: string, lane?: ReadonlySet<string>): BulkReadModels => {
  const db = openBulkViewsDatabase(file);
  // Every read model's tables in every lane's file: a lane's rows are copied into empty tables.
  const stores = KEYS.map((key) => {
    const entry = READ_MODELS[key] as ReadModelEntry<unknown, unknown>;
    return { entry, store: new SqliteProjectionStore(db, entry.name, entry.sqlite, { deferQueryIndexes: true }) };
  });
  const indexed = new Set<string>();
  const makeIndexes = async (projections?: ReadonlySet<string>): Promise<void> => {
    for (const { entry, store } of stores) {
      if (indexed.has(entry.name) || (projections !== undefined && !projections.has(entry.name))) continue;
      for (const statement of store.queryIndexStatements()) {
        db.exec(statement);
        await new Promise((resolve) => setImmediate(resolve));
      }
      indexed.add(entry.name);
    }
  };
  return {
    runners: stores
      .filter(({ entry }) => lane === undefined || lane.has(entry.name))
      .map(({ entry, store }) => bindProjection(entry.projection, store)),
    leases: new SqliteLeases(db),
    absorb(laneFile, projections) {
      const names = new Set(projections);
      db.prepare('ATTACH DATABASE ? AS lane').run(laneFile);
      try {
        db.transaction(() => {
          for (const { entry } of stores) {
            if (!names.has(entry.name)) continue;
            for (const table of entry.sqlite.schema.tables)
              db.exec(`INSERT INTO main.${table} SELECT * FROM lane.${table}`);
          }
          const placeholders = [...names].map(() => '?').join(', ');
          for (const table of ['checkpoints', 'read_model_versions']) {
            db.prepare(
              `INSERT OR REPLACE INTO main.${table} SELECT * FROM lane.${table} WHERE projection IN (${placeholders})`,
            ).run(...names);
          }
        })();
      } finally {
        db.exec('DETACH DATABASE lane');
      }
    },
    makeIndexes,
    async finish() {
      try {
        await makeIndexes();
      } finally {
        finishBulkViewsDatabase(db);
      }
    },
    close() {
      db.close();
    },
  };
};

/** The projections bound to their stores, in registry order. */
export const projectionRunners = (readModels: ReadModels): ProjectionRunner[] =>
  KEYS.map((key) =>
    bindProjection(
      READ_MODELS[key].projection as Projection<unknown>,
      readModels.stores[key] as ProjectionStore<unknown>,
    ),
  );
