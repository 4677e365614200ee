import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { MongoBackend } from '@agendajs/mongo-backend';
import { agendaBackendContract } from '@watchlog/agenda-sqlite/contract';

/** The Agenda backend contract on the official MongoDB backend, the reference for its semantics,
 *  when WATCHLOG_MONGO_URL names a server; each test gets its own database, dropped afterwards. */
const url = process.env.WATCHLOG_MONGO_URL;

if (url === undefined) {
  test.skip('agenda mongo backend contract: skipped, WATCHLOG_MONGO_URL is not set', () => {});
} else {
  agendaBackendContract('mongo', async () => {
    const client = await new MongoClient(url).connect();
    const db = client.db(`watchlog_agenda_${randomUUID().slice(0, 8)}`);
    return {
      backend: new MongoBackend({ mongo: db }),
      // A second backend on the same database: its own repository, as another process would have.
      openSecond: async () => new MongoBackend({ mongo: db }),
      cleanup: async () => {
        await db.dropDatabase();
        await client.close();
      },
    };
  });
}
