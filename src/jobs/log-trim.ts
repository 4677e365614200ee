import type { Logger } from 'pino';
import type { EventLog } from '../log/event-log.ts';
import type { RepeatingJob } from './worker-jobs.ts';

export const LOG_TRIM_JOB = 'log-trim';

/** Deletes what the log's maxCount already hides (the embedded log keeps those rows until then),
 *  so check history does not grow the log file. */
export const logTrimJob = (log: EventLog, logger: Logger, everyMs = 10 * 60_000): RepeatingJob => ({
  name: LOG_TRIM_JOB,
  everyMs,
  async run() {
    const deleted = await log.trim();
    if (deleted > 0) logger.info({ deleted }, "trimmed events beyond their stream's maxCount");
  },
});
