import { Agenda, type AgendaBackend, type Job, type JobParameters } from 'agenda';
import type { Logger } from 'pino';
import type { CommandDeps } from '../commands/handle.ts';
import { loadMonitor, recordCheck, watchHeartbeat } from '../commands/monitors.ts';
import type { MonitorView, MonitorsQueries } from '../views/monitors/port.ts';
import { probe } from '../checks/probe.ts';
import type { EgressPolicy } from '../checks/egress.ts';
import { MAX_TIMEOUT_SECONDS, decideTransition, retryIntervalSeconds, type MonitorState } from '../domain/monitor.ts';
import { HEARTBEAT_WATCH_SECONDS } from '../domain/heartbeat.ts';
import { NO_JOB_METRICS, type CheckOutcome, type JobMetrics } from './metrics.ts';
import { withTimeout } from '../deadline.ts';

export const CHECK_JOB = 'monitor-check';
/** Brings the check jobs in step with the monitors read model; one worker at a time. */
export const RECONCILE_JOB = 'monitor-jobs-reconcile';

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

interface CheckJobData {
  monitor_id: string;
}

export interface WorkerJobsOptions {
  /** How often Agenda looks for due jobs (and locks those due before its next look). */
  processEveryMs?: number;
  /** How often the jobs are compared with the monitors read model (by one worker). */
  reconcileEveryMs?: number;
  /** Where the read model has a scheduleVersion, a comparison is skipped while it stays the same,
   *  but never for longer than this. */
  fullReconcileEveryMs?: number;
  /** Checks running at once in this process (they mostly wait on the network). */
  concurrency?: number;
  /** How long a running repeating job holds its job's lock: past it, another worker may take the
   *  job. A check's lock lasts at most CHECK_LOCK_MS, renewed while the check runs. Agenda also
   *  keeps a timer of half of it per run, so tests use a short one. */
  lockLifetimeMs?: number;
  /** How long start-up waits for the job store. */
  startTimeoutMs?: number;
  now?: () => Date;
  /** Maintenance and scans (log trim, anomaly scan). */
  repeating?: readonly RepeatingJob[];
  /** How long to wait before checking again a monitor that fails just after a restart. */
  recheckDelayMs?: number;
}

/** How late a check started against its schedule, in seconds: Agenda runs a repeating job one
 *  interval after its previous run started, so the schedule is the previous check (as the
 *  monitors read model has it, whichever worker made it) plus the interval. Null without a
 *  previous check, or when the monitor changed since (a new interval, or enabled again). */
export const latenessOf = (
  view: Pick<MonitorView, 'last_checked_at' | 'updated_at'> | null,
  intervalSeconds: number,
  checkedAt: string,
): number | null => {
  if (view?.last_checked_at == null || Date.parse(view.last_checked_at) < Date.parse(view.updated_at)) return null;
  const due = Date.parse(view.last_checked_at) + intervalSeconds * 1000;
  return Math.max(0, Date.parse(checkedAt) - due) / 1000;
};

/** How long a check's lock lasts unless renewed. Agenda keeps each run's job in memory for half
 *  of the lock's lifetime after the run (its liveness timer is never cleared): with the 150 s of
 *  the repeating jobs, 75,000 jobs at 1,000 checks/s, most of the heap and of its collections. */
const CHECK_LOCK_MS = 15_000;

/** Check jobs a worker holds at once (running, or due before its next scan), per check it may
 *  run at once. */
const CHECK_LOCK_LIMIT_FACTOR = 2;

/** A reconciliation holds its job's lock for at most this long: a worker that dies while
 *  reconciling delays the next reconciliation by it, not by a check's long lock. */
const RECONCILE_LOCK_MS = 60_000;

/** What a monitor's stored job must change to follow it, or null when it already does. A new
 *  interval starts over now, and so does a monitor enabled again, as a new monitor does: each is
 *  checked at once. Pausing only sets the flag. */
