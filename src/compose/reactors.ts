import { NOTIFICATIONS } from '../reactors/notifications/reactor.ts';
import { sqliteNotificationsState } from '../reactors/notifications/state/sqlite.ts';
import { PAGE_EFFECTS } from '../reactors/status-pages/reactor.ts';
import { sqlitePageEffectsState } from '../reactors/status-pages/state/sqlite.ts';
import type { ReactorKey, ReactorStates, ReactorStore, RegisteredStates } from '../reactors/port.ts';
import { sqliteSinkStates } from '../reactors/sinks/state/sqlite.ts';
import type { StoreFaults } from '../views/store/port.ts';
import type { MongoReadModel } from '../views/store/mongo.ts';
import { SqliteProjectionStore, type SqliteReadModel } from '../views/store/sqlite.ts';
import { openSqliteStores } from './read-models.ts';

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
export const REACTORS: { readonly [K in ReactorKey]: ReactorEntry<WriterOf<K>, RegisteredStates[K]> } = {
  notifications: {
    name: NOTIFICATIONS,
    sqlite: sqliteNotificationsState,
    mongo: () => import('../reactors/notifications/state/mongo.ts').then((m) => m.mongoNotificationsState),
  },
  pageEffects: {
    name: PAGE_EFFECTS,
    sqlite: sqlitePageEffectsState,
    mongo: () => import('../reactors/status-pages/state/mongo.ts').then((m) => m.mongoPageEffectsState),
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
 *  a rebuild never replaces. */
export const openSqliteReactorStates = (
  file: string,
  { faults }: { faults?: StoreFaults } = {},
): Promise<ReactorStates> =>
  openSqliteStores<ReactorStates>(file, (db) => ({
    stores: perReactor<ReactorStates['stores']>(
      (entry) => new SqliteProjectionStore(db, entry.name, entry.sqlite, { faults }),
    ),
    queries: {
      ...perReactor<RegisteredStates>((entry) => entry.sqlite.queries(db)),
      sinks: sqliteSinkStates(db, { faults }),
    },
  }));
