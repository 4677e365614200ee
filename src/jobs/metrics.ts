/** What the worker's jobs tell the service's metrics (implemented in src/metrics/, where the
 *  metrics library is; jobs only see this interface). */

/** How a monitor check ended: `up` the expected status came back; `down` another status, a
 *  timeout or a connection error (what makes a monitor DOWN); `blocked` the egress policy refused
 *  the connection; `error` the check could not be run or recorded (the job failed). */
export type CheckOutcome = 'up' | 'down' | 'blocked' | 'error';

/** How an anomaly scan ended: `done`; `skipped` the read models were behind the log, nothing
 *  decided; `failed` it threw (it runs again at its next time). */
export type ScanOutcome = 'done' | 'skipped' | 'failed';

export interface JobMetrics {
  /** A monitor check. `responseSeconds`: its probe's time (null when it did not run);
   *  `latenessSeconds`: how long after its schedule it started (null when there is no previous
   *  check to measure from). */
  checked(outcome: CheckOutcome, responseSeconds: number | null, latenessSeconds: number | null): void;
  /** An anomaly scan and how long it took. */
  scanned(outcome: ScanOutcome, seconds: number): void;
}

export const NO_JOB_METRICS: JobMetrics = { checked: () => undefined, scanned: () => undefined };