export const scheduleChangesFor = (
  job: Pick<JobParameters, 'repeatInterval' | 'disabled'>,
  monitor: Pick<MonitorView, 'interval_seconds' | 'enabled'> & Partial<Pick<MonitorView, 'type'>>,
  now: Date,
): JobScheduleChanges | null => {
  const changes: JobScheduleChanges = {};
  const intervalMs = jobIntervalSeconds(monitor) * 1000;
  if (Number(job.repeatInterval) !== intervalMs) {
    changes.repeatInterval = intervalMs;
    changes.nextRunAt = now;
  }
  const enabled = job.disabled !== true;
  if (enabled !== monitor.enabled) {
    changes.disabled = !monitor.enabled;
    if (monitor.enabled) changes.nextRunAt = now;
  }
  return Object.keys(changes).length > 0 ? changes : null;
};

/** How often a monitor's job runs: its interval, or for a heartbeat monitor the watch period. */
export const jobIntervalSeconds = (
  m: Pick<MonitorView, 'interval_seconds'> & Partial<Pick<MonitorView, 'type'>>,
): number => (m.type === 'heartbeat' ? Math.min(HEARTBEAT_WATCH_SECONDS, m.interval_seconds) : m.interval_seconds);

const monitorIdOf = (job: Pick<JobParameters, 'data'>): string | null => {
  const { data } = job;
  if (typeof data !== 'object' || data === null || !('monitor_id' in data)) return null;
  return typeof data.monitor_id === 'string' ? data.monitor_id : null;
};

/** The worker's Agenda jobs: the `repeating` ones, and one repeating job per monitor (unique on
 *  the monitor id, disabled while the monitor is paused; the first check runs at once). Monitor
 *  jobs follow the monitors read model: every `reconcileEveryMs` a new monitor gets its job, a job
 *  whose monitor changed interval or enabled flag has just those fields changed (its lock stays,
 *  so a check under way is not run a second time elsewhere), and the job of a deleted monitor is
 *  cancelled. Reconciling from the read model rather than reacting to each event means a missed
 *  event, a crash between two writes, or a restart all converge to the same jobs. The
 *  reconciliation is itself a single repeating Agenda job, so its lock lets one worker at a time
 *  run it, with no lease of our own; were that worker to die, the lock expires and another takes
 *  over. A job handler only calls commands: it reads the monitor from its stream, checks, and
 *  records. */
export class WorkerJobs {
  readonly agenda: Agenda;
  private reconciling: Promise<void> = Promise.resolve();
  private readonly reconcileEveryMs: number;
  private readonly fullReconcileEveryMs: number;
  /** The read model's scheduleVersion at the last comparison that went through, and when. */
  private compared: { version: string; at: number } | null = null;
  private readonly startTimeoutMs: number;
  private readonly now: () => Date;
  private readonly repeating: readonly RepeatingJob[];
  private readonly lockLifetimeMs: number;
  private readonly checkLockMs: number;
  private readonly startedAt: number;
  private readonly recheckDelayMs: number;
  /** Job runs under way in this process (from Agenda's start to its complete). */
  private running = 0;
  private whenIdle: Array<() => void> = [];

