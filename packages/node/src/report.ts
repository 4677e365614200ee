/** How the SDK tells the application that events are not getting through: a few lines, never
 *  one per event, and never an exception. */

/** console, pino, winston and bunyan all fit: each is called with one string. */
export interface Logger {
  warn(message: string): void;
  error(message: string): void;
  info?(message: string): void;
}

export type DeliveryProblem =
  /** 401: the API key is missing, unknown or revoked. Not retried. */
  | 'unauthorized'
  /** 403: the server refuses this origin. Not retried. */
  | 'forbidden'
  /** The server refused events as invalid (400, or `rejected` in a 202). Not retried. */
  | 'rejected'
  /** A single event larger than the server accepts (413). */
  | 'too_large'
  /** Any other answer that retrying cannot fix (404 from a wrong endpoint, …). */
  | 'failed'
  /** The service does not answer, or answers 429/5xx: events wait in the queue and are retried. */
  | 'unreachable'
  /** The queue was full: the oldest events are being dropped. */
  | 'dropping'
  /** The application's identify() threw, rejected or timed out; events are recorded as anonymous. */
  | 'identify_failed';

export class WatchlogDeliveryError extends Error {
  readonly problem: DeliveryProblem;
  /** Events concerned, when known. */
  readonly events: number;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  constructor(
    problem: DeliveryProblem,
    message: string,
    { events = 0, status }: { events?: number; status?: number } = {},
  ) {
    super(message);
    this.name = 'WatchlogDeliveryError';
    this.problem = problem;
    this.events = events;
    this.status = status;
  }
}

const REJECTION_REPORT_EVERY_MS = 60_000;

export class Reporter {
  #logger: Logger | null;
  #onError: ((error: WatchlogDeliveryError) => void) | null;
  #target: string;
  #reportedAuth = false;
  #reportedIdentify = false;
  #reportedAfterClose = false;
  #reportedFailure = new Set<number>();
  #outageSince: number | null = null;
  #droppingSince: { at: number; dropped: number } | null = null;
  #lastRejectionReport = -Infinity;
  #rejectionsUnreported = 0;

  constructor(logger: Logger | null, onError: ((error: WatchlogDeliveryError) => void) | null, target: string) {
    this.#logger = logger;
    this.#onError = onError;
    this.#target = target;
  }

  #emit(level: 'warn' | 'error' | 'info', error: WatchlogDeliveryError | null, message: string): void {
    try {
      if (this.#logger) {
        const line = `watchlog: ${message}`;
        if (level === 'info') (this.#logger.info ?? this.#logger.warn).call(this.#logger, line);
        else this.#logger[level](line);
      }
    } catch {
      // A broken logger must not break delivery.
    }
    if (error && this.#onError) {
      try {
        this.#onError(error);
      } catch {
        // Nor a broken callback.
      }
    }
  }

  /** 401/403: said once (loudly) until a batch gets through again. */
  auth(status: number, events: number, detail: string): void {
    if (this.#reportedAuth) return;
    this.#reportedAuth = true;
    const message =
      status === 401
        ? `${this.#target} refused the API key (401${detail ? `: ${detail}` : ''}): events are not being ` +
          `recorded; check apiKey (it may be revoked)`
        : `${this.#target} refused this client (403${detail ? `: ${detail}` : ''}): events are not being recorded`;
    this.#emit(
      'error',
      new WatchlogDeliveryError(status === 401 ? 'unauthorized' : 'forbidden', message, { events, status }),
      message,
    );
  }

  /** Events the server refused as invalid: reported at once, then at most once a minute. */
  rejected(count: number, firstDetail: string, status?: number): void {
    this.#rejectionsUnreported += count;
    const now = Date.now();
    if (now - this.#lastRejectionReport < REJECTION_REPORT_EVERY_MS) return;
    this.#lastRejectionReport = now;
    const n = this.#rejectionsUnreported;
    this.#rejectionsUnreported = 0;
    const message =
      `${this.#target} rejected ${n} event${n === 1 ? '' : 's'} ` +
      `as invalid (${firstDetail}); ` +
      `they are not retried`;
    this.#emit(
      'warn',
      new WatchlogDeliveryError('rejected', message, { events: n, ...(status === undefined ? {} : { status }) }),
      message,
    );
  }

  /** An answer that retrying cannot fix: said once per status. */
  failed(problem: 'too_large' | 'failed', events: number, message: string, status?: number): void {
    const key = status ?? 0;
    if (this.#reportedFailure.has(key)) return;
    this.#reportedFailure.add(key);
    this.#emit(
      'error',
      new WatchlogDeliveryError(problem, message, { events, ...(status === undefined ? {} : { status }) }),
      message,
    );
  }

  /** A delivery attempt failed in a way worth retrying: the first one of an outage is said. */
  unreachable(reason: string, queued: number, capacity: number): void {
    if (this.#outageSince !== null) return;
    this.#outageSince = Date.now();
    const message =
      `cannot deliver events to ${this.#target} (${reason}); retrying with backoff, keeping up to ` +
      `${capacity} events in memory (${queued} queued)`;
    this.#emit('warn', new WatchlogDeliveryError('unreachable', message, { events: queued }), message);
  }

  /** The queue overflowed: one warning per episode, however many events go. */
  dropping(dropped: number, capacity: number): void {
    if (this.#droppingSince !== null) return;
    this.#droppingSince = { at: Date.now(), dropped: dropped - 1 };
    const message =
      `queue full (${capacity} events): dropping the oldest ` +
      `events${this.#outageSince === null ? '' : ` while ${this.#target} is unreachable`}`;
    this.#emit('warn', new WatchlogDeliveryError('dropping', message, { events: 1 }), message);
  }

  /** A batch got through: one line when it ends an outage or a dropping episode. */
  delivered(droppedTotal: number): void {
    this.#reportedAuth = false;
    this.#reportedFailure.clear();
    if (this.#outageSince === null && this.#droppingSince === null) return;
    const since = Math.min(this.#outageSince ?? Infinity, this.#droppingSince?.at ?? Infinity);
    const dropped = this.#droppingSince ? droppedTotal - this.#droppingSince.dropped : 0;
    this.#outageSince = null;
    this.#droppingSince = null;
    this.#emit(
      'info',
      null,
      `delivering to ${this.#target} again after ${((Date.now() - since) / 1000).toFixed(1)} s; ` +
        `${dropped} event${dropped === 1 ? '' : 's'} dropped meanwhile`,
    );
  }

  identifyFailed(error: unknown): void {
    if (this.#reportedIdentify) return;
    this.#reportedIdentify = true;
    const message =
      `identify() failed (${error instanceof Error ? error.message : String(error)}); such requests ` +
      `are recorded as anonymous (said once)`;
    this.#emit('warn', new WatchlogDeliveryError('identify_failed', message), message);
  }

  /** Events recorded after close(): said once. */
  afterClose(): void {
    if (this.#reportedAfterClose) return;
    this.#reportedAfterClose = true;
    this.#emit(
      'warn',
      null,
      'an event was recorded after close(); it is dropped (close watchlog after your server has drained)',
    );
  }
}
