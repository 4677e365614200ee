import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { decodeEvent, type DomainEvent } from '../src/domain/events.ts';
import { comparePositions, type EventLog, type RecordedEvent, type Subscription } from '../src/log/event-log.ts';
import {
  LeaseLostError,
  leaseHolderId,
  type Lease,
  type Leases,
  type ProjectionStore,
} from '../src/views/store/port.ts';
import type { Projection } from './projection.ts';

export type Decoder = (recorded: RecordedEvent) => DomainEvent;

/** Decodes each event of a batch once, however many projections read it. */
export const batchDecoder = (): Decoder => {
  const decoded = new Map<RecordedEvent, DomainEvent>();
  return (recorded) => {
    let event = decoded.get(recorded);
    if (event === undefined) {
      event = decodeEvent(recorded.position, recorded.type, recorded.data);
      decoded.set(recorded, event);
    }
    return event;
  };
};

/** What a projector drives: something that follows the log from its own checkpoint, under a
 *  lease of its own name. A projection bound to its store is one (ProjectionRunner); a reactor is
 *  another (src/reactors/port.ts). */
export interface LogFollower {
  readonly name: string;
  checkpoint(): Promise<string | null>;
  process(batch: readonly RecordedEvent[], lease?: Lease, decode?: Decoder): Promise<void>;
  /** Called each time its lease is taken, before its next batch: brings its store to this
   *  version's schema (ProjectionStore.migrate), under the lease. */
  migrate(lease: Lease): Promise<void>;
}

/** A projection bound to its store, with the writer type hidden so runners of different read
 *  models fit in one list. What it built can be dropped and replayed from the log. */
export interface ProjectionRunner extends LogFollower {
  reset(lease?: Lease): Promise<void>;
}

/** The lease is taken under the runner's name and the checkpoint kept under the store's: they
 *  must be one name. */
export const bindProjection = <W>(projection: Projection<W>, store: ProjectionStore<W>): ProjectionRunner => {
  if (store.name !== projection.name)
    throw new Error(`projection ${projection.name} is bound to the store of ${store.name}`);
  const handled = new Set<string>(projection.handles);
  return {
    name: projection.name,
    checkpoint: () => store.checkpoint(),
    reset: (lease) => store.reset(lease),
    migrate: (lease) => store.migrate(lease),
    process: (batch, lease, decode = batchDecoder()) =>
      store.commit(
        batch,
        (recorded, writer) => {
          if (handled.has(recorded.type)) projection.apply(decode(recorded), recorded, writer);
        },
        lease,
      ),
  };
};

/** A catch-up found a projection leased by a live projector. */
export class LeasedElsewhereError extends Error {
  constructor(readonly projection: string) {
    super(
      `projection ${projection} is leased by a running worker; stop the service first (a killed ` +
        `worker's lease is freed at once on the embedded store, after WATCHLOG_PROJECTION_LEASE_MS on ` +
        `MongoDB)`,
    );
  }
}

export type ProgressListener = (projections: readonly string[], position: string, head: string | null) => void;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** A synchronous store (SQLite) settles every await at once: a loop of batches that are always
 *  ready never reaches the event loop's poll phase, so no timer (lease renewals, timeouts) and no
 *  socket (a sink's or a notification's answer, in a reactor on the same thread) is handled until
 *  it is caught up. A turn of the event loop between batches lets them in. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** How many log records a projector reads at once while behind, unless told otherwise. */
export const FULL_BATCH = 1000;

export const newLeaseHolder = () => leaseHolderId(hostname(), process.pid, threadId, randomUUID().slice(0, 8));

export interface ProjectorOptions {
  /** Once live (a batch smaller than `fullBatch` means caught up), wait this long before the
   *  next batch so it gathers more events: each commit rewrites the index pages it touches, so
   *  fewer, larger commits cost far less under load. Adds at most this much to the lag. */
  liveBatchDelayMs?: number;
  /** The most log records it reads at once (FULL_BATCH by default). */
  fullBatch?: number;
  /** How long a projection's lease lasts without renewal; a dead holder's projections move to
   *  another worker after this. Renewed every third of it, also while a batch is being written. */
  leaseTtlMs?: number;
  holder?: string;
}

