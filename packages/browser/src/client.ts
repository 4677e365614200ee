import { BASE_DELAY_MS, MAX_DELAY_MS } from './backoff.ts';
import { uuid } from './ids.ts';
import { isRecorded } from './match.ts';
import type { Environment, ResolvedOptions } from './options.ts';
import { bodyOf, boundedQueue, entryOf, fitting, type Entry } from './queue.ts';
import { retryStep } from './retry.ts';
import { beaconUrl, postBatch, type Fetch } from './transport.ts';

/** Retries wait 1, 2, 4… s, at most 30 s, with full jitter. */
const DELAYS = { initialMs: BASE_DELAY_MS, maxMs: MAX_DELAY_MS };

/** Browsers allow 64 KiB of keepalive requests and beacons in flight per page; each body stays
 *  under half of it, so one batch in flight leaves room for a page-hide beacon. */
export const MAX_BODY_BYTES = 32 * 1024;
/** user_agent and error_message are cut here: an event stays small whatever the browser says. */
export const MAX_TEXT = 512;
/** SPEC 2.1 takes these methods only; calls with others are left alone and counted as skipped. */
export const SPEC_METHODS: readonly string[] = ['GET', 'POST', 'PUT', 'DELETE'];

/** A browser-side event: SPEC 2.1 plus the batch endpoint's idempotency key. */
export interface BrowserEvent {
  path: string;
  method: string;
  status_code: number | undefined;
  response_time: number;
  identifier: string;
  service_name: string;
  environment: Environment;
  user_agent: string | undefined;
  request_id: string | undefined;
  session_id: string;
  source: 'browser';
  error_message: string | undefined;
  idempotency_key: string;
}

/** Counters since `init()`. */
export interface Stats {
  /** Events recorded (queued). */
  recorded: number;
  /** Events the server accepted. */
  sent: number;
  /** Events the server refused as invalid. */
  rejected: number;
  /** Events dropped, oldest first, from a full queue. */
  dropped: number;
  /** Events given up: out of retries, or refused as a whole (401 bad key, 403 origin not allowed, …). */
  failed: number;
  /** Calls to a backend not recorded because SPEC 2.1 does not take their method (PATCH, HEAD, OPTIONS, …). */
  skipped: number;
  /** Retries of a batch. */
  retries: number;
  /** Events handed to sendBeacon (or a keepalive fetch) on page hide: their fate is unknown. */
  beaconed: number;
}

/** What the client needs from its surroundings: the browser's, or a test's. */
export interface Env {
  fetch: Fetch;
  beacon(url: string, body: string): boolean;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
  /** Wall clock, for Retry-After dates. */
  now(): number;
  /** Monotonic milliseconds, for response times. */
  elapsed(): number;
  random(): number;
  /** What relative URLs of the page resolve against. */
  baseUrl(): string | undefined;
  sessionId: string;
  userAgent: string | undefined;
}

/** A call being recorded. */
export interface Call {
  method: string;
  path: string;
  start: number;
}

export interface Client {
  /** A call about to start: recorded when it goes to a backend with a method SPEC takes. */
  begin(method: string, url: string): Call | undefined;
  /** The call's outcome: a status, or an error (no status). */
  end(call: Call, requestId: string | undefined, status: number | undefined, error: string | undefined): void;
  /** Sends what is queued, batch after batch; resolves once the queue is empty or a batch waits
   *  for its retry. */
  flush(): Promise<void>;
  /** Page hide: everything not in flight leaves now by beacon. */
  hide(): void;
  /** No more recording; what is queued gets one attempt per batch, no retries. */
  stop(): Promise<void>;
  stats(): Stats;
}

/** The queue and its delivery: batches on an interval or when full, one request at a time,
 *  retried with backoff; on page hide, what is not in flight leaves by beacon. */
