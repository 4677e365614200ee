import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { openMongoReadModels } from '../../src/compose/mongo-read-models.ts';
import { leasesContract } from '../contracts/leases.ts';
import { readModelsContract } from '../contracts/read-models.ts';
import type { OpenedReadModels } from '../contracts/read-models/harness.ts';
import { auditListCursor } from '../../src/views/audit-events/mongo.ts';
import { mongoPlan } from '../helpers/query-plans.ts';
import { loginThrottleContract } from '../contracts/login-throttle.ts';
import { mongoLoginThrottle } from '../../src/views/login-throttle/mongo.ts';
import type { StoreFaults } from '../../src/views/store/port.ts';

/** The same contracts on MongoDB, when WATCHLOG_MONGO_URL names a server; each test gets its own
 *  database, dropped afterwards. */
const url = process.env.WATCHLOG_MONGO_URL;

if (url === undefined) {
  test.skip('mongo read-model and lease contracts: skipped, WATCHLOG_MONGO_URL is not set', (t) => t.pass());
} else {
  const open = async () => {
    const dbName = `watchlog_test_${randomUUID().slice(0, 8)}`;
    const readModels = await openMongoReadModels(url, { dbName });
    return {
      readModels,
      another: (faults: StoreFaults) => openMongoReadModels(url, { dbName, faults }),
      ageSchema: async (projection: string) => {
        const client = await new MongoClient(url).connect();
        await client
          .db(dbName)
          .collection<{ _id: string; version: number }>('read_model_versions')
          .updateOne({ _id: projection }, { $inc: { version: -1 } });
        await client.close();
      },
      cleanup: async () => {
        await readModels.close();
        const client = await new MongoClient(url).connect();
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  };
  /** For the read-model contract, a second client that explains the list queries and rewinds
   *  checkpoints. */
  const openForContract = async (): Promise<OpenedReadModels> => {
    const dbName = `watchlog_test_${randomUUID().slice(0, 8)}`;
    const readModels = await openMongoReadModels(url, { dbName });
    const client = await new MongoClient(url).connect();
    const db = client.db(dbName);
    return {
      readModels,
      auditListPlan: async (q, scope) => {
        const page = auditListCursor(db, q, scope);
        if (!page) throw new Error('the scope sees no project: nothing to plan');
        return mongoPlan(await page.cursor.explain('queryPlanner'));
      },
      rewindCheckpoint: async (projection, position) => {
        await db
          .collection<{ _id: string; position: string | null }>('checkpoints')
          .updateOne({ _id: projection }, { $set: { position } });
      },
      cleanup: async () => {
        await readModels.close();
        await db.dropDatabase();
        await client.close();
      },
    };
  };
  readModelsContract('mongo', openForContract);
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