/** A follower as the projector drives it: its lease when this projector holds it, and how far it
 *  has applied the log (its store's checkpoint, kept in memory while the lease is held). */
interface Member<R extends LogFollower> {
  readonly runner: R;
  readonly log: Logger;
  lease: Lease | null;
  position: string | null;
  retryAt: number;
  backoffMs: number;
}

interface Live {
  readonly subscription: Subscription;
  readonly batches: AsyncIterator<readonly RecordedEvent[]>;
  /** Where the next batch starts: after this position. */
  position: string | null;
  /** A `next()` still running when a wake-up (lease renewal, stop) interrupted the wait. */
  pending: Promise<IteratorResult<readonly RecordedEvent[]>> | null;
}

const lowestOf = (members: readonly Member<LogFollower>[]) =>
  members.reduce<string | null>(
    (low, m) => (comparePositions(m.position, low) < 0 ? m.position : low),
    members[0]!.position,
  );
const highestOf = (members: readonly Member<LogFollower>[]) =>
  members.reduce<string | null>((high, m) => (comparePositions(m.position, high) > 0 ? m.position : high), null);

/** Feeds the projections whose leases it holds (so among several workers, one runs each) from one
 *  read of the log: projections at the same position share every batch, read and decoded once.
 *  A projection behind the others (rebuilt, or just taken over) replays on its own until it
 *  reaches them, then joins the shared live subscription. A failing projection is retried from its
 *  checkpoint with backoff; the others keep going. Leases are taken and renewed between batches.
 *  A reactor runs the same way, in a projector of its own (its leases are the reactors'). */
export class Projector<R extends LogFollower = LogFollower> {
  private readonly members: Member<R>[];
  private live: Live | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private readonly wakers = new Set<() => void>();
  private readonly liveBatchDelayMs: number;
  private readonly fullBatch: number;
  private readonly leaseTtlMs: number;
  private leasesDueAt = 0;
  readonly holder: string;

  constructor(
    private readonly log: EventLog,
    readonly runners: readonly R[],
    private readonly leases: Leases,
    private readonly logger: Logger,
    options: ProjectorOptions = {},
  ) {
    this.liveBatchDelayMs = options.liveBatchDelayMs ?? 50;
    this.fullBatch = options.fullBatch ?? FULL_BATCH;
    this.leaseTtlMs = options.leaseTtlMs ?? 10_000;
    this.holder = options.holder ?? newLeaseHolder();
    this.members = runners.map((runner) => ({
      runner,
      log: logger.child({ projection: runner.name, holder: this.holder }),
      lease: null,
      position: null,
      retryAt: 0,
      backoffMs: 500,
    }));
  }

  start(): void {
    this.loop ??= this.drive();
  }

