import type { Logger } from 'pino';
import { decodeEvent } from '../src/domain/events.ts';
import { comparePositions, type EventLog, type RecordedEvent, type Subscription } from '../src/log/event-log.ts';
import type { ProjectionStore } from '../src/views/ports.ts';
import type { Projection } from './projection.ts';

/** A projection bound to its store, with the writer type hidden so runners of different read
 *  models fit in one list. */
export interface ProjectionRunner {
  readonly name: string;
  checkpoint(): Promise<string | null>;
  process(batch: readonly RecordedEvent[]): Promise<void>;
  reset(): Promise<void>;
}

export const bindProjection = <W>(projection: Projection<W>, store: ProjectionStore<W>): ProjectionRunner => {
  const handled = new Set<string>(projection.handles);
  return {
    name: projection.name,
    checkpoint: () => store.checkpoint(),
    reset: () => store.reset(),
    process: (batch) =>
      store.commit(batch, (recorded, writer) => {
        if (handled.has(recorded.type)) {
          projection.apply(decodeEvent(recorded.position, recorded.type, recorded.data), recorded, writer);
        }
      }),
  };
};

export type ProgressListener = (name: string, position: string, head: string | null) => void;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export interface ProjectorOptions {
  /** Once live (a batch smaller than `fullBatch` means caught up), wait this long before the
   *  next batch so it gathers more events: each commit rewrites the index pages it touches, so
   *  fewer, larger commits cost far less under load. Adds at most this much to the lag. */
  liveBatchDelayMs?: number;
  fullBatch?: number;
}

/** Feeds every projection from its own checkpoint through a catch-up subscription. A failing
 *  projection is retried from its checkpoint with backoff; the others keep going. */
export class Projector {
  private readonly subscriptions = new Set<Subscription>();
  private readonly loops: Promise<void>[] = [];
  private stopping = false;
  private readonly liveBatchDelayMs: number;
  private readonly fullBatch: number;

  constructor(
    private readonly log: EventLog,
    readonly runners: readonly ProjectionRunner[],
    private readonly logger: Logger,
    options: ProjectorOptions = {},
  ) {
    this.liveBatchDelayMs = options.liveBatchDelayMs ?? 50;
    this.fullBatch = options.fullBatch ?? 1000;
  }

  start(): void {
    for (const runner of this.runners) this.loops.push(this.run(runner));
  }

  private async run(runner: ProjectionRunner): Promise<void> {
    let backoffMs = 500;
    while (!this.stopping) {
      const subscription = this.log.subscribeAll(await runner.checkpoint());
      this.subscriptions.add(subscription);
      try {
        for await (const batch of subscription) {
          await runner.process(batch);
          backoffMs = 500;
          if (batch.length < this.fullBatch && !this.stopping) await sleep(this.liveBatchDelayMs);
        }
      } catch (error) {
        if (this.stopping) break;
        this.logger.error({ err: error, projection: runner.name, retry_in_ms: backoffMs }, 'projection failed; retrying from its checkpoint');
        await sleep(backoffMs);
        backoffMs = Math.min(backoffMs * 2, 30_000);
      } finally {
        this.subscriptions.delete(subscription);
        await subscription.close();
      }
    }
  }

  /** Stops after the batch in hand is committed with its checkpoint. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await Promise.all(this.loops);
  }

  /** Replays each projection from its checkpoint to the current head, without subscribing. */
  async catchUp(onProgress?: ProgressListener, batchSize = 5000): Promise<void> {
    const head = await this.log.headPosition();
    for (const runner of this.runners) {
      let position = await runner.checkpoint();
      while (comparePositions(position, head) < 0) {
        const batch = await this.log.readAll(position, batchSize);
        if (batch.length === 0) break;
        await runner.process(batch);
        position = batch[batch.length - 1]!.position;
        onProgress?.(runner.name, position, head);
      }
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
