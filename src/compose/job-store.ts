import path from 'node:path';
import { MongoClient } from 'mongodb';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { AgendaBackend } from 'agenda';
import { SqliteBackend } from '@watchlog/agenda-sqlite';
import { CHECK_JOB } from '../jobs/worker-jobs.ts';
import { mongoDatabaseName } from './read-models.ts';
import type { StoreConfig } from './stores.ts';

export const AGENDA_COLLECTION = 'agendaJobs';

/** Agenda's job store: `jobs.db` beside the log on the embedded default, the read models'
 *  MongoDB database in production. Either way a unique index on the monitor id of check jobs
 *  makes a duplicate check job impossible, even when two workers save one at the same moment
 *  (Agenda's `unique()` is a find-then-upsert, which can race). Fails within `timeoutMs` when the
 *  server cannot be reached. */
export const openJobStore = async (config: StoreConfig, timeoutMs = 5000): Promise<{ backend: AgendaBackend; close: () => Promise<void> }> => {
  if (config.mongoUrl === undefined) {
    const backend = new SqliteBackend(path.join(config.dataDir, 'jobs.db'));
    await backend.connect();
    await backend.ensureUniqueIndex(CHECK_JOB, 'monitor_id');
    return { backend, close: () => backend.disconnect() };
  }
  const client = new MongoClient(config.mongoUrl, { serverSelectionTimeoutMS: timeoutMs });
  await client.connect();
  const db = client.db(mongoDatabaseName(config.mongoUrl));
  await db.collection(AGENDA_COLLECTION).createIndex(
    { 'data.monitor_id': 1 }, { unique: true, partialFilterExpression: { name: CHECK_JOB }, name: 'monitor_check_unique' });
  return { backend: new MongoBackend({ mongo: db, collection: AGENDA_COLLECTION }), close: () => client.close() };
};
