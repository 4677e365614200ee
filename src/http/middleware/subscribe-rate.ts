import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from './errors.ts';

/** How often a status page may be asked for subscriptions: each one sends a message to an address
 *  anyone may type, so a form must not become a way to flood someone's inbox or the deployment's
 *  mail server. Counted in this process's memory (each API replica counts its own; a restart
 *  forgets), per client address and per page, over ten minutes. */
export interface SubscribeLimits {
  /** Requests of one client address, any page. */
  perAddress: number;
  /** Requests to one page, any address. */
  perPage: number;
}

export const DEFAULT_SUBSCRIBE_LIMITS: SubscribeLimits = { perAddress: 10, perPage: 200 };
const WINDOW_S = 600;

export class SubscribeRateLimiter {
  private readonly byAddress: RateLimiterMemory;
  private readonly byPage: RateLimiterMemory;

  constructor(limits: SubscribeLimits = DEFAULT_SUBSCRIBE_LIMITS) {
    this.byAddress = new RateLimiterMemory({ points: limits.perAddress, duration: WINDOW_S, keyPrefix: 'address' });
    this.byPage = new RateLimiterMemory({ points: limits.perPage, duration: WINDOW_S, keyPrefix: 'page' });
  }

  /** Counts one request: 429 with `Retry-After` past either limit. */
  async take(clientAddress: string, pageId: string): Promise<void> {
    try {
      await this.byAddress.consume(clientAddress);
      await this.byPage.consume(pageId);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
      throw new HttpError(429, 'too_many_requests', `too many subscription requests; retry in ${seconds} s`, [], {
        'Retry-After': String(seconds),
      });
    }
  }
}
