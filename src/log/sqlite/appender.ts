import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { serverThreadLimits, startThread } from '../../threads.ts';
import type Database from 'better-sqlite3';
import type { CommitObserver, CommitStats } from '../event-log.ts';
import { SqliteLogWriter, encodeAppends, type AppendOutcome, type SerializedAppend } from './writer.ts';

/** Group commit: appends arriving in the same turn of the event loop share one transaction (and
 *  one fsync). `inline` commits on the calling thread; `thread` on a dedicated writer thread, so
 *  the fsync never stalls the HTTP event loop. */
export interface Appender {
  append(request: SerializedAppend): Promise<AppendOutcome>;
  close(): Promise<void>;
}

interface Pending {
  request: SerializedAppend;
  resolve: (o: AppendOutcome) => void;
}

/** Collects requests until the end of the current turn, then hands them over as one batch. */
class TurnBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  constructor(private readonly flushBatch: (batch: Pending[]) => void) {}

  add(request: SerializedAppend): Promise<AppendOutcome> {
    return new Promise((resolve) => {
      this.queue.push({ request, resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0) this.flushBatch(batch);
  }
}

export class InlineAppender implements Appender {
  private readonly writer;
  private readonly batcher: TurnBatcher;

  constructor(db: Database.Database, onCommit: () => void, onCommitted?: CommitObserver) {
    this.writer = new SqliteLogWriter(db);
    this.batcher = new TurnBatcher((batch) => {
      const { outcomes, stats } = this.writer.commitTimed(batch.map((p) => p.request));
      for (const [i, p] of batch.entries()) p.resolve(outcomes[i]!);
      onCommitted?.(stats);
      onCommit();
    });
  }

  append(request: SerializedAppend): Promise<AppendOutcome> {
    return this.batcher.add(request);
  }

  async close(): Promise<void> {
    this.batcher.flush();
  }
}

export type ToWriterThread = { type: 'append'; seqs: number[]; payload: string } | { type: 'close' };
export type FromWriterThread = { type: 'committed'; seqs: number[]; outcomes: AppendOutcome[]; stats: CommitStats };

/** What the writer thread is doing, for readiness and logs. */
export type WriterState = { running: true } | { running: false; since: string; reason: string };

export interface ThreadAppenderOptions {
  /** Told when the writer stops (with the reason) and when it runs again; a thread that dies again
   *  while restarting is one stop. */
  onStateChange?: (state: WriterState) => void;
  /** Batches wait this long for a writer that is restarting before they fail as unavailable. */
  restartWaitMs?: number;
  /** Told the size and time of each commit the thread made. */
  onCommitted?: CommitObserver;
}

/** Commits on a dedicated thread, and restarts it when it dies (with backoff, 100 ms doubling to
 *  5 s). Appends in flight when it died are answered "outcome unknown": the thread may have
 *  committed them before dying. Appends made while it restarts wait for the new thread (up to
 *  `restartWaitMs`), then fail as unavailable: never sent, so nothing was stored. */
export class ThreadAppender implements Appender {
  private worker: Worker | null = null;
  private readonly waiting = new Map<number, (o: AppendOutcome) => void>();
  private held: Array<{ batch: Pending[]; timer: NodeJS.Timeout }> = [];
  private seq = 0;
  private closing = false;
  private restartDelayMs = 100;
  private stateNow: WriterState = { running: true };
  private readonly batcher: TurnBatcher;
  private readonly restartWaitMs: number;

  constructor(
    private readonly file: string,
    private readonly onCommit: () => void,
    private readonly options: ThreadAppenderOptions = {},
  ) {
    this.restartWaitMs = options.restartWaitMs ?? 5000;
    this.batcher = new TurnBatcher((batch) => this.send(batch));
    this.startWorker();
  }

  get state(): WriterState {
    return this.stateNow;
  }

  /** The running writer thread (fault-injection tests terminate it). */
  get thread(): Worker | null {
    return this.worker;
  }

  private startWorker(): void {
    const worker = startThread(import.meta.url, 'writer-thread', { file: this.file }, serverThreadLimits());
    this.worker = worker;
    let failure: string | null = null;
    worker.on('online', () => {
      if (this.worker !== worker) return;
      if (!this.stateNow.running) {
        this.stateNow = { running: true };
        this.options.onStateChange?.(this.stateNow);
      }
      const held = this.held;
      this.held = [];
      for (const { batch, timer } of held) {
        clearTimeout(timer);
        this.send(batch);
      }
    });
    worker.on('message', (message: FromWriterThread) => {
      this.restartDelayMs = 100;
      message.seqs.forEach((seq, i) => {
        this.waiting.get(seq)?.(message.outcomes[i]!);
        this.waiting.delete(seq);
      });
      this.options.onCommitted?.(message.stats);
      this.onCommit();
    });
    worker.on('error', (error) => {
      failure = error.message;
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return;
      this.worker = null;
      const reason = failure ?? `log writer thread exited with code ${code}`;
      for (const resolve of this.waiting.values()) {
        resolve({
          ok: false,
          kind: 'unknown',
          message: `${reason} before confirming the append: it may or may not be stored`,
        });
      }
      this.waiting.clear();
      if (this.closing) return;
      if (this.stateNow.running) {
        this.stateNow = { running: false, since: new Date().toISOString(), reason };
        this.options.onStateChange?.(this.stateNow);
      }
      setTimeout(() => {
        if (!this.closing) this.startWorker();
      }, this.restartDelayMs).unref();
      this.restartDelayMs = Math.min(this.restartDelayMs * 2, 5000);
    });
  }

  private send(batch: Pending[]): void {
    if (this.closing && !this.worker) {
      for (const p of batch) p.resolve({ ok: false, kind: 'unavailable', message: 'the event log is closed' });
      return;
    }
    if (!this.worker || !this.stateNow.running) {
      const timer = setTimeout(() => {
        this.held = this.held.filter((h) => h.batch !== batch);
        for (const p of batch)
          p.resolve({
            ok: false,
            kind: 'unavailable',
            message: 'the log writer thread is restarting; nothing was stored',
          });
      }, this.restartWaitMs);
      this.held.push({ batch, timer });
      return;
    }
    const seqs = batch.map((p) => {
      this.seq += 1;
      const seq = this.seq;
      this.waiting.set(seq, p.resolve);
      return seq;
    });
    this.worker.postMessage({
      type: 'append',
      seqs,
      payload: encodeAppends(batch.map((p) => p.request)),
    } satisfies ToWriterThread);
  }

  append(request: SerializedAppend): Promise<AppendOutcome> {
    return this.batcher.add(request);
  }

  /** Sends what is queued, lets the thread commit it and close the file. */
  async close(): Promise<void> {
    this.batcher.flush();
    this.closing = true;
    for (const { batch, timer } of this.held) {
      clearTimeout(timer);
      for (const p of batch) p.resolve({ ok: false, kind: 'unavailable', message: 'the event log is closed' });
    }
    this.held = [];
    const worker = this.worker;
    if (!worker) return;
    const exited = once(worker, 'exit');
    worker.postMessage({ type: 'close' } satisfies ToWriterThread);
    await exited;
  }
}
