import path from 'node:path';
import { SqliteBackend } from '@watchlog/agenda-sqlite';
import { SHARD_JOB, type JobStoreBackend } from '../jobs/worker-jobs.ts';
import type { StoreConfig } from './stores.ts';

export const AGENDA_COLLECTION = 'agendaJobs';

/** Agenda's job store: `jobs.db` beside the log on the embedded default, the read models'
 *  MongoDB database in production. Either way unique indexes make a duplicate shard job (on the
 *  shard) or a duplicate repeating job (on the name of 'single' jobs) impossible, even when
 *  two workers save one at the same moment (Agenda's `unique()` and `every()` are a
 *  find-then-upsert, which can race). Fails within `timeoutMs` when the server cannot be reached. */
export const openJobStore = async (
  config: StoreConfig,
  timeoutMs = 5000,
): Promise<{ backend: JobStoreBackend; close: () => Promise<void> }> => {
  if (config.mongoUrl === undefined) {
    const backend = new SqliteBackend(path.join(config.dataDir, 'jobs.db'));
    await backend.connect();
    await backend.ensureUniqueIndex(SHARD_JOB, 'shard');
    return { backend, close: () => backend.disconnect() };
  }
  const [{ MongoClient }, { MongoJobStore }, { mongoDatabaseName }] = await Promise.all([
    import('mongodb'),
    import('./mongo-job-store.ts'),
    import('./mongo-read-models.ts'),
  ]);
  const client = new MongoClient(config.mongoUrl, { serverSelectionTimeoutMS: timeoutMs });
  await client.connect();
  try {
    const db = client.db(mongoDatabaseName(config.mongoUrl));
    const backend = new MongoJobStore(db, AGENDA_COLLECTION);
    await backend.connect();
    await db
      .collection(AGENDA_COLLECTION)
      .createIndex(
        { 'data.shard': 1 },
        { unique: true, partialFilterExpression: { name: SHARD_JOB }, name: 'monitor_shard_unique' },
      );
    return { backend, close: () => client.close() };
  } catch (error) {
    await client.close();
    throw error;
  }
};
