import type { WireEvent } from './event.ts';
import type { ResolvedOptions } from './options.ts';
import { EventQueue, arrayBytes, batchBody, estimateBytes, type QueuedEvent } from './queue.ts';
import type { Reporter } from './report.ts';
import { retryStep } from './retry.ts';
import { Transport, type Attempt } from './transport.ts';

/** Counters since createWatchlog, plus `pending`. Every queued event ends up in exactly one of
 *  sent, replayed, rejected, dropped or failures, or is still pending:
 *  queued = sent + replayed + rejected + dropped + failures + pending. */
export interface WatchlogStats {
  /** Events handed to the queue. */
  queued: number;
  /** Events the server stored (202, newly). */
  sent: number;
  /** Events the server had already stored under their idempotency key (an earlier attempt
   *  whose answer was lost): stored once, not twice. */
  replayed: number;
  /** Events the server refused as invalid. */
  rejected: number;
  /** Events discarded unsent: the oldest when the queue was full, and those still unsent when
   *  close() reached its deadline or recorded after close(). */
  dropped: number;
  /** Requests not recorded because of their method (see `unsupportedMethods`). */
  skippedMethods: number;
  /** Delivery attempts repeated after a network error, timeout, 408, 429 or 5xx. */
  retries: number;
  /** Events given up for an answer retrying cannot fix: 401, 403, 404, a single event over the
   *  server's size limit. */
  failures: number;
  /** Events queued or in flight now. */
  pending: number;
}

interface Accepted {
  index?: unknown;
  replayed?: unknown;
}
interface Rejected {
  index?: unknown;
  details?: unknown;
}
interface Detail {
  path?: unknown;
  message?: unknown;
}

const firstDetail = (details: unknown): string => {
  const d = Array.isArray(details) ? (details[0] as Detail | undefined) : undefined;
  return d ? `${String(d.path ?? '')}: ${String(d.message ?? '')}` : 'no details';
};

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The usual answer: everything stored, nothing replayed or refused. Told from the text, since
 *  parsing an id per event for nothing costs more per batch than the rest of its handling. */
const allStored = (text: string): boolean => text.endsWith('"rejected":[]}') && !text.includes('"replayed"');

const errorOf = (body: unknown): { code?: unknown; message?: unknown; details?: unknown } | undefined =>
  typeof body === 'object' && body !== null
    ? (body as { error?: { code?: unknown; message?: unknown; details?: unknown } }).error
    : undefined;

type Waiter = { all: boolean; seq: number; resolve: () => void };

/** A batch in flight: its oldest event, and how many of its events are settled so far (halves
 *  of a split batch settle apart). */
interface Batch {
  minSeq: number;
  size: number;
  settled: number;
}

/** The queue and its delivery: batches by count, bytes and time; retries with backoff and full
 *  jitter (honouring Retry-After); splits on 413; never throws and never blocks a caller. */
