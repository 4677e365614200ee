import { Agenda, type AgendaBackend, type Job, type JobParameters } from 'agenda';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { MonitorsQueries } from '../views/monitors/port.ts';
import { MAX_TIMEOUT_SECONDS } from '../domain/monitor.ts';
import { withTimeout } from '../deadline.ts';
import { SHARDS } from './check-schedule.ts';
import { CheckRunner } from './check-runner.ts';
import { checkMonitor, type MonitorCheckDeps } from './monitor-check.ts';

/** One job per shard of the monitors (check-schedule.ts): the worker running it checks that
 *  shard's monitors. */
export const SHARD_JOB = 'monitor-checks';

/** Jobs of earlier versions (one per monitor, and their reconciliation), removed at start. */
const RETIRED_JOBS = ['monitor-check', 'monitor-jobs-reconcile'];

/** When a job runs and whether it may; never who holds it. */
export type JobScheduleChanges = Partial<Pick<JobParameters, 'repeatInterval' | 'nextRunAt' | 'disabled'>>;

/** A job store that changes a stored job's schedule and nothing else. Agenda has no such call:
 *  its saves (Job.save(), every()) write every field, lockedAt included, so re-saving a running
 *  job unlocks it and another worker may run it a second time. */
export interface ScheduleUpdates {
  /** False when no job has that id. */
  updateSchedule(id: string, changes: JobScheduleChanges): Promise<boolean>;
}

export type JobStoreBackend = AgendaBackend & ScheduleUpdates;

/** A job that runs every `everyMs` in one worker at a time (Agenda's single repeating job). */
export interface RepeatingJob {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
}

interface ShardJobData {
  shard: number;
}

export interface WorkerJobsOptions {
  /** How often Agenda looks for due jobs (and locks those due before its next look). */
  processEveryMs?: number;
  /** How often the check schedule is compared with the monitors read model's scheduleVersion. */
  reconcileEveryMs?: number;
  /** The monitors are listed again at least this often, whatever the scheduleVersion says. */
  fullReconcileEveryMs?: number;
  /** Checks running at once in this process (they mostly wait on the network). */
  concurrency?: number;
  /** How long a running repeating job holds its job's lock: past it, another worker may take the
   *  job. A shard's lock lasts at most SHARD_LOCK_MS, renewed while the worker holds the shard.
   *  Agenda also keeps a timer of half of it per run, so tests use a short one. */
  lockLifetimeMs?: number;
  /** How long a worker holds a shard before letting Agenda hand it out again (to itself, most
   *  often: then its schedule goes on as it was). */
  shardLeaseMs?: number;
  /** How long start-up waits for the job store. */
  startTimeoutMs?: number;
  /** The worker's name in the jobs it locks (default `watchlog-<pid>`). */
  name?: string;
  now?: () => Date;
  /** Maintenance and scans (log trim, anomaly scan). */
  repeating?: readonly RepeatingJob[];
  /** How long to wait before checking again a monitor that fails just after a restart. */
  recheckDelayMs?: number;
}

/** How long a shard's lock lasts unless renewed: a worker that dies leaves its shards' monitors
 *  unchecked for about this long, until another worker's scan takes them. */
const SHARD_LOCK_MS = 15_000;

/** How long a worker holds a shard in one run of its job. */
const SHARD_LEASE_MS = 60_000;

/** The worker's Agenda jobs: the `repeating` ones, and one job per shard of the monitors.
 *
 *  Checks are not a job each: at 10,000 monitors every 10 s, Agenda's three job-store writes and
 *  its bookkeeping per run were most of a worker's CPU. Instead a shard's job, while a worker runs
 *  it, lets that worker check the shard's monitors on its own timers (CheckRunner); the job's lock,
 *  renewed while it runs, keeps every other worker off those monitors, and when a worker dies
 *  its lock expires and another worker's scan takes the shard. A run lasts `shardLeaseMs`, then
 *  Agenda hands the shard out again (usually to the same worker: its schedule goes on as it was),
 *  so shards spread over the workers there are. The schedule follows the monitors read model (new,
 *  paused, deleted, a new interval); a check only calls commands: it reads the monitor from its
 *  stream, checks, and records. */
