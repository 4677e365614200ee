import { Agenda, type AgendaBackend, type Job } from 'agenda';
import type { Logger } from 'pino';
import type { CommandDeps } from '../commands/handle.ts';
import { loadMonitor, recordCheck } from '../commands/monitors.ts';
import type { MonitorView, MonitorsQueries } from '../views/monitors/port.ts';
import { probe } from '../checks/http-probe.ts';
import type { EgressPolicy } from '../checks/egress.ts';
import { MAX_TIMEOUT_SECONDS, decideTransition } from '../domain/monitor.ts';
import { NO_JOB_METRICS, type CheckOutcome, type JobMetrics } from './metrics.ts';

export const CHECK_JOB = 'monitor-check';

/** A job that runs every `everyMs` in one worker at a time (Agenda's single repeating job). */
export interface RepeatingJob {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
}

interface CheckJobData { monitor_id: string }

export interface WorkerJobsOptions {
  /** How often Agenda looks for due jobs; also the worst extra delay of a check. */
  processEveryMs?: number;
  /** How often the jobs are compared with the monitors read model. */
  reconcileEveryMs?: number;
  /** Checks running at once in this process (they mostly wait on the network). */
  concurrency?: number;
  /** How long a running check holds its job's lock: past it, another worker may take the job.
   *  Agenda also keeps a timer of half of it per run, so tests use a short one. */
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
  view: Pick<MonitorView, 'last_checked_at' | 'updated_at'> | null, intervalSeconds: number, checkedAt: string,
): number | null => {
  if (view?.last_checked_at == null || Date.parse(view.last_checked_at) < Date.parse(view.updated_at)) return null;
  const due = Date.parse(view.last_checked_at) + intervalSeconds * 1000;
  return Math.max(0, Date.parse(checkedAt) - due) / 1000;
};

/** What a monitor's job must look like; a change means the job is saved again. */
const shapeOf = (m: Pick<MonitorView, 'interval_seconds' | 'enabled'>) => `${m.interval_seconds}:${m.enabled}`;

const withTimeout = <T>(work: Promise<T>, ms: number, message: string): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    work.then((v) => { clearTimeout(timer); resolve(v); }, (e: unknown) => { clearTimeout(timer); reject(e as Error); });
  });

/** The worker's Agenda jobs: the `repeating` ones, and one repeating job per enabled monitor
 *  (unique on the monitor id; the first check runs at once). Monitor jobs follow the monitors read
 *  model: every `reconcileEveryMs` the jobs whose monitor changed interval or enabled flag are
 *  saved again, and those whose monitor was deleted are cancelled. Reconciling from the read model rather than reacting to each event means a missed
 *  event, a crash between two writes, or a restart all converge to the same jobs. A job handler
 *  only calls commands: it reads the monitor from its stream, checks, and records. */
export class WorkerJobs {
  readonly agenda: Agenda;
  private readonly applied = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private reconciling: Promise<void> = Promise.resolve();
  private readonly reconcileEveryMs: number;
  private readonly startTimeoutMs: number;
  private readonly now: () => Date;
  private readonly repeating: readonly RepeatingJob[];
  private readonly lockLifetimeMs: number;
  private readonly startedAt: number;
  private readonly recheckDelayMs: number;
  /** Job runs under way in this process (from Agenda's start to its complete). */
  private running = 0;
  private whenIdle: Array<() => void> = [];