export const createClient = (o: ResolvedOptions, env: Env): Client => {
  const queue = boundedQueue(o.maxQueue);
  const counts = { recorded: 0, sent: 0, rejected: 0, failed: 0, skipped: 0, retries: 0, beaconed: 0 };
  /** The batch being sent, or waiting for its retry: it keeps its idempotency keys. */
  let pending: Entry[] | undefined;
  let attempt = 0;
  /** Events per request: maxBatch, halved for good each time the server says a batch is more
   *  than the key may send in a second (413). */
  let batchCap = o.maxBatch;
  let sending: Promise<void> | undefined;
  let flushTimer: unknown;
  let retryTimer: unknown;
  let stopped = false;

  const identifier = (): string => {
    try {
      const id = o.identify?.();
      if (typeof id === 'string' && id.length > 0) return id.slice(0, 100);
    } catch {
      // the page's identify() failing costs the event its user, not the event
    }
    return `anonymous-${env.sessionId}`;
  };

  /** Starts a send when the queue is full, else makes sure one is due within the interval. */
  const arm = (): void => {
    if (sending !== undefined || retryTimer !== undefined || queue.length === 0) return;
    if (queue.length >= batchCap) void flush();
    else if (flushTimer === undefined) {
      flushTimer = env.setTimeout(() => {
        flushTimer = undefined;
        void flush();
      }, o.flushIntervalMs);
    }
  };

  const drain = async (): Promise<void> => {
    env.clearTimeout(flushTimer);
    flushTimer = undefined;
    while (retryTimer === undefined) {
      pending ??= queue.take(batchCap, MAX_BODY_BYTES);
      const batch = pending;
      if (batch.length === 0) {
        pending = undefined;
        return;
      }
      const outcome = await postBatch(env.fetch, o.endpoint, o.apiKey, bodyOf(batch), batch.length);
      if (outcome.kind === 'delivered') {
        pending = undefined;
        attempt = 0;
        counts.sent += outcome.accepted;
        counts.rejected += outcome.rejected;
        continue;
      }
      const step = retryStep(outcome.answer, attempt, batch.length, DELAYS, () => env.random(), env.now());
      if ('retryInMs' in step && !stopped && attempt < o.maxRetries) {
        attempt += 1;
        counts.retries += 1;
        retryTimer = env.setTimeout(() => {
          retryTimer = undefined;
          void flush();
        }, step.retryInMs);
        return;
      }
      if ('split' in step) {
        // 413, or a 400 about the batch as a whole: the server takes fewer at once, for good.
        batchCap = Math.ceil(batch.length / 2);
        queue.putBack(batch.slice(batchCap));
        pending = batch.slice(0, batchCap);
        attempt = 0;
        continue;
      }
      pending = undefined;
      attempt = 0;
      // A retry given up (maxRetries, or stop()) counts as failed.
      if ('settle' in step && step.settle === 'rejected') counts.rejected += batch.length;
      else counts.failed += batch.length;
    }
  };

  const flush = (): Promise<void> =>
    (sending ??= drain().finally(() => {
      sending = undefined;
      arm();
    }));

  const cancelRetry = (): void => {
    env.clearTimeout(retryTimer);
    retryTimer = undefined;
  };

  return {
    begin(method, url) {
      if (stopped) return undefined;
      let u: URL;
      try {
        u = new URL(url, env.baseUrl());
      } catch {
        return undefined; // the page's own call will fail as it would have
      }
      if (!isRecorded(u, o.backends, o.watchlog)) return undefined;
      const m = method.toUpperCase();
      if (!SPEC_METHODS.includes(m)) {
        counts.skipped += 1;
        return undefined;
      }
      return { method: m, path: u.pathname.slice(0, 255), start: env.elapsed() };
    },

    end(call, requestId, status, error) {
      if (stopped) return;
      try {
        const event: BrowserEvent = {
          path: call.path,
          method: call.method,
          status_code: status !== undefined && status >= 100 && status <= 599 ? status : undefined,
          response_time: Math.max(0, Math.round(env.elapsed() - call.start)),
          identifier: identifier(),
          service_name: o.serviceName,
          environment: o.environment,
          user_agent: env.userAgent?.slice(0, MAX_TEXT),
          // A page's own X-Request-ID longer than the server takes is sent on, but cannot pair.
          request_id: requestId && requestId.length <= 255 ? requestId : undefined,
          session_id: env.sessionId,
          source: 'browser',
          error_message: error?.slice(0, MAX_TEXT),
          idempotency_key: uuid(),
        };
        queue.push(entryOf(event));
        counts.recorded += 1;
        arm();
      } catch {
        // never into the page
      }
    },

    flush,

    // A request in flight is a keepalive one and finishes on its own. What the browser will not
    // take stays queued, for a page that comes back (back-forward cache, tab shown again).
    hide() {
      const all = sending !== undefined ? [] : (pending ?? []);
      if (sending === undefined) {
        cancelRetry();
        pending = undefined;
        attempt = 0;
      }
      all.push(...queue.take(Infinity, Infinity));
      const url = beaconUrl(o.endpoint, o.apiKey);
      let i = 0;
      while (i < all.length) {
        const chunk = all.slice(i, i + fitting(all.slice(i), batchCap, MAX_BODY_BYTES));
        if (!env.beacon(url, bodyOf(chunk))) break;
        counts.beaconed += chunk.length;
        i += chunk.length;
      }
      if (i < all.length) {
        queue.putBack(all.slice(i));
        arm();
      }
    },

    stop() {
      stopped = true;
      cancelRetry();
      return flush();
    },

    stats: () => ({ ...counts, dropped: queue.dropped }),
  };
};
