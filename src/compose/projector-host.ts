import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../threads.ts';
import type { Logger } from 'pino';
import type { EventLog } from '../log/event-log.ts';
import type { ProjectorThreadData, ToProjectorThread } from './projector-thread.ts';

/** Runs the projectors' thread, forwards this thread's appends to it, restarts it if it dies. */
export class ProjectorThread {
  private worker: Worker | null = null;
  private stopping = false;
  private readonly unsubscribe: () => void;

  /** `log`: this thread's log, whose appends are forwarded so the thread's live subscription
   *  wakes at once. */
  constructor(private readonly data: ProjectorThreadData, log: EventLog, private readonly logger: Logger) {
    this.unsubscribe = log.onAppend(() => this.send('appended'));
  }

  start(): void {
    const worker = startThread(import.meta.url, 'projector-thread', this.data);
    this.worker = worker;
    worker.on('error', (err) => this.logger.error({ err }, 'projector thread failed'));
    worker.on('exit', (code) => {
      if (this.stopping) return;
      this.logger.error({ code }, 'projector thread exited; restarting in 1 s');
      setTimeout(() => !this.stopping && this.start(), 1000).unref();
    });
  }

  private send(message: ToProjectorThread): void {
    this.worker?.postMessage(message);
  }

  /** Lets the thread finish its batch and checkpoint, close its handles, and exit. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe();
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    worker.postMessage('stop' satisfies ToProjectorThread);
    await exited;
  }
}
