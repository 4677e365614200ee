import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { newLeaseHolder } from '../../projections/projector.ts';
import type { LogObserver } from '../log/event-log.ts';
import { serverThreadLimits, startThread } from '../threads.ts';
import type { FromProjectorThread, ProjectorThreadData, ToProjectorThread } from './projector-thread-body.ts';
import type { NotificationMetrics } from '../reactors/notifications/metrics.ts';
import type { Stores } from './stores.ts';

/** Runs the projectors' thread, forwards this thread's appends to it, restarts it if it dies. A
 *  dead thread's leases are released before the restart, so its successor takes its projections
 *  at once instead of after the lease time. */
export class ProjectorThread {
  private worker: Worker | null = null;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private readonly unsubscribe: () => void;

  /** `stores`: this thread's, whose log's appends are forwarded so the thread's live subscription
   *  wakes at once, and whose leases (the read models' and the reactors') a dead thread's holder
   *  is released from. `metrics`: where what the thread reports (deliveries, its own commits) is
   *  counted. */
  constructor(
    private readonly data: Omit<ProjectorThreadData, 'holder'>,
    private readonly stores: Pick<Stores, 'log' | 'readModels' | 'reactorStates'>,
    private readonly logger: Logger,
    private readonly metrics?: NotificationMetrics & LogObserver,
  ) {
    this.unsubscribe = stores.log.onAppend(() => this.send('appended'));
  }

  start(): void {
    const holder = newLeaseHolder();
    const worker = startThread(
      import.meta.url,
      'projector-thread-body',
      { ...this.data, holder } satisfies ProjectorThreadData,
      serverThreadLimits(),
    );
    this.worker = worker;
    worker.on('error', (err) => this.logger.error({ err }, 'projector thread failed'));
    worker.on('message', (message: FromProjectorThread) => {
      if (message === 'stopped' || !this.metrics) return;
      if (message.type === 'delivered') this.metrics.delivered(message.channelType, message.outcome, message.seconds);
      else if (message.type === 'committed') this.metrics.committed(message.stats);
      else this.metrics.unscavenged?.(message.events);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      if (this.stopping) return;
      this.logger.error({ code }, 'projector thread exited; restarting in 1 s');
      this.releaseAll(holder).catch((err: unknown) =>
        this.logger.warn({ err }, "could not release the dead projector thread's leases"),
      );
      this.restartTimer = setTimeout(() => !this.stopping && this.start(), 1000);
      this.restartTimer.unref();
    });
  }

  private async releaseAll(holder: string): Promise<void> {
    await this.stores.readModels.leases.releaseAll(holder);
    await this.stores.reactorStates.leases.releaseAll(holder);
  }

  /** Stops the thread as `stop` does and starts a new one, which opens the stores anew (the read
   *  models a rebuild published). */
  async restart(): Promise<void> {
    await this.halt();
    this.stopping = false;
    this.start();
  }

  /** The running thread (fault-injection tests terminate it). */
  get thread(): Worker | null {
    return this.worker;
  }

  private send(message: ToProjectorThread): void {
    this.worker?.postMessage(message);
  }

  /** Lets the thread finish its batch and checkpoint, close its handles, and exit. */
  async stop(): Promise<void> {
    this.unsubscribe();
    await this.halt();
  }

  private async halt(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    worker.postMessage('stop' satisfies ToProjectorThread);
    await exited;
  }
}
