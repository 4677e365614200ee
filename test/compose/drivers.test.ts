import test from 'ava';
import { createRequire } from 'node:module';
import { READ_MODELS } from '../../src/compose/read-models.ts';
import { openStores } from '../../src/compose/stores.ts';
import { tempDir } from '../helpers/server.ts';

/** The MongoDB and KurrentDB drivers are loaded only when their URLs are configured: each costs
 *  every thread that loads it tens of MB, which the embedded default does not need. */

const loaded = (fragment: string) =>
  Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes(fragment));

// Serial, in this order: the second test loads the MongoDB adapters (and the driver).
test.serial('the embedded stores open without loading the MongoDB or KurrentDB driver', async (t) => {
  const stores = await openStores(
    { dataDir: tempDir(), eventStoreUrl: undefined, mongoUrl: undefined, eventStoreNamespace: 'watchlog' },
    { writerThread: false },
  );
  t.teardown(() => stores.close());
  t.deepEqual(loaded('/node_modules/mongodb/'), []);
  t.deepEqual(loaded('/node_modules/@kurrent/'), []);
  t.deepEqual(loaded('/node_modules/@grpc/'), []);
});

test.serial("every read model's MongoDB adapter loads when asked for", async (t) => {
  for (const [key, entry] of Object.entries(READ_MODELS)) {
    const adapter = await entry.mongo();
    t.is(typeof adapter.queries, 'function', key);
    t.is(typeof adapter.batchWriter, 'function', key);
    t.truthy(adapter.schema, key);
  }
  t.not(loaded('/node_modules/mongodb/').length, 0, 'the driver is loaded now');
});
