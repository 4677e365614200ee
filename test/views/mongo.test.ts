import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoReadModels } from '../../src/compose/read-models.ts';
import { leasesContract } from '../contracts/leases.ts';
import { readModelsContract } from '../contracts/read-models.ts';
import { loginThrottleContract } from '../contracts/login-throttle.ts';
import { mongoLoginThrottle } from '../../src/views/login-throttle/mongo.ts';

/** The same contracts on MongoDB, when WATCHLOG_MONGO_URL names a server; each test gets its own
 *  database, dropped afterwards. */
const url = process.env.WATCHLOG_MONGO_URL;

if (url === undefined) {
  test.skip('mongo read-model and lease contracts: skipped, WATCHLOG_MONGO_URL is not set', () => {});
} else {
  const open = async () => {
    const dbName = `watchlog_test_${randomUUID().slice(0, 8)}`;
    const readModels = await openMongoReadModels(url, { dbName });
    return {
      readModels,
      cleanup: async () => {
        await readModels.close();
        const client = await new MongoClient(url).connect();
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  };
  readModelsContract('mongo', open);
  leasesContract('mongo', open);
  loginThrottleContract('mongo', async (limits) => {
    const dbName = `watchlog_test_${randomUUID().slice(0, 8)}`;
    const client = await new MongoClient(url).connect();
    const throttle = await mongoLoginThrottle(client.db(dbName), limits);
    return {
      throttle,
      cleanup: async () => {
        await throttle.close();
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  });
}
