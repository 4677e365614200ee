import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Runtime } from '../runtime.ts';
import { SqliteEventLog } from '../log/sqlite.ts';
import { anomalyScanJob } from './anomaly-scan.ts';
import type { RepeatingJob } from './worker-jobs.ts';

/** The jobs a worker runs besides the monitor checks. */
export const repeatingJobs = (
  runtime: Runtime, config: Pick<Config, 'anomalyDefaults' | 'anomalyScanMs'>, logger: Logger, now: () => Date, { trimEveryMs = 10 * 60_000 } = {},
): RepeatingJob[] => {
  const jobs: RepeatingJob[] = [anomalyScanJob({
    log: runtime.log, readModels: runtime.readModels, defaults: config.anomalyDefaults, intervalMs: config.anomalyScanMs,
    settled: (position) => runtime.settled(['anomaly-windows', 'stats-buckets', 'anomalies'], position), logger,
  }, now)];
  const log = runtime.log;
  // Deletes what the log's maxCount already hides (the embedded log keeps the rows until then),
  // so check history does not grow the log file.
  if (log instanceof SqliteEventLog) {
    jobs.push({
      name: 'log-trim',
      everyMs: trimEveryMs,
      async run() {
        const deleted = log.trim();
        if (deleted > 0) logger.info({ deleted }, 'trimmed events beyond their stream\'s maxCount');
      },
    });
  }
  return jobs;
};