export class Delivery {
  readonly #counters = {
    queued: 0,
    sent: 0,
    replayed: 0,
    rejected: 0,
    dropped: 0,
    skippedMethods: 0,
    retries: 0,
    failures: 0,
  };
  readonly #options: ResolvedOptions;
  readonly #reporter: Reporter;
  readonly #queue = new EventQueue();
  readonly #transport: Transport;
  readonly #inFlight = new Set<Batch>();
  #inFlightEvents = 0;
  #nextSeq = 1;
  /** Events up to this sequence number are due: the flush timer fired after they were queued. */
  #dueSeq = 0;
  /** Events up to this sequence number are due: flush() was called after they were queued. */
  #flushSeq = 0;
  #timer: NodeJS.Timeout | null = null;
  #closing = false;
  #closed = false;
  #abandoned = false;
  #closePromise: Promise<WatchlogStats> | null = null;
  readonly #wakers = new Set<() => void>();
  readonly #waiters = new Set<Waiter>();

  constructor(options: ResolvedOptions, reporter: Reporter) {
    this.#options = options;
    this.#reporter = reporter;
    this.#transport = new Transport(options.batchUrl, options.apiKey, options.requestTimeoutMs, options.concurrency);
  }

  stats(): WatchlogStats {
    return { ...this.#counters, pending: this.#queue.length + this.#inFlightEvents };
  }

  skippedMethod(): void {
    this.#counters.skippedMethods += 1;
  }

  /** Queues an event (which carries its idempotency key) and starts a batch if one is due;
   *  `objectBytes` is what its captured objects weigh as JSON. */
  enqueue(event: WireEvent, objectBytes: number): void {
    this.#counters.queued += 1;
    if (this.#closed) {
      this.#counters.dropped += 1;
      this.#reporter.afterClose();
      return;
    }
    if (this.#queue.length >= this.#options.maxQueueEvents) {
      this.#queue.shift();
      this.#counters.dropped += 1;
      this.#reporter.dropping(this.#counters.dropped, this.#options.maxQueueEvents);
    }
    this.#queue.push({ seq: this.#nextSeq++, event, bytes: estimateBytes(event, objectBytes) });
    if (this.#timer === null && !this.#closing) this.#armTimer();
    this.#pump();
    if (this.#waiters.size > 0) this.#checkWaiters();
  }

  #armTimer(): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#dueSeq = this.#nextSeq - 1;
      this.#pump();
      if (this.#queue.length > 0 && !this.#closing) this.#armTimer();
    }, this.#options.flushIntervalMs);
    // The SDK never keeps the host process alive by itself.
    this.#timer.unref();
  }

  #pump(): void {
    const { concurrency, batchMaxEvents, batchMaxBytes } = this.#options;
    while (this.#inFlight.size < concurrency && this.#queue.length > 0) {
      const head = this.#queue.headSeq()!;
      const due =
        this.#closing ||
        head <= this.#dueSeq ||
        head <= this.#flushSeq ||
        this.#queue.length >= batchMaxEvents ||
        arrayBytes(this.#queue.length, this.#queue.bytes) >= batchMaxBytes;
      if (!due) return;
      const events = this.#queue.take(batchMaxEvents, batchMaxBytes);
      const batch: Batch = { minSeq: events[0]!.seq, size: events.length, settled: 0 };
      this.#inFlight.add(batch);
      this.#inFlightEvents += events.length;
      void this.#deliver(batch, events)
        .catch((error: unknown) => {
          // #deliver is written not to throw; if it ever does, its events are given up, said,
          // and the queue goes on.
          this.#settle(batch, 'failures', batch.size - batch.settled);
          this.#reporter.failed(
            'failed',
            batch.size,
            `internal error while delivering (${error instanceof Error ? error.message : String(error)})`,
          );
        })
        .then(() => {
          this.#inFlight.delete(batch);
          this.#checkWaiters();
          this.#pump();
        });
    }
  }

  #settle(batch: Batch, counter: 'sent' | 'replayed' | 'rejected' | 'dropped' | 'failures', n: number): void {
    this.#counters[counter] += n;
    this.#inFlightEvents -= n;
    batch.settled += n;
  }

  /** Delivers one batch until it is settled: accepted, refused, split, or abandoned at close. */
  async #deliver(batch: Batch, events: QueuedEvent[]): Promise<void> {
    let body: string;
    try {
      body = await batchBody(events);
    } catch (error) {
      // Events are built from JSON-clean values; this only guards against the unforeseen.
      this.#settle(batch, 'failures', events.length);
      this.#reporter.failed(
        'failed',
        events.length,
        `could not serialise a batch (${error instanceof Error ? error.message : String(error)})`,
      );
      return;
    }
    // The queue sized the batch on estimates; its real size decides.
    if (events.length > 1 && Buffer.byteLength(body) > this.#options.batchMaxBytes) return this.#split(batch, events);
    for (let attempt = 0; ; attempt++) {
      if (this.#abandoned) return this.#settle(batch, 'dropped', events.length);
      let outcome: Attempt;
      try {
        outcome = await this.#transport.post(body);
      } catch (error) {
        // Transport settles every attempt; this only guards against the unforeseen.
        outcome = { kind: 'network', reason: error instanceof Error ? error.message : String(error) };
      }
      const next = this.#handle(batch, events, outcome, attempt);
      if (next === 'done') return;
      if (next === 'split') return this.#split(batch, events);
      if (this.#abandoned) return this.#settle(batch, 'dropped', events.length);
      this.#counters.retries += 1;
      await this.#sleep(next);
    }
  }

  async #split(batch: Batch, events: QueuedEvent[]): Promise<void> {
    const half = Math.ceil(events.length / 2);
    await this.#deliver(batch, events.slice(0, half));
    await this.#deliver(batch, events.slice(half));
  }

  /** Settles what an answer settles (retryStep decides); says whether to stop, split, or retry
   *  after a delay in ms. */
  #handle(batch: Batch, events: QueuedEvent[], outcome: Attempt, attempt: number): 'done' | 'split' | number {
    const n = events.length;
    const pending = () => this.#queue.length + this.#inFlightEvents;
    if (outcome.kind === 'network') {
      this.#reporter.unreachable(outcome.reason, pending(), this.#options.maxQueueEvents);
      const step = retryStep({ network: outcome.reason }, attempt, n, this.#options, Math.random, Date.now());
      return 'retryInMs' in step ? step.retryInMs : 0;
    }
    const { status, text } = outcome;
    // A 2xx answer is read by #accepted, and only when it is not the usual one.
    const answer = status >= 200 && status < 300 ? undefined : parse(text);
    const step = retryStep(
      { status, retryAfter: outcome.retryAfter, body: answer },
      attempt,
      n,
      this.#options,
      Math.random,
      Date.now(),
    );
    const error = errorOf(answer);
    const detail = typeof error?.message === 'string' ? error.message : '';
    if ('retryInMs' in step) {
      this.#reporter.unreachable(`${status}${detail ? ` ${detail}` : ''}`, pending(), this.#options.maxQueueEvents);
      return step.retryInMs;
    }
    if ('split' in step) return 'split';
    if (step.settle === 'sent') {
      if (allStored(text)) this.#settle(batch, 'sent', n);
      else this.#accepted(batch, events, parse(text));
      this.#reporter.delivered(this.#counters.dropped);
    } else if (step.settle === 'rejected') {
      this.#settle(batch, 'rejected', n);
      this.#reporter.rejected(n, error?.details ? firstDetail(error.details) : detail || 'no details', 400);
    } else if (status === 401 || status === 403) {
      this.#settle(batch, 'failures', n);
      this.#reporter.auth(status, n, detail);
    } else if (status === 413) {
      this.#settle(batch, 'failures', n);
      this.#reporter.failed(
        'too_large',
        n,
        `${this.#options.batchUrl.origin} refused an event as too large (413); it is dropped`,
        413,
      );
    } else {
      this.#settle(batch, 'failures', n);
      this.#reporter.failed(
        'failed',
        n,
        `${this.#options.batchUrl.href} answered ${status}${detail ? ` (${detail})` : ''}: events are ` +
          `not being recorded; is endpoint watchlog's base URL?`,
        status,
      );
    }
    return 'done';
  }

  #accepted(batch: Batch, events: QueuedEvent[], body: unknown): void {
    const answer =
      typeof body === 'object' && body !== null ? (body as { accepted?: unknown; rejected?: unknown }) : {};
    const accepted = Array.isArray(answer.accepted) ? (answer.accepted as Accepted[]) : [];
    const rejected = Array.isArray(answer.rejected) ? (answer.rejected as Rejected[]) : [];
    const refused = Math.min(rejected.length, events.length);
    const replays = Math.min(accepted.filter((a) => a.replayed === true).length, events.length - refused);
    this.#settle(batch, 'replayed', replays);
    // The server answered 202 for the batch: whatever it did not list as refused it stored.
    this.#settle(batch, 'sent', events.length - refused - replays);
    if (refused > 0) {
      this.#settle(batch, 'rejected', refused);
      this.#reporter.rejected(refused, firstDetail(rejected[0]?.details), 202);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      timer.unref();
      this.#wakers.add(wake);
    });
  }

  #wakeAll(): void {
    for (const wake of [...this.#wakers]) wake();
  }

  /** The oldest sequence number not yet settled (queued or in flight); #nextSeq when none. */
  #lowestUnsettled(): number {
    let lowest = this.#queue.headSeq() ?? this.#nextSeq;
    for (const batch of this.#inFlight) lowest = Math.min(lowest, batch.minSeq);
    return lowest;
  }

  #checkWaiters(): void {
    if (this.#waiters.size === 0) return;
    const lowest = this.#lowestUnsettled();
    const idle = this.#queue.length === 0 && this.#inFlight.size === 0;
    for (const waiter of [...this.#waiters]) {
      if (waiter.all ? idle : lowest > waiter.seq) {
        this.#waiters.delete(waiter);
        waiter.resolve();
      }
    }
  }

  /** Resolves true once the events (`all`: every event, including later ones) are settled,
   *  false at the deadline. */
  #settled(all: boolean, timeoutMs: number): Promise<boolean> {
    const seq = this.#nextSeq - 1;
    return new Promise<boolean>((resolve) => {
      // Not unref'd: the caller awaits this and must hear back by the deadline.
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        resolve(false);
      }, timeoutMs);
      const waiter: Waiter = {
        all,
        seq,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
      this.#waiters.add(waiter);
      this.#checkWaiters();
    });
  }

  /** Sends everything queued so far without waiting for the timer; resolves true once those
   *  events are settled, false if `timeoutMs` passed first (they stay queued). */
  flush(timeoutMs: number): Promise<boolean> {
    this.#flushSeq = Math.max(this.#flushSeq, this.#nextSeq - 1);
    this.#pump();
    return this.#settled(false, timeoutMs);
  }

  /** Stops the timer, sends everything (retrying at once what was waiting for a backoff), and
   *  at the deadline drops what is left. Never rejects; idempotent. */
  close(timeoutMs: number): Promise<WatchlogStats> {
    this.#closePromise ??= (async () => {
      this.#closing = true;
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
      this.#wakeAll();
      this.#pump();
      const drained = await this.#settled(true, timeoutMs);
      this.#closed = true;
      if (!drained) {
        this.#abandoned = true;
        this.#counters.dropped += this.#queue.clear();
        this.#wakeAll();
        this.#transport.abortAll();
        await this.#settled(true, 1000);
      }
      this.#transport.destroy();
      return this.stats();
    })();
    return this.#closePromise;
  }
}
