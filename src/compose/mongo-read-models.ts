import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import type { ReadModelKey, ReadModels } from '../views/read-models.ts';
import type { StoreFaults } from '../views/store/port.ts';
import { MongoLeases, MongoProjectionStore, type MongoReadModel } from '../views/store/mongo.ts';
import { READ_MODEL_KEYS, READ_MODELS, migrateUnheld, perReadModel } from './read-models.ts';

/** The MongoDB side of the read-model registry, in a module of its own that the composition root
 *  imports only when `WATCHLOG_MONGO_URL` is set: the embedded default never loads the driver. */

/** Every read model in one MongoDB database (`dbName`, else the URL's, else `watchlog`). Indexes
 *  of this version are created at start-up, idempotently; a read model another version built is
 *  migrated by whoever holds its lease. Fails within `timeoutMs` when the server cannot be
 *  reached, and closes its client whenever it fails. */
export const openMongoReadModels = async (
  url: string,
  { timeoutMs = 5000, dbName, faults }: { timeoutMs?: number; dbName?: string; faults?: StoreFaults } = {},
): Promise<ReadModels> => {
  const adapters = new Map<ReadModelKey, MongoReadModel<unknown, unknown>>();
  for (const key of READ_MODEL_KEYS)
    adapters.set(key, await (READ_MODELS[key].mongo as () => Promise<MongoReadModel<unknown, unknown>>)());
  const adapter = (key: ReadModelKey) => adapters.get(key)!;
  const client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs });
  try {
    await client.connect();
    const db = client.db(dbName ?? mongoDatabaseName(url));
    const stores = perReadModel<ReadModels['stores']>(
      (entry, key) => new MongoProjectionStore(db, entry.name, adapter(key), faults),
    );
    const all = Object.values(stores) as Array<MongoProjectionStore<unknown>>;
    for (const store of all) await store.open();
    const leases = new MongoLeases(db);
    await migrateUnheld(all, leases);
    return {
      ...perReadModel<Omit<ReadModels, 'leases' | 'stores' | 'close'>>((_entry, key) => adapter(key).queries(db)),
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
