import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { newLeaseHolder } from '../../projections/projector.ts';
import type { LogObserver } from '../log/event-log.ts';
import { serverThreadLimits, startThread } from '../threads.ts';
import type { FromProjectorThread, ProjectorThreadData, ToProjectorThread } from './projector-thread-body.ts';
import type { NotificationMetrics } from '../reactors/notifications/metrics.ts';
import type { ProjectorsPart } from './projectors.ts';
import type { Stores } from './stores.ts';

/** One worker thread running one part of the projectors; restarted if it dies. A dead thread's
 *  leases are released before the restart, so its successor takes its projections at once
 *  instead of after the lease time. */
class PartThread {
  private worker: Worker | null = null;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly part: ProjectorsPart,
    private readonly data: Omit<ProjectorThreadData, 'holder' | 'part'>,
    private readonly stores: Pick<Stores, 'readModels' | 'reactorStates'>,
    private readonly logger: Logger,
    private readonly metrics?: NotificationMetrics & LogObserver,
  ) {}

  start(): void {
    this.stopping = false;
    const holder = newLeaseHolder();
    const worker = startThread(
      import.meta.url,
      'projector-thread-body',
      { ...this.data, holder, part: this.part } satisfies ProjectorThreadData,
      serverThreadLimits(),
    );
    this.worker = worker;
    const part = this.part;
    worker.on('error', (err) => this.logger.error({ err, part }, 'projector thread failed'));
    worker.on('message', (message: FromProjectorThread) => {
      if (message === 'stopped' || !this.metrics) return;
      if (message.type === 'delivered') this.metrics.delivered(message.channelType, message.outcome, message.seconds);
      else if (message.type === 'committed') this.metrics.committed(message.stats);
      else this.metrics.unscavenged?.(message.events);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      if (this.stopping) return;
      this.logger.error({ code, part }, 'projector thread exited; restarting in 1 s');
      this.releaseAll(holder).catch((err: unknown) =>
        this.logger.warn({ err, part }, "could not release the dead projector thread's leases"),
      );
      this.restartTimer = setTimeout(() => !this.stopping && this.start(), 1000);
      this.restartTimer.unref();
    });
  }

  private async releaseAll(holder: string): Promise<void> {
    await this.stores.readModels.leases.releaseAll(holder);
    await this.stores.reactorStates.leases.releaseAll(holder);
  }

  get thread(): Worker | null {
    return this.worker;
  }

  send(message: ToProjectorThread): void {
    this.worker?.postMessage(message);
  }

  /** Lets the thread finish its batch and checkpoint, close its handles, and exit. */
  async halt(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    worker.postMessage('stop' satisfies ToProjectorThread);
    await exited;
  }
}

/** Runs the projectors on a thread of their own, and the log sinks on another while any sink is
 *  active; forwards this thread's appends to both. On one thread, the read models' synchronous
 *  batches held the sinks' sockets for as long as they were behind: a destination's answer
 *  waited behind batch after batch, and under batched ingest a sink ended seconds behind the
 *  load. A deployment without sinks runs no second thread (and spends no memory on it). */
export class ProjectorThread {
  private readonly main: PartThread;
  private readonly sinks: PartThread;
  private sinksRunning = false;
  private watch: NodeJS.Timeout | null = null;
  private looking: Promise<void> = Promise.resolve();
  private readonly unsubscribe: () => void;

  /** `stores`: this thread's, whose log's appends are forwarded so the threads' live
   *  subscriptions wake at once, whose leases (the read models' and the reactors') a dead
   *  thread's holder is released from, and whose sinks read model says whether the sinks' thread
   *  is needed. `metrics`: where what the threads report (deliveries, their own commits) is
   *  counted. */
  constructor(
    data: Omit<ProjectorThreadData, 'holder' | 'part'>,
    private readonly stores: Pick<Stores, 'log' | 'readModels' | 'reactorStates'>,
    private readonly logger: Logger,
    metrics?: NotificationMetrics & LogObserver,
    /** How often the sinks read model is read for whether any sink is active. */
    private readonly sinkPollMs = 1000,
  ) {
    this.main = new PartThread('all-but-sinks', data, stores, logger, metrics);
    this.sinks = new PartThread('sinks', data, stores, logger, metrics);
    this.unsubscribe = stores.log.onAppend(() => {
      this.main.send('appended');
      this.sinks.send('appended');
    });
  }

  start(): void {
    this.main.start();
    const look = () => {
      this.looking = this.looking
        .then(() => this.followSinks())
        .catch((err: unknown) => {
          this.logger.error({ err }, 'sinks could not be read; trying again');
        });
    };
    look();
    this.watch = setInterval(look, this.sinkPollMs);
    this.watch.unref();
  }

  /** Starts the sinks' thread when a sink is active, and stops it when none is any more. */
  private async followSinks(): Promise<void> {
    if (this.watch === null) return; // halted meanwhile
    const rows = await this.stores.readModels.sinks.all();
    const wanted = rows.some((r) => r.view.active);
    if (wanted && !this.sinksRunning) {
      this.sinksRunning = true;
      this.sinks.start();
    } else if (!wanted && this.sinksRunning) {
      this.sinksRunning = false;
      await this.sinks.halt();
    }
  }

  /** Stops the threads as `stop` does and starts new ones, which open the stores anew (the read
   *  models a rebuild published). */
  async restart(): Promise<void> {
    await this.halt();
    this.start();
  }

  /** The read models' running thread (fault-injection tests terminate it). */
  get thread(): Worker | null {
    return this.main.thread;
  }

  /** The sinks' running thread, if any sink is active. */
  get sinksThread(): Worker | null {
    return this.sinks.thread;
  }

  /** Lets the threads finish their batch and checkpoint, close their handles, and exit. */
  async stop(): Promise<void> {
    this.unsubscribe();
    await this.halt();
  }

  private async halt(): Promise<void> {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
    await this.looking;
    this.sinksRunning = false;
    await Promise.all([this.main.halt(), this.sinks.halt()]);
  }
}