  constructor(
    private readonly backend: JobStoreBackend,
    private readonly deps: CommandDeps & {
      readonly monitors: Pick<MonitorsQueries, 'list' | 'get' | 'scheduleVersion'>;
      readonly egress: EgressPolicy;
      /** Where checks are counted and timed (default: nowhere). */
      readonly metrics?: JobMetrics;
    },
    private readonly logger: Logger,
    options: WorkerJobsOptions = {},
  ) {
    this.reconcileEveryMs = options.reconcileEveryMs ?? 1000;
    this.fullReconcileEveryMs = options.fullReconcileEveryMs ?? 60_000;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.now = options.now ?? (() => new Date());
    this.startedAt = this.now().getTime();
    this.recheckDelayMs = options.recheckDelayMs ?? 1000;
    this.repeating = options.repeating ?? [];
    // Above the longest check (MAX_TIMEOUT_SECONDS) with room for recording it.
    this.lockLifetimeMs = options.lockLifetimeMs ?? (MAX_TIMEOUT_SECONDS + 30) * 1000;
    this.checkLockMs = Math.min(this.lockLifetimeMs, CHECK_LOCK_MS);
    const concurrency = options.concurrency ?? 200;
    this.agenda = new Agenda({
      backend,
      name: `watchlog-${process.pid}`,
      // Agenda locks the jobs due before its next scan and keeps them in one array, which it walks
      // and re-sorts (by insertion) at every job start and end: its cost grows with the square of
      // the jobs locked ahead, which a scan every 500 ms made ~500 at 1,000 checks/s (measured:
      // the process saturated at ~3,000 monitors). A scan every 100 ms keeps ~100 there.
      processEvery: options.processEveryMs ?? 100,
      maxConcurrency: concurrency,
      defaultConcurrency: concurrency,
      defaultLockLimit: 0,
      lockLimit: 0,
    });
    this.agenda.on('error', (err) => this.logger.error({ err }, 'job scheduler error'));
    this.agenda.on('start', () => {
      this.running += 1;
    });
    this.agenda.on('complete', () => {
      this.running -= 1;
      if (this.running > 0) return;
      const waiting = this.whenIdle;
      this.whenIdle = [];
      for (const resolve of waiting) resolve();
    });
    this.agenda.define<CheckJobData>(
      CHECK_JOB,
      // biome-ignore lint/nursery/noMisusedPromises: Agenda's define() takes async processors and awaits them
      async (job: Job<CheckJobData>) => {
        const retryAt = await this.holding(job, () => this.check(job.attrs.data.monitor_id));
        // Agenda saves the job's nextRunAt when the run ends: an unconfirmed failure is checked
        // again after the retry interval, then the interval goes on from there.
        if (retryAt !== null && (job.attrs.nextRunAt === null || retryAt < job.attrs.nextRunAt))
          job.attrs.nextRunAt = retryAt;
      },
      {
        concurrency,
        // Checks that cannot start (all `concurrency` running) stay unlocked in the store, for
        // another worker or the next scan, rather than in that array: there, each would make
        // every job start and end slower, and a worker behind its checks only fall further behind.
        lockLimit: CHECK_LOCK_LIMIT_FACTOR * concurrency,
        lockLifetime: this.checkLockMs,
      },
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
    // reconcile() logs its own failures, so the job never fails.
    // biome-ignore lint/nursery/noMisusedPromises: Agenda's define() takes async processors and awaits them
    this.agenda.define(RECONCILE_JOB, () => this.reconcile(), {
      lockLifetime: Math.min(this.lockLifetimeMs, RECONCILE_LOCK_MS),
      concurrency: 1,
    });
  }

  /** The repeating jobs, the reconciliation among them. */
  private schedules(): Array<Pick<RepeatingJob, 'name' | 'everyMs'>> {
    return [...this.repeating, { name: RECONCILE_JOB, everyMs: this.reconcileEveryMs }];
  }

  /** Starts the scheduler; rejects (never hangs) when the job store cannot be reached. The check
   *  jobs are brought in step by the first reconciliation, within `processEveryMs` on a new store. */
  async start(): Promise<void> {
    this.defineRepeating();
    await withTimeout(
      this.agenda.start(),
      this.startTimeoutMs,
      `the job store did not answer within ${this.startTimeoutMs} ms`,
    );
    for (const job of this.schedules()) await this.ensureRepeating(job.name, job.everyMs);
  }

  /** Agenda's every(), but a job that exists only has its interval changed: every() saves the
   *  whole job, which would unlock it while another worker runs it (a second anomaly scan, or a
   *  second reconciliation, at once). */
  private async ensureRepeating(name: string, everyMs: number): Promise<void> {
    const existing = (await this.agenda.queryJobs({ name })).jobs.find((job) => job.type === 'single');
    if (existing?._id === undefined) {
      await this.agenda.every(everyMs, name);
      return;
    }
    if (Number(existing.repeatInterval) !== everyMs)
      await this.backend.updateSchedule(String(existing._id), { repeatInterval: everyMs });
  }

  /** Job runs under way in this process. */
  runningNow(): number {
    return this.running;
  }

  /** Starts no more runs, and unlocks the jobs this process had locked but not started, so the
   *  next process runs them at once; a run already under way finishes (a check records its
   *  result) and saves its job. The caller closes the job store afterwards. */
  async stop(): Promise<void> {
    await this.reconciling;
    await this.agenda.stop(false);
    // A run that had passed Agenda's last check when it stopped reports its start after a turn.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.running > 0) await new Promise<void>((resolve) => this.whenIdle.push(resolve));
  }

  /** Brings the check jobs in step with the monitors read model now; at most one reconciliation
   *  at a time in this process. The reconcile job calls it in the worker that holds that job. */
  reconcile(): Promise<void> {
    this.reconciling = this.reconciling
      .then(() => this.reconcileOnce())
      .catch((err: unknown) => {
        this.logger.error({ err }, 'could not bring monitor jobs in step with the monitors');
      });
    return this.reconciling;
  }

  /** Compares with the stored jobs rather than with what this process saved: the reconciling
   *  worker changes from run to run. Listing every monitor and every job each second is most of a
   *  worker's work at 10,000 monitors, so while the read model's scheduleVersion stays as it was at
   *  this worker's last comparison, the comparison waits, up to fullReconcileEveryMs (which also
   *  bounds how long a job changed behind the monitors' back stays so). */
  private async reconcileOnce(): Promise<void> {
    // Read first: a change made while the comparison runs gives the next pass a new version.
    const version = await this.deps.monitors.scheduleVersion?.();
    const now = Date.now();
    const { compared } = this;
    if (version !== undefined && compared?.version === version && now - compared.at < this.fullReconcileEveryMs) return;
    this.compared = null;
    await this.compare();
    if (version !== undefined) this.compared = { version, at: now };
  }

  private async compare(): Promise<void> {
    const [monitors, stored] = await Promise.all([this.deps.monitors.list({ all: true }), this.checkJobs()]);
    const wanted = new Set<string>();
    for (const m of monitors) {
      wanted.add(m.id);
      const job = stored.get(m.id);
      if (job === undefined) await this.createCheckJob(m);
      else await this.followMonitor(job, m);
    }
    for (const id of stored.keys()) {
      if (wanted.has(id)) continue;
      // Absent from the read model may only mean "not projected yet" (a rebuild, a new read
      // store): the monitor's own stream decides whether it is really gone.
      const { state } = await loadMonitor(this.deps, id);
      if (state.id !== null && !state.deleted) continue;
      await this.agenda.cancel({ name: CHECK_JOB, data: { monitor_id: id } });
    }
  }

  /** The stored check jobs by monitor id. */
  private async checkJobs(): Promise<Map<string, JobParameters>> {
    const byMonitor = new Map<string, JobParameters>();
    for (const job of (await this.agenda.queryJobs({ name: CHECK_JOB })).jobs) {
      const monitorId = monitorIdOf(job);
      if (monitorId !== null) byMonitor.set(monitorId, job);
    }
    return byMonitor;
  }

  /** insertOnly: should the job have appeared since it was looked for, it is left as it is (a
   *  save would unlock it) and the next reconciliation compares it. */
  private async createCheckJob(m: Pick<MonitorView, 'id' | 'interval_seconds' | 'enabled' | 'type'>): Promise<void> {
    const job = this.agenda
      .create<CheckJobData>(CHECK_JOB, { monitor_id: m.id })
      .unique({ 'data.monitor_id': m.id }, { insertOnly: true })
      .repeatEvery(jobIntervalSeconds(m) * 1000, { skipImmediate: false });
    if (m.enabled) job.enable();
    else job.disable();
    await job.save();
  }

  private async followMonitor(
    job: JobParameters,
    m: Pick<MonitorView, 'interval_seconds' | 'enabled' | 'type'>,
  ): Promise<void> {
    // Agenda schedules on the wall clock, whatever clock stamps the checks.
    const changes = scheduleChangesFor(job, m, new Date());
    if (changes !== null && job._id !== undefined) await this.backend.updateSchedule(String(job._id), changes);
  }

  /** Runs `work` renewing the job's lock every third of its lifetime, so that a check that takes
   *  longer (a slow target, a check made again after a restart) keeps its job. A renewal still
   *  under way when the work ends is waited for: landing after Agenda's final save, it would lock
   *  the job again until the lock expired. */
  private async holding<T>(job: Job, work: () => Promise<T>): Promise<T> {
    let renewing = Promise.resolve();
    const timer = setInterval(() => {
      renewing = renewing
        .then(() => job.touch())
        .catch((err: unknown) => this.logger.warn({ err, job: job.attrs.name }, "could not renew a job's lock"));
    }, this.checkLockMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await renewing;
    }
  }

  /** The job's work: reads the monitor from its stream, checks it (a heartbeat monitor: looks
   *  for a missed beat), records the result. Resolves to when to check again sooner than the
   *  interval (a failure or recovery not yet confirmed), or null. */
  async check(monitorId: string): Promise<Date | null> {
    const metrics = this.deps.metrics ?? NO_JOB_METRICS;
    let outcome: CheckOutcome | null = null;
    const ctx = { actor: 'system:monitor', correlationId: monitorId, now: this.now };
    try {
      // The read model's last check is read beside the stream, for the check's lateness only.
      const [loaded, view] = await Promise.all([
        loadMonitor(this.deps, monitorId),
        this.deps.metrics ? this.deps.monitors.get(monitorId, { all: true }).catch(() => null) : null,
      ]);
      const { state } = loaded;
      if (state.id === null || state.deleted || !state.settings.enabled) return null;
      if (state.settings.type === 'heartbeat') {
        const handled = await watchHeartbeat(this.deps, monitorId, ctx, loaded);
        outcome = handled === null ? 'up' : 'down';
        this.logTransitions(monitorId, handled?.events ?? []);
        return this.retryAt(handled?.state ?? state);
      }
      let probed = await probe(state.settings, this.deps.egress, this.now);
      const lateness = latenessOf(view, state.settings.interval_seconds, probed.result.checked_at);
      // Within its first interval after a restart, a failure that would take a monitor DOWN is
      // checked again first: what failed may be what restarted with watchlog (its own health
      // endpoint, a service started beside it), and a DOWN and UP pair would page people for it.
      const sinceStart = this.now().getTime() - this.startedAt;
      if (
        sinceStart < state.settings.interval_seconds * 1000 &&
        decideTransition(state, probed.result)?.type === 'MonitorWentDown'
      ) {
        this.logger.debug(
          { monitor_id: monitorId, error: probed.result.error },
          'a check failed just after a restart; checking again before going DOWN',
        );
        await new Promise((r) => setTimeout(r, this.recheckDelayMs));
        probed = await probe(state.settings, this.deps.egress, this.now);
      }
      const { result, refused } = probed;
      const handled = await recordCheck(this.deps, monitorId, result, ctx, loaded);
      outcome = result.ok ? 'up' : refused ? 'blocked' : 'down';
      metrics.checked(outcome, result.response_ms / 1000, lateness);
      this.logTransitions(monitorId, handled.events);
      return this.retryAt(handled.state);
    } catch (error) {
      if (outcome === null) metrics.checked('error', null, null);
      throw error;
    }
  }

  private logTransitions(monitorId: string, events: ReadonlyArray<{ type: string }>): void {
    for (const e of events) {
      if (e.type === 'MonitorWentDown' || e.type === 'MonitorCameUp')
        this.logger.info({ monitor_id: monitorId, transition: e.type }, 'monitor state changed');
    }
  }

  /** While a change of state is unconfirmed, the next check comes after the retry interval. */
  private retryAt(state: MonitorState): Date | null {
    if (state.streak === null) return null;
    return new Date(Date.now() + retryIntervalSeconds(state.settings) * 1000);
  }
}
