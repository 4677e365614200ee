import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BatchResult } from './leaf.ts';
import type { BatchRequest } from './leaf-worker.ts';

/** Worker threads that check batches of lines (leaf-worker.ts): parsing, canonical JSON and
 *  hashing are most of a record's cost, and they do not depend on order, so they can share the
 *  machine's cores while the main thread keeps the order and the tree. */

/** Starts leaf-worker: compiled code runs the .js module; under tsx (tests, the bench) the thread
 *  registers tsx first, since a thread does not inherit the parent's --import hooks. */
const startWorker = (): Worker => {
  const ext = path.extname(new URL(import.meta.url).pathname);
  const url = new URL(`./leaf-worker${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(url);
  const href = JSON.stringify(url.href);
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${href}); })`;
  return new Worker(bootstrap, { eval: true });
};

export class LeafThreads {
  private readonly workers: Worker[];
  /** Per worker, the answers it owes, in order: a worker answers its batches in the order sent. */
  private readonly waiting: Array<Array<{ resolve: (r: BatchResult) => void; reject: (e: Error) => void }>>;
  private next = 0;
  private closing = false;

  constructor(count: number) {
    this.workers = Array.from({ length: count }, startWorker);
    this.waiting = this.workers.map(() => []);
    this.workers.forEach((worker, i) => {
      const failAll = (error: Error) => {
        for (const w of this.waiting[i]!.splice(0)) w.reject(error);
      };
      worker.on('message', (result: BatchResult) => this.waiting[i]!.shift()?.resolve(result));
      worker.on('error', failAll);
      worker.on('exit', (code) => {
        if (!this.closing) failAll(new Error(`a verification thread exited (${code})`));
      });
    });
  }

  /** Checks a batch on the thread with the fewest batches waiting (the next in turn on a tie):
   *  on a shared machine one thread can be held up for a while, and the others then take more.
   *  A batch that is all of its ArrayBuffer is handed over (transferred: it is empty here
   *  afterwards), any other is copied first. */
  check(batch: Uint8Array, allowMissing: boolean): Promise<BatchResult> {
    let i = this.next;
    for (let k = 0; k < this.workers.length; k += 1) if (this.waiting[k]!.length < this.waiting[i]!.length) i = k;
    this.next = (i + 1) % this.workers.length;
    const whole =
      batch.buffer instanceof ArrayBuffer && batch.byteOffset === 0 && batch.byteLength === batch.buffer.byteLength;
    const bytes = whole ? new Uint8Array(batch.buffer as ArrayBuffer) : new Uint8Array(batch);
    const answer = new Promise<BatchResult>((resolve, reject) => {
      this.waiting[i]!.push({ resolve, reject });
      const request: BatchRequest = { bytes, allowMissing };
      this.workers[i]!.postMessage(request, [bytes.buffer]);
    });
    // The caller awaits answers in order and stops at the first failure: a later answer's
    // rejection must not go unhandled meanwhile.
    answer.catch(() => {
      // handled where the caller awaits it
    });
    return answer;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
