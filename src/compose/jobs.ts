import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { anomalyScanJob } from '../jobs/anomaly-scan.ts';
import { logTrimJob } from '../jobs/log-trim.ts';
import { logCompactionJob } from '../jobs/log-compaction.ts';
import { erasureJob } from '../jobs/erasure.ts';
import { MAINTENANCE_CLOCK_EVERY_MS, maintenanceClockJob } from '../jobs/maintenance-clock.ts';
import { MaintenanceWindows } from '../jobs/maintenance-windows.ts';
import { retentionJob } from '../jobs/retention.ts';
import type { RetentionDeps } from '../commands/retention.ts';
import { WorkerJobs, type RepeatingJob, type WorkerJobsOptions } from '../jobs/worker-jobs.ts';
import type { JobMetrics } from '../jobs/metrics.ts';
import { openJobStore } from './job-store.ts';
import type { Runtime } from './runtime.ts';
import { StartupError } from '../startup-error.ts';
import type { ReadModelKey } from '../views/read-models.ts';

/** Changes to the worker's jobs that tests make: faster polling, short locks, their own clock. */
export interface WorkerJobsTuning {
  scheduler?: Omit<WorkerJobsOptions, 'repeating'>;
  /** The anomaly scan's clock (default: the wall clock). */
  scanNow?: () => Date;
  /** Called after each anomaly scan. */
  onScan?: () => void;
  trimEveryMs?: number;
  /** The retention and erasure jobs' clock (default: the wall clock). */
  retentionNow?: () => Date;
  /** How often the erasure job looks for requests (default ERASURE_EVERY_MS). */
  erasureEveryMs?: number;
  /** How often the maintenance clock looks (default MAINTENANCE_CLOCK_EVERY_MS). */
  maintenanceEveryMs?: number;
  /** How old the maintenance windows a check consults may be (default WINDOWS_REFRESH_MS). */
  maintenanceRefreshMs?: number;
}

/** Erasure requests wait at most this long for the job to take them. */
export const ERASURE_EVERY_MS = 2000;

/** The log and the audit rows that retention and erasure take, on this runtime. A read model
 *  that does not reach a position within a minute fails the run (tried again on the next). */
const redactionDeps = (
  runtime: Pick<Runtime, 'log' | 'readModels' | 'caughtUp'>,
  readModelKeys: readonly ReadModelKey[],
): RetentionDeps => ({
  log: runtime.log,
  redactable: (query, after, limit) => runtime.readModels.auditEvents.redactable(query, after, limit),
  subscriptionsOf: (projectId, email) => runtime.readModels.subscribers.withEmail(projectId, email),
  async caughtUp(position) {
    if (!(await runtime.caughtUp(readModelKeys, position, 60_000))) {
      throw new Error(
        `the ${readModelKeys.join(' and ')} read models did not reach log position ${position} within 60 s`,
      );
    }
  },
});

/** The retention job on this runtime's log and read models. */
export const retentionJobOf = (
  runtime: Pick<Runtime, 'log' | 'readModels' | 'caughtUp'>,
  everyMs: number,
  logger: Logger,
  now?: () => Date,
) =>
  retentionJob(
    { ...redactionDeps(runtime, ['auditEvents']), retention: runtime.readModels.retention },
    logger,
    everyMs,
    now,
  );

/** The erasure job on this runtime's log and read models; a request is done once the retention
 *  read model (its status) shows it. */
export const erasureJobOf = (
  runtime: Pick<Runtime, 'log' | 'readModels' | 'caughtUp'>,
  everyMs: number,
  logger: Logger,
  now?: () => Date,
) =>
  erasureJob(
    {
      ...redactionDeps(runtime, ['auditEvents', 'retention', 'subscribers']),
      retention: runtime.readModels.retention,
    },
    logger,
    everyMs,
    now,
  );

/** Monitor checks, the maintenance clock, the anomaly scan, retention, erasures and log upkeep on
 *  Agenda. A job store that cannot be reached stops start-up with a clear error. */
export const startWorkerJobs = async (
  runtime: Runtime,
  config: Pick<
    Config,
    | 'dataDir'
    | 'eventStoreUrl'
    | 'eventStoreNamespace'
    | 'mongoUrl'
    | 'anomalyDefaults'
    | 'anomalyScanMs'
    | 'retentionEveryMs'
    | 'logCompactionEveryMs'
  >,
  logger: Logger,
  tuning: WorkerJobsTuning & { metrics?: JobMetrics } = {},
): Promise<{ jobs: WorkerJobs; stop(): Promise<void> }> => {
  const { metrics } = tuning;
  let store: Awaited<ReturnType<typeof openJobStore>>;
  try {
    store = await openJobStore(config);
  } catch (error) {
    throw new StartupError(`cannot open the job store: ${(error as Error).message}`);
  }
  const scan = anomalyScanJob(
    {
      log: runtime.log,
      readModels: runtime.readModels,
      defaults: config.anomalyDefaults,
      intervalMs: config.anomalyScanMs,
      logger,
      metrics,
      caughtUp: (position) => runtime.caughtUp(['anomalyWindows', 'stats', 'anomalies'], position),
    },
    tuning.scanNow ?? (() => new Date()),
  );
  // One view of the maintenance windows per worker, for its checks and the clock alike.
  const windows = new MaintenanceWindows(runtime.readModels.maintenances, logger, {
    refreshMs: tuning.maintenanceRefreshMs,
  });
  const repeating: RepeatingJob[] = [
    tuning.onScan ? { ...scan, run: () => scan.run().then(tuning.onScan) } : scan,
    logTrimJob(runtime.log, logger, tuning.trimEveryMs),
    ...(config.logCompactionEveryMs === null
      ? []
      : [logCompactionJob(runtime.log, logger, config.logCompactionEveryMs)]),
    retentionJobOf(runtime, config.retentionEveryMs, logger, tuning.retentionNow),
    erasureJobOf(runtime, tuning.erasureEveryMs ?? ERASURE_EVERY_MS, logger, tuning.retentionNow),
    maintenanceClockJob({ log: runtime.log, windows }, logger, tuning.maintenanceEveryMs ?? MAINTENANCE_CLOCK_EVERY_MS),
  ];
  const jobs = new WorkerJobs(
    store.backend,
    { log: runtime.log, monitors: runtime.readModels.monitors, egress: runtime.egress, metrics, maintenance: windows },
    logger,
    { ...tuning.scheduler, repeating },
  );
  try {
    await jobs.start();
  } catch (error) {
    await store.close();
    throw new StartupError(`cannot start the job scheduler: ${(error as Error).message}`);
  }
  return {
    jobs,
    async stop() {
      await jobs.stop();
      await store.close();
    },
  };
};
