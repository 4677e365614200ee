import test from 'ava';
import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { agendaBackendContract } from '@watchlog/agenda-sqlite/contract';
import { AGENDA_COLLECTION } from '../../src/compose/job-store.ts';
import { MongoJobStore } from '../../src/compose/mongo-job-store.ts';

/** The Agenda backend contract on watchlog's MongoDB job store (the official repository of
 *  @agendajs/mongo-backend, the reference for the semantics, with its single-job index and
 *  updateSchedule), when WATCHLOG_MONGO_URL names a server; each test gets its own database,
 *  dropped afterwards. */
const url = process.env.WATCHLOG_MONGO_URL;

if (url === undefined) {
  test.skip('agenda mongo backend contract: skipped, WATCHLOG_MONGO_URL is not set', (t) => t.pass());
} else {
  agendaBackendContract(
    'mongo',
    async () => {
      const client = await new MongoClient(url).connect();
      const db = client.db(`watchlog_agenda_${randomUUID().slice(0, 8)}`);
      return {
        backend: new MongoJobStore(db, AGENDA_COLLECTION),
        // A second store on the same database: its own repository, as another process would have.
        openSecond: async () => new MongoJobStore(db, AGENDA_COLLECTION),
        cleanup: async () => {
          await db.dropDatabase();
          await client.close();
        },
      };
    },
    {
      updateSchedule: (backend, id, changes) => backend.updateSchedule(id, changes),
    },
  );
}