export class WorkerJobs {
  readonly agenda: Agenda;
  private readonly runner: CheckRunner;
  private readonly startTimeoutMs: number;
  private readonly now: () => Date;
  private readonly repeating: readonly RepeatingJob[];
  private readonly lockLifetimeMs: number;
  private readonly shardLockMs: number;
  private readonly shardLeaseMs: number;
  private readonly startedAt: number;
  private readonly recheckDelayMs: number;
  /** Job runs under way in this process, shard holds among them (from Agenda's start to its
   *  complete, which comes after the run's job is saved). */
  private running = 0;
  private whenIdle: Array<() => void> = [];
  /** Wakes the shard runs when the worker stops. */
  private readonly stopping = new AbortController();

  constructor(
    private readonly backend: JobStoreBackend,
    private readonly deps: MonitorCheckDeps & {
      readonly monitors: Pick<MonitorsQueries, 'scheduled' | 'scheduleVersion'>;
    },
    private readonly logger: Logger,
    options: WorkerJobsOptions = {},
  ) {
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.now = options.now ?? (() => new Date());
    this.startedAt = this.now().getTime();
    this.recheckDelayMs = options.recheckDelayMs ?? 1000;
    this.repeating = options.repeating ?? [];
    // Above the longest check (MAX_TIMEOUT_SECONDS) with room for recording it.
    this.lockLifetimeMs = options.lockLifetimeMs ?? (MAX_TIMEOUT_SECONDS + 30) * 1000;
    this.shardLockMs = Math.min(this.lockLifetimeMs, SHARD_LOCK_MS);
    this.shardLeaseMs = options.shardLeaseMs ?? SHARD_LEASE_MS;
    // Every shard this worker holds waits on it.
    setMaxListeners(SHARDS + 1, this.stopping.signal);
    this.runner = new CheckRunner(deps.monitors, (id, lateness) => this.check(id, lateness), logger, {
      concurrency: options.concurrency ?? 200,
      syncEveryMs: options.reconcileEveryMs ?? 1000,
      fullSyncEveryMs: options.fullReconcileEveryMs ?? 60_000,
    });
    this.agenda = new Agenda({
      backend,
      name: options.name ?? `watchlog-${process.pid}`,
      // A shard let go at the end of its lease is taken again at the next scan: its checks due
      // in between start that much late.
      processEvery: options.processEveryMs ?? 200,
      // Every shard held at once, beside every repeating job (Agenda's default is 20 in all).
      maxConcurrency: SHARDS + this.repeating.length,
      defaultLockLimit: 0,
      lockLimit: 0,
    });
    this.agenda.on('error', (err) => this.logger.error({ err }, 'job scheduler error'));
    this.agenda.on('start', () => {
      this.running += 1;
    });
    this.agenda.on('complete', () => this.ran());
    this.agenda.define<ShardJobData>(
      SHARD_JOB,
      // biome-ignore lint/nursery/noMisusedPromises: Agenda's define() takes async processors and awaits them
      (job: Job<ShardJobData>) => this.holdShard(job),
      { concurrency: SHARDS, lockLimit: SHARDS, lockLifetime: this.shardLockMs },
    );
  }

  private defineRepeating(): void {
    for (const job of this.repeating) {
      this.agenda.define(
        job.name,
        // biome-ignore lint/nursery/noMisusedPromises: Agenda's define() takes async processors and awaits them
        async () => {
          try {
            await job.run();
          } catch (err) {
            this.logger.error({ err, job: job.name }, 'job failed; it runs again at its next time');
          }
        },
        { lockLifetime: this.lockLifetimeMs, concurrency: 1 },
      );
    }
  }

  private ran(): void {
    this.running -= 1;
    if (this.running > 0) return;
    const waiting = this.whenIdle;
    this.whenIdle = [];
    for (const resolve of waiting) resolve();
  }