  /** Stops after the batch in hand is committed with its checkpoint, and releases the leases. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of [...this.wakers]) wake();
    await this.loop;
  }

  private async drive(): Promise<void> {
    try {
      while (!this.stopping) {
        if (Date.now() >= this.leasesDueAt) await this.renewLeases();
        const now = Date.now();
        const active = this.members.filter((m) => m.lease !== null && m.retryAt <= now);
        if (active.length === 0) {
          await this.untilDue().done;
          continue;
        }
        const front = highestOf(active);
        if (active.some((m) => comparePositions(m.position, front) < 0)) {
          await this.advanceLowest(active, this.fullBatch, 'retry');
          await turn();
          continue;
        }
        const batch = await this.nextLiveBatch(front);
        if (batch === null) continue;
        await this.apply(
          active.filter((m) => m.lease !== null),
          batch,
          'retry',
        );
        if (batch.length < this.fullBatch && !this.stopping) await sleep(this.liveBatchDelayMs);
        else await turn();
      }
    } finally {
      await this.closeLive();
      for (const m of this.members) {
        if (m.lease) await this.leases.release(m.runner.name, this.holder).catch(() => undefined);
        m.lease = null;
      }
    }
  }

  private async renewLeases(): Promise<void> {
    this.leasesDueAt = Date.now() + this.leaseTtlMs / 3;
    for (const m of this.members) {
      try {
        const lease = await this.leases.acquire(m.runner.name, this.holder, this.leaseTtlMs);
        if (lease && lease.token !== m.lease?.token) {
          // Taken (or taken back): first bring the store to this version's schema, which only
          // the lease holder may drop and rebuild.
          await m.runner.migrate(lease);
          m.position = await m.runner.checkpoint();
          m.lease = lease;
          m.retryAt = 0;
          m.log.debug({ token: lease.token }, 'projection lease acquired');
        } else if (!lease && m.lease) {
          m.lease = null;
          m.log.warn('projection lease lost');
        }
      } catch (err) {
        // Unsure whether the lease is still ours: stop writing; commits are fenced anyway.
        if (m.lease) m.log.warn({ err }, 'projection lease could not be renewed');
        m.lease = null;
      }
    }
  }

  /** Renews the leases this projector holds every third of their time while `work` runs, so a
   *  long batch (a slow store, a large catch-up) does not outlive its lease. A lease lost
   *  meanwhile is dropped; the fenced commit of its batch then fails. */
  private async renewingDuring<T>(members: readonly Member<R>[], work: () => Promise<T>): Promise<T> {
    let renewal = Promise.resolve();
    const timer = setInterval(() => {
      renewal = renewal.then(async () => {
        for (const m of members) {
          if (!m.lease) continue;
          const lease = await this.leases.acquire(m.runner.name, this.holder, this.leaseTtlMs).catch(() => null);
          if (lease?.token !== m.lease.token) {
            m.lease = null;
            m.log.warn('projection lease lost while a batch was written');
          }
        }
      });
    }, this.leaseTtlMs / 3);
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await renewal;
    }
  }

  /** Sleeps until the next lease renewal or retry, or until stopped (or cancelled). */
  private untilDue(): { done: Promise<void>; cancel: () => void } {
    const retries = this.members.filter((m) => m.lease !== null).map((m) => m.retryAt);
    const until = Math.min(this.leasesDueAt, ...retries);
    let wake: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), Math.max(1, until - Date.now()));
      wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      this.wakers.add(wake);
    });
    return { done, cancel: wake };
  }

  /** The next live batch after `from`, or null when a lease renewal or stop came first. */
  private async nextLiveBatch(from: string | null): Promise<readonly RecordedEvent[] | null> {
    if (this.live && comparePositions(this.live.position, from) !== 0) await this.closeLive();
    if (!this.live) {
      const subscription = this.log.subscribeAll(from, this.fullBatch);
      this.live = { subscription, batches: subscription[Symbol.asyncIterator](), position: from, pending: null };
    }
    const live = this.live;
    live.pending ??= live.batches.next();
    const due = this.untilDue();
    try {
      const result = await Promise.race([live.pending, due.done.then(() => null)]);
      if (result === null) return null;
      live.pending = null;
      if (result.done) {
        await this.closeLive();
        return null;
      }
      const last = result.value[result.value.length - 1];
      if (last) live.position = last.position;
      return result.value;
    } catch (err) {
      this.logger.error({ err, holder: this.holder }, 'log subscription failed; resubscribing');
      await this.closeLive();
      await sleep(500);
      return null;
    } finally {
      due.cancel();
    }
  }

  private async closeLive(): Promise<void> {
    const live = this.live;
    this.live = null;
    await live?.subscription.close();
  }

  /** Moves the projections at the lowest position forward by one batch, up to the next position
   *  another projection has reached (or `limit`), so that they then move together. */
  private async advanceLowest(
    members: readonly Member<R>[],
    batchSize: number,
    onError: 'retry' | 'throw',
    limit?: string | null,
  ): Promise<Member<R>[]> {
    const lowest = lowestOf(members);
    const group = members.filter((m) => comparePositions(m.position, lowest) === 0);
    const ahead = members.filter((m) => comparePositions(m.position, lowest) > 0);
    const upTo = ahead.length > 0 ? lowestOf(ahead) : (limit ?? null);
    let batch = await this.log.readAll(lowest, batchSize);
    if (upTo !== null) {
      const keep = batch.findIndex((e) => comparePositions(e.position, upTo) > 0);
      if (keep >= 0) batch = batch.slice(0, keep);
      // Nothing left up to `upTo` (trimmed streams leave gaps): the group is already there.
      if (batch.length === 0) for (const m of group) m.position = upTo;
    }
    if (batch.length > 0) await this.apply(group, batch, onError);
    return group;
  }

  private async apply(
    group: readonly Member<R>[],
    batch: readonly RecordedEvent[],
    onError: 'retry' | 'throw',
  ): Promise<void> {
    const last = batch[batch.length - 1];
    if (!last) return;
    const decode = batchDecoder();
    await this.renewingDuring(group, () =>
      Promise.all(
        group.map(async (m) => {
          const lease = m.lease;
          try {
            if (!lease) throw new LeaseLostError(m.runner.name, this.holder);
            await m.runner.process(batch, lease, decode);
            m.position = last.position;
            m.backoffMs = 500;
          } catch (err) {
            if (onError === 'throw') throw err;
            if (err instanceof LeaseLostError) {
              m.lease = null;
              m.log.warn('projection lease lost');
              return;
            }
            m.log.error({ err, retry_in_ms: m.backoffMs }, 'projection failed; retrying from its checkpoint');
            m.retryAt = Date.now() + m.backoffMs;
            m.backoffMs = Math.min(m.backoffMs * 2, 30_000);
            m.position = await m.runner.checkpoint().catch(() => m.position);
          }
        }),
      ),
    );
  }

  /** Replays each projection from its checkpoint (or, with `reset`, from scratch) to the current
   *  head, without subscribing, reading each batch once for all projections at its position.
   *  Takes every lease first, so it refuses to run beside a live worker. Projections only: a
   *  reactor is never replayed. */
  async catchUp(
    this: Projector<ProjectionRunner>,
    onProgress?: ProgressListener,
    { reset = false, batchSize = 5000 } = {},
  ): Promise<void> {
    for (const m of this.members) {
      m.lease = await this.leases.acquire(m.runner.name, this.holder, this.leaseTtlMs);
      if (!m.lease) {
        await this.releaseAll();
        throw new LeasedElsewhereError(m.runner.name);
      }
    }
    try {
      // Dropping a large read model takes a while too: the leases are renewed from here on.
      await this.renewingDuring(this.members, async () => {
        for (const m of this.members) {
          if (!m.lease) throw new LeaseLostError(m.runner.name, this.holder);
          if (reset) await m.runner.reset(m.lease);
          else await m.runner.migrate(m.lease);
          m.position = await m.runner.checkpoint();
        }
        const head = await this.log.headPosition();
        for (;;) {
          const behind = this.members.filter((m) => comparePositions(m.position, head) < 0);
          if (behind.length === 0) break;
          const moved = await this.advanceLowest(behind, batchSize, 'throw', head);
          onProgress?.(
            moved.map((m) => m.runner.name),
            moved[0]!.position!,
            head,
          );
          await turn();
        }
      });
    } finally {
      await this.releaseAll();
    }
  }

  private async releaseAll(): Promise<void> {
    for (const m of this.members) {
      if (m.lease) await this.leases.release(m.runner.name, this.holder);
      m.lease = null;
    }
  }
}

/** Resolves once the store's checkpoint reaches `position` (read-your-writes after a command);
 *  false when it did not within the timeout. Polls, so it works across processes. */
export const caughtUp = async (
  runner: Pick<LogFollower, 'checkpoint'>,
  position: string,
  timeoutMs = 5000,
): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
    if (comparePositions(await runner.checkpoint(), position) >= 0) return true;
    if (Date.now() >= deadline) return false;
    await sleep(delay);
  }
};
