import { parentPort, workerData } from 'node:worker_threads';
import { SqliteLogWriter, decodeAppends, openLogDatabase, type SerializedAppend } from './writer.ts';
import type { FromWriterThread, ToWriterThread } from './appender.ts';

/** The log's writer thread. Batches received in the same turn are committed together. */
const db = openLogDatabase((workerData as { file: string }).file);
const writer = new SqliteLogWriter(db);
let seqs: number[] = [];
let requests: SerializedAppend[] = [];
let scheduled = false;

const commit = () => {
  scheduled = false;
  if (requests.length === 0) return;
  // The commit's size and time travel back with its outcomes: metrics are kept by the thread
  // that serves them, never here.
  const { outcomes, stats } = writer.commitTimed(requests);
  parentPort!.postMessage({ type: 'committed', seqs, outcomes, stats } satisfies FromWriterThread);
  seqs = [];
  requests = [];
};

parentPort!.on('message', (message: ToWriterThread) => {
  if (message.type === 'close') {
    commit();
    db.close();
    parentPort!.close();
    return;
  }
  seqs.push(...message.seqs);
  requests.push(...decodeAppends(message.payload));
  if (!scheduled) {
    scheduled = true;
    setImmediate(commit);
  }
});
