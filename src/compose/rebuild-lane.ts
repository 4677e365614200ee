import { parentPort, workerData } from 'node:worker_threads';
import pino from 'pino';
import { Projector } from '../../projections/projector.ts';
import { bulkSqliteReadModels } from './read-models.ts';
import { timedRunners, type FromRebuildLane, type RebuildLaneData } from './rebuild.ts';
import { openLog } from './stores.ts';

/** A rebuild's second lane, on a thread of its own: the projections it was given, replayed in bulk
 *  from the log into a file of their own, which the rebuild then copies into the new generation
 *  (rebuild.ts). It opens its own handle on the log. */

const data = workerData as RebuildLaneData;
const post = (message: FromRebuildLane) => parentPort!.postMessage(message);

try {
  const log = await openLog(data.log, false);
  try {
    const bulk = bulkSqliteReadModels(data.file, new Set(data.projections));
    try {
      const runners = data.timed
        ? timedRunners(bulk.runners, (projection, ms) => post({ type: 'applied', projection, ms }))
        : bulk.runners;
      await new Projector(log, runners, bulk.leases, pino({ level: 'silent' })).catchUp(
        (projections, position, head) => post({ type: 'progress', projections, position, head }),
        { batchSize: data.batchSize },
      );
    } finally {
      bulk.close();
    }
  } finally {
    await log.close();
  }
  post({ type: 'done' });
} catch (error) {
  post({ type: 'failed', message: (error as Error).stack ?? String(error) });
}
