import { NOTIFICATIONS } from '../reactors/notifications/reactor.ts';
import { sqliteNotificationsState } from '../reactors/notifications/state/sqlite.ts';
import type { ReactorKey, ReactorStates, ReactorStore } from '../reactors/port.ts';
import { SchemaBusyError, type StoreFaults } from '../views/store/port.ts';
import type { MongoReadModel } from '../views/store/mongo.ts';
import { SqliteLeases, SqliteProjectionStore, openViewsDatabase, type SqliteReadModel } from '../views/store/sqlite.ts';
import { migrateUnheld } from './read-models.ts';

type WriterOf<K extends ReactorKey> = ReactorStates['stores'][K] extends ReactorStore<infer W> ? W : never;

/** A reactor's state: the reactor's name (its lease, and the checkpoint of its state), and its
 *  state's adapter for each store. No projection: the log cannot give back what a reactor did. */
interface ReactorEntry<W, Q> {
  readonly name: string;
  readonly sqlite: SqliteReadModel<W, Q>;
  /** Loaded when MongoDB is configured, as the read models' adapters are (read-models.ts). */
  readonly mongo: () => Promise<MongoReadModel<W, Q>>;
}

/** The reactor registry: each reactor that keeps state, once, apart from the read models (it is
 *  not rebuilt, not replayed, and its lease lives beside its state). The checkpoint sealer keeps
 *  none: it only takes a lease (`checkpoint-sealer`) among the reactors'. */
export const REACTORS: { readonly [K in ReactorKey]: ReactorEntry<WriterOf<K>, ReactorStates[K]> } = {
  notifications: {
    name: NOTIFICATIONS,
    sqlite: sqliteNotificationsState,
    mongo: () => import('../reactors/notifications/state/mongo.ts').then((m) => m.mongoNotificationsState),
  },
};

export const REACTOR_KEYS = Object.keys(REACTORS) as ReactorKey[];

/** One value per reactor, built by `build` from its entry (as `perReadModel`, the one place the
 *  entries' types are asserted). */
export const perReactor = <R extends { [K in ReactorKey]: unknown }>(
  build: (entry: ReactorEntry<unknown, unknown>, key: ReactorKey) => unknown,
): R =>
  Object.fromEntries(
    REACTOR_KEYS.map((key) => [key, build(REACTORS[key] as ReactorEntry<unknown, unknown>, key)]),
  ) as R;

/** Every reactor's state, and the reactors' leases, in the embedded state file (`state.db`), which
 *  a rebuild never replaces. A state another version built and a running process still holds
 *  stops the opening (SchemaBusyError). */
export const openSqliteReactorStates = async (
  file: string,
  { faults }: { faults?: StoreFaults } = {},
): Promise<ReactorStates> => {
  const db = openViewsDatabase(file);
  try {
    const stores = perReactor<ReactorStates['stores']>(
      (entry) => new SqliteProjectionStore(db, entry.name, entry.sqlite, { faults }),
    );
    const leases = new SqliteLeases(db);
    const busy = await migrateUnheld(Object.values(stores), leases);
    if (busy.length > 0) throw new SchemaBusyError(busy);
    return {
      ...perReactor<Omit<ReactorStates, 'leases' | 'stores' | 'close'>>((entry) => entry.sqlite.queries(db)),
      leases,
      stores,
      async close() {
        db.close();
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
};
