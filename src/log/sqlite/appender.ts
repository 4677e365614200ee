import { once } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../threads.ts';
import type Database from 'better-sqlite3';
import { SqliteLogWriter, encodeAppends, type AppendOutcome, type SerializedAppend } from './writer.ts';

/** Group commit: appends arriving in the same turn of the event loop share one transaction (and
 *  one fsync). `inline` commits on the calling thread; `thread` on a dedicated writer thread, so
 *  the fsync never stalls the HTTP event loop. */
export interface Appender {
  append(request: SerializedAppend): Promise<AppendOutcome>;
  close(): Promise<void>;
}

interface Pending { request: SerializedAppend; resolve: (o: AppendOutcome) => void }

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

  constructor(db: Database.Database, onCommit: () => void) {
    this.writer = new SqliteLogWriter(db);
    this.batcher = new TurnBatcher((batch) => {
      const outcomes = this.writer.commit(batch.map((p) => p.request));
      batch.forEach((p, i) => p.resolve(outcomes[i]!));
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
export type FromWriterThread = { type: 'committed'; seqs: number[]; outcomes: AppendOutcome[] };

export class ThreadAppender implements Appender {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (o: AppendOutcome) => void>();
  private seq = 0;
  private exited = false;
  private readonly batcher: TurnBatcher;

  constructor(file: string, onCommit: () => void) {
    this.worker = startThread(import.meta.url, 'writer-thread', { file });
    this.worker.on('message', (message: FromWriterThread) => {
      message.seqs.forEach((seq, i) => {
        this.waiting.get(seq)?.(message.outcomes[i]!);
        this.waiting.delete(seq);
      });
      onCommit();
    });
    this.worker.on('error', (error) => this.failAll(`log writer thread failed: ${error.message}`));
    this.worker.on('exit', () => {
      this.exited = true;
      this.failAll('log writer thread exited');
    });
    this.batcher = new TurnBatcher((batch) => {
      if (this.exited) {
        for (const p of batch) p.resolve({ ok: false, kind: 'error', message: 'log writer thread is not running' });
        return;
      }
      const seqs = batch.map((p) => {
        const seq = (this.seq += 1);
        this.waiting.set(seq, p.resolve);
        return seq;
      });
      this.worker.postMessage({ type: 'append', seqs, payload: encodeAppends(batch.map((p) => p.request)) } satisfies ToWriterThread);
    });
  }

  private failAll(message: string) {
    for (const resolve of this.waiting.values()) resolve({ ok: false, kind: 'error', message });
    this.waiting.clear();
  }

  append(request: SerializedAppend): Promise<AppendOutcome> {
    return this.batcher.add(request);
  }

  /** Sends what is queued, lets the thread commit it and close the file. */
  async close(): Promise<void> {
    this.batcher.flush();
    if (this.exited) return;
    const exited = once(this.worker, 'exit');
    this.worker.postMessage({ type: 'close' } satisfies ToWriterThread);
    await exited;
  }
}