  /** Starts the scheduler; rejects (never hangs) when the job store cannot be reached. */
  async start(): Promise<void> {
    this.defineRepeating();
    await withTimeout(
      this.agenda.start(),
      this.startTimeoutMs,
      `the job store did not answer within ${this.startTimeoutMs} ms`,
    );
    for (const name of RETIRED_JOBS) await this.agenda.cancel({ name });
    for (const job of this.repeating) await this.ensureRepeating(job.name, job.everyMs);
    for (let shard = 0; shard < SHARDS; shard++) await this.ensureShard(shard);
    this.runner.start();
  }

  /** Agenda's every(), but a job that exists only has its interval changed: every() saves the
   *  whole job, which would unlock it while another worker runs it (a second anomaly scan at once). */
  private async ensureRepeating(name: string, everyMs: number): Promise<void> {
    const existing = (await this.agenda.queryJobs({ name })).jobs.find((job) => job.type === 'single');
    if (existing?._id === undefined) {
      await this.agenda.every(everyMs, name);
      return;
    }
    if (Number(existing.repeatInterval) !== everyMs)
      await this.backend.updateSchedule(String(existing._id), { repeatInterval: everyMs });
  }

  /** A shard's job, due every second: a run that ends makes it due at once, and a dead worker's
   *  shard is due as soon as its lock expires. insertOnly: a job another worker holds is left as
   *  it is (a save would unlock it). */
  private async ensureShard(shard: number): Promise<void> {
    await this.agenda
      .create<ShardJobData>(SHARD_JOB, { shard })
      .unique({ 'data.shard': shard }, { insertOnly: true })
      .repeatEvery(1000, { skipImmediate: false })
      .save();
  }

  /** Checks under way and job runs (shard holds included) in this process. */
  runningNow(): number {
    return this.running + this.runner.inFlight();
  }

  /** Starts no more runs or checks, and unlocks the jobs this process had locked but not started;
   *  checks and runs under way finish (a check records its result), the shards' jobs are saved
   *  unlocked, so the next process takes them at once. The caller closes the job store afterwards. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.runner.stop();
    await this.agenda.stop(false);
    // A run that had passed Agenda's last check when it stopped reports its start after a turn.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.running > 0) await new Promise<void>((resolve) => this.whenIdle.push(resolve));
  }

  /** When this worker checks `monitorId` next (epoch ms), or null when it does not. */
  dueAt(monitorId: string): number | null {
    return this.runner.dueAt(monitorId);
  }

  /** Brings the check schedule in step with the monitors read model now. */
  reconcile(): Promise<void> {
    return this.runner.sync();
  }

  /** A shard job's run: the worker checks the shard's monitors for `shardLeaseMs`, renewing the
   *  job's lock every third of its lifetime; a renewal that fails (the lock lost, the store gone)
   *  ends the run at once, so two workers never both check the shard for long. */
  private async holdShard(job: Job<ShardJobData>): Promise<void> {
    const { shard } = job.attrs.data;
    const signal = this.stopping.signal;
    if (signal.aborted) return;
    await this.runner.hold(shard);
    const until = Date.now() + this.shardLeaseMs;
    try {
      while (!signal.aborted && Date.now() < until) {
        await pause(Math.min(this.shardLockMs / 3, until - Date.now()), signal);
        if (signal.aborted || Date.now() >= until) break;
        await job.touch();
      }
    } catch (err) {
      this.logger.warn({ err, shard }, "could not renew a monitor shard's lock; letting the shard go");
    } finally {
      this.runner.release(shard);
    }
  }

  /** One check of a monitor (`latenessSeconds` for the metrics). */
  check(monitorId: string, latenessSeconds: number | null = null): Promise<Date | null> {
    return checkMonitor(
      this.deps,
      this.logger,
      { now: this.now, startedAt: this.startedAt, recheckDelayMs: this.recheckDelayMs },
      monitorId,
      latenessSeconds,
    );
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
const pause = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
