import type { Logger } from 'pino';
import type { MonitorsQueries } from '../views/monitors/port.ts';
import { CheckSchedule, type Changed, type Entry, type ScheduledMonitor } from './check-schedule.ts';

/** Runs a worker's monitor checks on time: a timer per monitor of the shards this worker holds,
 *  at most `concurrency` checks at once (a due check beyond them waits its turn, first due first).
 *  The schedule follows the monitors read model: every `syncEveryMs` its scheduleVersion is read,
 *  and the monitors are listed again only when it changed (or `fullSyncEveryMs` passed). */

export interface CheckRunnerOptions {
  concurrency: number;
  syncEveryMs: number;
  fullSyncEveryMs: number;
}

/** Checks `monitorId`; resolves to when to check it again sooner than its interval, or null. */
export type Check = (monitorId: string, latenessSeconds: number | null) => Promise<Date | null>;

/** A shard this worker let go of and takes again within this long was not held by another worker
 *  long enough to check much: its schedule is kept, not read again from the read model. */
const CONTINUOUS_MS = 2000;

/** A listing of the monitors serves every caller within this long (a worker taking its shards at
 *  start-up lists them once). */
const LISTING_REUSE_MS = 1000;

export class CheckRunner {
  private readonly schedule = new CheckSchedule();
  private readonly held = new Set<number>();
  private readonly releasedAt = new Map<number, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Due, waiting for a free slot, in the order they fell due (and the same as a set). */
  private waiting: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Map<string, Promise<void>>();
  private listing: { at: number; monitors: Promise<ScheduledMonitor[]> } | null = null;
  /** The read model's scheduleVersion at the last sync that went through, and when. */
  private compared: { version: string; at: number } | null = null;
  private syncing: Promise<void> = Promise.resolve();
  private syncTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Whether the monitors have been listed once. */
  private synced = false;

  constructor(
    private readonly monitors: Pick<MonitorsQueries, 'scheduled' | 'scheduleVersion'>,
    private readonly check: Check,
    private readonly logger: Logger,
    private readonly options: CheckRunnerOptions,
  ) {}

  start(): void {
    this.syncTimer = setInterval(() => void this.sync(), this.options.syncEveryMs);
  }

  /** When this worker checks `monitorId` next (epoch ms), or null when it does not (paused,
   *  deleted, another worker's shard). */
  dueAt(monitorId: string): number | null {
    const entry = this.schedule.entries.get(monitorId);
    return entry === undefined || !this.held.has(entry.shard) ? null : entry.due.at;
  }

  /** Checks under way. */
  inFlight(): number {
    return this.running.size;
  }

  /** Starts checking the monitors of `shard`. Taken over from another worker (or for the first
   *  time), each is due as the read model says; taken back after a moment, as this worker had it. */
  async hold(shard: number): Promise<void> {
    const released = this.releasedAt.get(shard);
    if (!this.synced || released === undefined || Date.now() - released > CONTINUOUS_MS) {
      const monitors = await this.list();
      // Once synced, the entries follow the syncs: a listing reused from before the last one
      // would bring back a monitor deleted since.
      if (!this.synced) this.apply(monitors);
      this.schedule.takeOver(shard, new Map(monitors.map((m) => [m.id, m])), Date.now());
    }
    if (this.stopped) return;
    this.held.add(shard);
    for (const entry of this.schedule.entries.values()) if (entry.shard === shard) this.arm(entry);
  }

  /** Stops starting checks of `shard`'s monitors; those under way finish and are recorded. */
  release(shard: number): void {
    this.held.delete(shard);
    this.releasedAt.set(shard, Date.now());
    for (const entry of this.schedule.entries.values()) if (entry.shard === shard) this.disarm(entry.id);
    this.unqueue((id) => this.schedule.entries.get(id)?.shard === shard);
  }

  private unqueue(which: (id: string) => boolean): void {
    if (this.queued.size === 0) return;
    this.waiting = this.waiting.filter((id) => !which(id) || !this.queued.delete(id));
  }

  /** Follows the read model now (at most one sync at a time). */
  sync(): Promise<void> {
    this.syncing = this.syncing
      .then(() => this.syncOnce())
      .catch((err: unknown) =>
        this.logger.error({ err }, 'could not bring the check schedule in step with the monitors'),
      );
    return this.syncing;
  }

  /** Starts no more checks and waits for those under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.syncTimer !== null) clearInterval(this.syncTimer);
    for (const id of [...this.timers.keys()]) this.disarm(id);
    this.waiting = [];
    this.queued.clear();
    await this.syncing;
    await Promise.all(this.running.values());
  }

  private async syncOnce(): Promise<void> {
    if (this.stopped) return;
    // Read first: a change made while listing gives the next pass a new version.
    const version = await this.monitors.scheduleVersion?.();
    const now = Date.now();
    const { compared } = this;
    if (version !== undefined && compared?.version === version && now - compared.at < this.options.fullSyncEveryMs)
      return;
    this.apply(await this.list(true));
    if (version !== undefined) this.compared = { version, at: now };
  }

  private list(fresh = false): Promise<ScheduledMonitor[]> {
    const now = Date.now();
    if (fresh || this.listing === null || now - this.listing.at > LISTING_REUSE_MS) {
      const monitors = this.monitors.scheduled();
      this.listing = { at: now, monitors };
      // A failed listing is not reused.
      monitors.catch(() => {
        if (this.listing?.monitors === monitors) this.listing = null;
      });
    }
    return this.listing.monitors;
  }

  private apply(monitors: readonly ScheduledMonitor[]): void {
    this.synced = true;
    for (const change of this.schedule.sync(monitors, Date.now())) this.follow(change);
  }

  private follow({ kind, entry }: Changed): void {
    if (kind === 'removed') {
      this.disarm(entry.id);
      this.unqueue((id) => id === entry.id);
    } else this.arm(entry);
  }

  private arm(entry: Entry): void {
    this.disarm(entry.id);
    // Running or waiting for a slot, it is armed again once its check ends.
    if (this.stopped || !this.held.has(entry.shard) || this.running.has(entry.id) || this.queued.has(entry.id)) return;
    const timer = setTimeout(() => this.fire(entry.id), Math.max(0, entry.due.at - Date.now()));
    this.timers.set(entry.id, timer);
  }

  private disarm(id: string): void {
    const timer = this.timers.get(id);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(id);
  }

  private fire(id: string): void {
    this.timers.delete(id);
    if (this.running.size < this.options.concurrency) this.run(id);
    else {
      this.waiting.push(id);
      this.queued.add(id);
    }
  }

  private run(id: string): void {
    const entry = this.schedule.entries.get(id);
    if (this.stopped || entry === undefined || !this.held.has(entry.shard) || this.running.has(id)) return;
    const startedAt = Date.now();
    const lateness = entry.due.scheduled ? Math.max(0, startedAt - entry.due.at) / 1000 : null;
    const done = this.check(id, lateness)
      .then(
        (retryAt) => this.schedule.checked(id, startedAt, retryAt?.getTime() ?? null),
        (err: unknown) => {
          this.logger.error({ err, monitor_id: id }, 'a monitor check failed; it runs again at its next time');
          return this.schedule.checked(id, startedAt, null);
        },
      )
      .then((next) => {
        this.running.delete(id);
        if (next !== null) this.arm(next);
        this.next();
      });
    this.running.set(id, done);
  }

  /** A slot is free: the longest waiting due check takes it. */
  private next(): void {
    while (this.running.size < this.options.concurrency) {
      const id = this.waiting.shift();
      if (id === undefined) return;
      this.queued.delete(id);
      this.run(id);
    }
  }
}
