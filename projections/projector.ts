import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { decodeEvent } from '../src/domain/events.ts';
import { comparePositions, type EventLog, type RecordedEvent, type Subscription } from '../src/log/event-log.ts';
import { LeaseLostError, type Leases, type ProjectionStore } from '../src/views/ports.ts';
import type { Projection } from './projection.ts';

/** A projection bound to its store, with the writer type hidden so runners of different read
 *  models fit in one list. */
export interface ProjectionRunner {
  readonly name: string;
  checkpoint(): Promise<string | null>;
  process(batch: readonly RecordedEvent[], leaseHolder?: string): Promise<void>;
  reset(): Promise<void>;
}

export const bindProjection = <W>(projection: Projection<W>, store: ProjectionStore<W>): ProjectionRunner => {
  const handled = new Set<string>(projection.handles);
  return {
    name: projection.name,
    checkpoint: () => store.checkpoint(),
    reset: () => store.reset(),
    process: (batch, leaseHolder) =>
      store.commit(batch, (recorded, writer) => {
        if (handled.has(recorded.type)) {
          projection.apply(decodeEvent(recorded.position, recorded.type, recorded.data), recorded, writer);
        }
      }, leaseHolder),
  };
};

export type ProgressListener = (name: string, position: string, head: string | null) => void;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export const newLeaseHolder = () => `${hostname()}:${process.pid}:${threadId}:${randomUUID().slice(0, 8)}`;

export interface ProjectorOptions {
  /** Once live (a batch smaller than `fullBatch` means caught up), wait this long before the
   *  next batch so it gathers more events: each commit rewrites the index pages it touches, so
   *  fewer, larger commits cost far less under load. Adds at most this much to the lag. */
  liveBatchDelayMs?: number;
  fullBatch?: number;
  /** How long a projection's lease lasts without renewal; a dead holder's projections move to
   *  another worker after this. Renewed every third of it. */
  leaseTtlMs?: number;
  holder?: string;
}

/** Feeds every projection from its own checkpoint through a catch-up subscription, each only
 *  while this projector holds its lease (so among several workers, one runs each projection).
 *  A failing projection is retried from its checkpoint with backoff; the others keep going. */
export class Projector {
  private readonly subscriptions = new Set<Subscription>();
  private readonly loops: Promise<void>[] = [];
  private stopping = false;
  private readonly wakers = new Set<() => void>();
  private readonly liveBatchDelayMs: number;
  private readonly fullBatch: number;
  private readonly leaseTtlMs: number;
  readonly holder: string;

  constructor(
    private readonly log: EventLog,
    readonly runners: readonly ProjectionRunner[],
    private readonly leases: Leases,
    private readonly logger: Logger,
    options: ProjectorOptions = {},
  ) {
    this.liveBatchDelayMs = options.liveBatchDelayMs ?? 50;
    this.fullBatch = options.fullBatch ?? 1000;
    this.leaseTtlMs = options.leaseTtlMs ?? 10_000;
    this.holder = options.holder ?? newLeaseHolder();
  }

  start(): void {
    for (const runner of this.runners) this.loops.push(this.run(runner));
  }

  /** Sleeps, but wakes at once when the projector stops. */
  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  private async run(runner: ProjectionRunner): Promise<void> {
    const log = this.logger.child({ projection: runner.name, holder: this.holder });
    let backoffMs = 500;
    let holding = false;
    while (!this.stopping) {
      if (!(await this.leases.acquire(runner.name, this.holder, this.leaseTtlMs))) {
        if (holding) log.warn('projection lease lost');
        holding = false;
        await this.idle(this.leaseTtlMs / 3);
        continue;
      }
      if (!holding) log.info('projection lease acquired');
      holding = true;
      const subscription = this.log.subscribeAll(await runner.checkpoint());
      this.subscriptions.add(subscription);
      const renew = setInterval(() => {
        const lost = () => void subscription.close();
        this.leases.acquire(runner.name, this.holder, this.leaseTtlMs).then((kept) => kept || lost(), lost);
      }, this.leaseTtlMs / 3);
      try {
        for await (const batch of subscription) {
          await runner.process(batch, this.holder);
          backoffMs = 500;
          if (batch.length < this.fullBatch && !this.stopping) await sleep(this.liveBatchDelayMs);
        }
      } catch (error) {
        if (this.stopping) break;
        if (error instanceof LeaseLostError) continue;
        log.error({ err: error, retry_in_ms: backoffMs }, 'projection failed; retrying from its checkpoint');
        await this.idle(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 30_000);
      } finally {
        clearInterval(renew);
        this.subscriptions.delete(subscription);
        await subscription.close();
      }
    }
    if (holding) await this.leases.release(runner.name, this.holder);
  }

  /** Stops after the batch in hand is committed with its checkpoint, and releases the leases. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const wake of [...this.wakers]) wake();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await Promise.all(this.loops);
  }

  /** Replays each projection from its checkpoint (or, with `reset`, from scratch) to the current
   *  head, without subscribing. Takes every lease first, so it refuses to run beside a live worker. */
  async catchUp(onProgress?: ProgressListener, { reset = false, batchSize = 5000 } = {}): Promise<void> {
    for (const runner of this.runners) {
      if (!(await this.leases.acquire(runner.name, this.holder, 24 * 3_600_000))) {
        throw new Error(`projection ${runner.name} is leased by a running worker; stop the service first (the lease of a killed worker expires after WATCHLOG_PROJECTION_LEASE_MS)`);
      }
    }
    try {
      if (reset) for (const runner of this.runners) await runner.reset();
      const head = await this.log.headPosition();
      for (const runner of this.runners) {
        let position = await runner.checkpoint();
        while (comparePositions(position, head) < 0) {
          const batch = await this.log.readAll(position, batchSize);
          if (batch.length === 0) break;
          await runner.process(batch, this.holder);
          position = batch[batch.length - 1]!.position;
          onProgress?.(runner.name, position, head);
        }
      }
    } finally {
      for (const runner of this.runners) await this.leases.release(runner.name, this.holder);
    }
  }
}

/** Resolves once the store's checkpoint reaches `position` (read-your-writes after a command);
 *  false when it did not within the timeout. Polls, so it works across processes. */
export const waitForCheckpoint = async (
  runner: Pick<ProjectionRunner, 'checkpoint'>,
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