  constructor(
    backend: AgendaBackend,
    private readonly deps: CommandDeps & {
      readonly monitors: Pick<MonitorsQueries, 'list' | 'get'>;
      readonly egress: EgressPolicy;
      /** Where checks are counted and timed (default: nowhere). */
      readonly metrics?: JobMetrics;
    },
    private readonly logger: Logger,
    options: WorkerJobsOptions = {},
  ) {
    this.reconcileEveryMs = options.reconcileEveryMs ?? 1000;
    this.startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.now = options.now ?? (() => new Date());
    this.startedAt = this.now().getTime();
    this.recheckDelayMs = options.recheckDelayMs ?? 1000;
    this.repeating = options.repeating ?? [];
    // Above the longest check (MAX_TIMEOUT_SECONDS) with room for recording it.
    this.lockLifetimeMs = options.lockLifetimeMs ?? (MAX_TIMEOUT_SECONDS + 30) * 1000;
    this.agenda = new Agenda({
      backend,
      name: `watchlog-${process.pid}`,
      processEvery: options.processEveryMs ?? 500,
      maxConcurrency: options.concurrency ?? 200,
      defaultConcurrency: options.concurrency ?? 200,
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
    this.agenda.define<CheckJobData>(CHECK_JOB, async (job: Job<CheckJobData>) => this.check(job.attrs.data.monitor_id), {
      concurrency: options.concurrency ?? 200,
      lockLifetime: this.lockLifetimeMs,
    });
  }

  private defineRepeating(): void {
    for (const job of this.repeating) {
      this.agenda.define(job.name, async () => {
        try {
          await job.run();
        } catch (err) {
          this.logger.error({ err, job: job.name }, 'job failed; it runs again at its next time');
        }
      }, { lockLifetime: this.lockLifetimeMs, concurrency: 1 });
    }
  }

  /** Starts the scheduler; rejects (never hangs) when the job store cannot be reached. */
  async start(): Promise<void> {
    this.defineRepeating();
    await withTimeout(this.agenda.start(), this.startTimeoutMs, `the job store did not answer within ${this.startTimeoutMs} ms`);
    for (const job of (await this.agenda.queryJobs({ name: CHECK_JOB })).jobs) {
      const data = job.data as Partial<CheckJobData> | undefined;
      if (data?.monitor_id) {
        this.applied.set(data.monitor_id, shapeOf({ interval_seconds: Number(job.repeatInterval) / 1000, enabled: job.disabled !== true }));
      }
    }
    for (const job of this.repeating) await this.agenda.every(job.everyMs, job.name);
    await this.reconcile();
    this.timer = setInterval(() => void this.reconcile(), this.reconcileEveryMs);
    this.timer.unref();
  }

  /** Job runs under way in this process. */
  runningNow(): number {
    return this.running;
  }

  /** Starts no more runs, and unlocks the jobs this process had locked but not started, so the
   *  next process runs them at once; a run already under way finishes (a check records its
   *  result) and saves its job. The caller closes the job store afterwards. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.reconciling;
    await this.agenda.stop(false);
    // A run that had passed Agenda's last check when it stopped reports its start after a turn.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.running > 0) await new Promise<void>((resolve) => this.whenIdle.push(resolve));
  }

  /** Runs at most one reconciliation at a time. */
  reconcile(): Promise<void> {
    this.reconciling = this.reconciling.then(() => this.reconcileOnce()).catch((err: unknown) => {
      this.logger.error({ err }, 'could not bring monitor jobs in step with the monitors');
    });
    return this.reconciling;
  }

  private async reconcileOnce(): Promise<void> {
    const monitors = await this.deps.monitors.list({ all: true });
    const wanted = new Set<string>();
    for (const m of monitors) {
      wanted.add(m.id);
      const shape = shapeOf(m);
      if (this.applied.get(m.id) === shape) continue;
      const job = this.agenda.create<CheckJobData>(CHECK_JOB, { monitor_id: m.id })
        .unique({ 'data.monitor_id': m.id })
        .repeatEvery(m.interval_seconds * 1000, { skipImmediate: false });
      if (m.enabled) job.enable();
      else job.disable();
      await job.save();
      this.applied.set(m.id, shape);
    }
    for (const id of [...this.applied.keys()]) {
      if (wanted.has(id)) continue;
      // Absent from the read model may only mean "not projected yet" (a rebuild, a new read
      // store): the monitor's own stream decides whether it is really gone.
      const { state } = await loadMonitor(this.deps, id);
      if (state.id !== null && !state.deleted) continue;
      await this.agenda.cancel({ name: CHECK_JOB, data: { monitor_id: id } });
      this.applied.delete(id);
    }
  }

  /** The job's work: reads the monitor from its stream, checks it, records the result. */
  async check(monitorId: string): Promise<void> {
    const metrics = this.deps.metrics ?? NO_JOB_METRICS;
    let outcome: CheckOutcome | null = null;
    try {
      // The read model's last check is read beside the stream, for the check's lateness only.
      const [loaded, view] = await Promise.all([
        loadMonitor(this.deps, monitorId),
        this.deps.metrics ? this.deps.monitors.get(monitorId, { all: true }).catch(() => null) : null,
      ]);
      const { state } = loaded;
      if (state.id === null || state.deleted || !state.settings.enabled) return;
      let probed = await probe(state.settings, this.deps.egress, this.now);
      const lateness = latenessOf(view, state.settings.interval_seconds, probed.result.checked_at);
      // Within its first interval after a restart, a failure that would take a monitor DOWN is
      // checked again first: what failed may be what restarted with watchlog (its own health
      // endpoint, a service started beside it), and a DOWN and UP pair would page people for it.
      const sinceStart = this.now().getTime() - this.startedAt;
      if (sinceStart < state.settings.interval_seconds * 1000 && decideTransition(state, probed.result)?.type === 'MonitorWentDown') {
        this.logger.debug({ monitor_id: monitorId, error: probed.result.error }, 'a check failed just after a restart; checking again before going DOWN');
        await new Promise((r) => setTimeout(r, this.recheckDelayMs));
        probed = await probe(state.settings, this.deps.egress, this.now);
      }
      const { result, refused } = probed;
      const { events } = await recordCheck(this.deps, monitorId, result, {
        actor: 'system:monitor', correlationId: monitorId, now: this.now,
      }, loaded);
      outcome = result.ok ? 'up' : refused ? 'blocked' : 'down';
      metrics.checked(outcome, result.response_ms / 1000, lateness);
      for (const e of events) this.logger.info({ monitor_id: monitorId, transition: e.type }, 'monitor state changed');
    } catch (error) {
      if (outcome === null) metrics.checked('error', null, null);
      throw error;
    }
  }
}
