import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { ActiveKey } from '../../views/access/port.ts';
import { HttpError } from './errors.ts';

/** Ingest's rate limit: events per second per API key, counted in this process (each API
 *  replica counts its own; behind N replicas a key may send up to N times its limit). The
 *  key's own limit, else the deployment's default (0: none). A key used in a web page is public:
 *  this is what keeps someone who copies it from flooding its project. */
export class IngestRateLimiter {
  /** One counter per distinct limit: rate-limiter-flexible fixes the points of a limiter. */
  private readonly limiters = new Map<number, RateLimiterMemory>();

  constructor(private readonly defaultPerSecond: number) {}

  private limiterFor(perSecond: number): RateLimiterMemory {
    let limiter = this.limiters.get(perSecond);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: perSecond, duration: 1 });
      this.limiters.set(perSecond, limiter);
    }
    return limiter;
  }

  /** Counts `events` against the key's second: 429 with `Retry-After` past its limit, 413 for a
   *  batch larger than a whole second of it (no wait would let it through). */
  async take(key: Pick<ActiveKey, 'id' | 'rate_limit'>, events: number): Promise<void> {
    const perSecond = key.rate_limit ?? this.defaultPerSecond;
    if (perSecond === 0) return;
    if (events > perSecond) {
      throw new HttpError(
        413,
        'payload_too_large',
        `a batch of ${events} events is more than this API key may send in a second (${perSecond}): send ` +
          `at most ${perSecond} per batch`,
        [{ path: 'body', message: `must hold at most ${perSecond} events for this API key` }],
      );
    }
    try {
      await this.limiterFor(perSecond).consume(key.id, events);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new HttpError(
        429,
        'too_many_requests',
        `this API key may send ${perSecond} events per second; retry in ${seconds} s`,
        [],
        { 'Retry-After': String(seconds) },
      );
    }
  }
}
