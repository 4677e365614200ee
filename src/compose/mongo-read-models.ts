import { MongoClient, type Db } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import type { ReactorKey, ReactorStates, RegisteredStates } from '../reactors/port.ts';
import { mongoSinkStates } from '../reactors/sinks/state/mongo.ts';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import type { Leases, StoreFaults } from '../views/store/port.ts';
import { MongoLeases, MongoProjectionStore, type MongoReadModel } from '../views/store/mongo.ts';
import { REACTORS, REACTOR_KEYS, perReactor } from './reactors.ts';
import { READ_MODEL_KEYS, READ_MODELS, migrateUnheld, perReadModel } from './read-models.ts';

/** The MongoDB side of the read-model and reactor registries, in a module of its own that the
 *  composition root imports only when `WATCHLOG_MONGO_URL` is set: the embedded default never
 *  loads the driver. */

export interface MongoStoreOptions {
  /** How long to wait for the server before failing. */
  timeoutMs?: number;
  /** The database (default: the URL's, else `watchlog`). */
  dbName?: string;
  faults?: StoreFaults;
}

type Adapter = MongoReadModel<unknown, unknown>;
interface Entry {
  readonly name: string;
  readonly mongo: () => Promise<Adapter>;
}

/** Each entry's MongoDB adapter, loaded (the driver with it). */
const loadAdapters = async <K extends string>(
  keys: readonly K[],
  entries: { readonly [key in K]: Entry },
): Promise<Map<K, Adapter>> => {
  const adapters = new Map<K, Adapter>();
  for (const key of keys) adapters.set(key, await entries[key].mongo());
  return adapters;
};

/** Each entry's store on `db` with this version's indexes (created idempotently), migrated where
 *  no live process holds its lease (the holder migrates it otherwise). */
const openStoresOn = async <K extends string>(
  db: Db,
  entries: { readonly [key in K]: Entry },
  adapters: ReadonlyMap<K, Adapter>,
  faults: StoreFaults | undefined,
): Promise<{ stores: Map<K, MongoProjectionStore<unknown>>; leases: Leases }> => {
  const stores = new Map<K, MongoProjectionStore<unknown>>();
  for (const [key, adapter] of adapters)
    stores.set(key, new MongoProjectionStore(db, entries[key].name, adapter, faults));
  for (const store of stores.values()) await store.open();
  const leases = new MongoLeases(db);
  await migrateUnheld([...stores.values()], leases);
  return { stores, leases };
};

const readModelsOn = async (
  db: Db,
  adapters: ReadonlyMap<ReadModelKey, Adapter>,
  faults: StoreFaults | undefined,
): Promise<Omit<ReadModels, 'close'>> => {
  const { stores, leases } = await openStoresOn(db, READ_MODELS, adapters, faults);
  return {
    ...perReadModel<Omit<ReadModels, 'leases' | 'stores' | 'close'>>((_entry, key) => adapters.get(key)!.queries(db)),
    leases,
    stores: perReadModel<ReadModels['stores']>((_entry, key) => stores.get(key)),
  };
};

const reactorStatesOn = async (
  db: Db,
  adapters: ReadonlyMap<ReactorKey, Adapter>,
  faults: StoreFaults | undefined,
): Promise<Omit<ReactorStates, 'close'>> => {
  const { stores, leases } = await openStoresOn(db, REACTORS, adapters, faults);
  return {
    ...perReactor<RegisteredStates>((_entry, key) => adapters.get(key)!.queries(db)),
    sinks: mongoSinkStates(db, faults),
    leases,
    stores: perReactor<ReactorStates['stores']>((_entry, key) => stores.get(key)),
  };
};

/** A client of `url` connected, and `use`d on its database; closed when `use` fails. Fails
 *  within `timeoutMs` when the server cannot be reached. */
const connected = async <T>(
  url: string,
  { timeoutMs = 5000, dbName }: MongoStoreOptions,
  use: (db: Db, client: MongoClient) => Promise<T>,
): Promise<T> => {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs });
  try {
    await client.connect();
    return await use(client.db(dbName ?? mongoDatabaseName(url)), client);
  } catch (error) {
    await client.close();
    throw error;
  }
};

/** Every read model in one MongoDB database. Indexes of this version are created at start-up,
 *  idempotently; a read model another version built is migrated by whoever holds its lease. */
export const openMongoReadModels = async (url: string, options: MongoStoreOptions = {}): Promise<ReadModels> => {
  const adapters = await loadAdapters(READ_MODEL_KEYS, READ_MODELS);
  return connected(url, options, async (db, client) => ({
    ...(await readModelsOn(db, adapters, options.faults)),
    close: () => client.close(),
  }));
};

/** The read models and the reactors' state in one MongoDB database, on one client, which is
 *  closed once both are. */
export const openMongoStores = async (
  url: string,
  options: MongoStoreOptions = {},
): Promise<{ readModels: ReadModels; reactorStates: ReactorStates }> => {
  const readModelAdapters = await loadAdapters(READ_MODEL_KEYS, READ_MODELS);
  const reactorAdapters = await loadAdapters(REACTOR_KEYS, REACTORS);
  return connected(url, options, async (db, client) => {
    let open = 2;
    const closer = () => {
      let closed = false;
      return async () => {
        if (closed) return;
        closed = true;
        open -= 1;
        if (open === 0) await client.close();
      };
    };
    return {
      readModels: { ...(await readModelsOn(db, readModelAdapters, options.faults)), close: closer() },
      reactorStates: { ...(await reactorStatesOn(db, reactorAdapters, options.faults)), close: closer() },
    };
  });
};

/** The database the URL names, or `watchlog` (without a name the driver would use "test").
 *  Parsed by the driver's own connection-string parser, which takes several hosts
 *  (`mongodb://h1:27017,h2:27017/watchlog?replicaSet=rs0`), unlike the WHATWG URL. */
export const mongoDatabaseName = (url: string): string =>
  decodeURIComponent(new ConnectionString(url).pathname.replace(/^\//, '')) || 'watchlog';
