import {
  ACCOUNT_FAILURES_KEPT_SECONDS,
  accountLockSeconds,
  addressKey,
  type LoginLimits,
} from '../../domain/login-throttle.ts';

/** Failed logins, counted where every API process sees them: in the read-model store (the
 *  embedded SQLite file, or MongoDB). Not a read model: nothing in the log builds it, and a
 *  rebuild leaves it alone. The rule is `src/domain/login-throttle.ts`. */

export interface LoginAttempt {
  /** Lower-cased. */
  readonly email: string;
  /** The client's address (the socket's peer); counted by `addressKey` (IPv6 by its /64). */
  readonly address: string;
}

export interface LoginThrottle {
  /** How long this attempt must wait, in milliseconds; 0 when it may be made now. Asked before
   *  the password is checked, so a refused attempt costs no hashing. */
  retryAfterMs(attempt: LoginAttempt): Promise<number>;
  failed(attempt: LoginAttempt): Promise<void>;
  succeeded(attempt: LoginAttempt): Promise<void>;
  /** Forgets an account's failures and lock (after a password reset). */
  forgetAccount(email: string): Promise<void>;
  close(): Promise<void>;
}

/** The little the throttle needs of a store's counter: rate-limiter-flexible's store limiters
 *  (RateLimiterSQLite, RateLimiterMongo) have this shape. */
export interface Counter {
  get(key: string): Promise<{ consumedPoints: number; msBeforeNext: number } | null>;
  penalty(key: string, points?: number): Promise<{ consumedPoints: number; msBeforeNext: number }>;
  block(key: string, seconds: number): Promise<unknown>;
  delete(key: string): Promise<boolean>;
}

export interface ThrottleCounters {
  /** Failures in a row per account, kept ACCOUNT_FAILURES_KEPT_SECONDS. */
  readonly accountFailures: Counter;
  /** An account's current lock (set with `block`). */
  readonly accountLock: Counter;
  /** Failures per address in the address window. */
  readonly addressFailures: Counter;
}

/** The counters' settings for a set of limits: each adapter builds its limiters from these. */
export const counterSettings = (limits: LoginLimits) =>
  ({
    accountFailures: {
      keyPrefix: 'account_failures',
      points: limits.accountFailures,
      duration: ACCOUNT_FAILURES_KEPT_SECONDS,
    },
    accountLock: { keyPrefix: 'account_lock', points: 1, duration: limits.accountMaxLockSeconds },
    addressFailures: {
      keyPrefix: 'address_failures',
      points: limits.addressFailures,
      duration: limits.addressWindowSeconds,
    },
  }) as const;

/** The throttle over a store's counters. Check, then record: attempts made in parallel all pass
 *  the check before their failures are counted, so a burst can exceed a limit by what is in
 *  flight at once (the password hasher lets two run per process). */
export const throttleOver = (
  counters: ThrottleCounters,
  limits: LoginLimits,
  close: () => Promise<void>,
): LoginThrottle => ({
  async retryAfterMs({ email, address }) {
    const [lock, byAddress] = await Promise.all([
      counters.accountLock.get(email),
      counters.addressFailures.get(addressKey(address)),
    ]);
    const locked = lock && lock.msBeforeNext > 0 ? lock.msBeforeNext : 0;
    const spent =
      byAddress && byAddress.consumedPoints >= limits.addressFailures && byAddress.msBeforeNext > 0
        ? byAddress.msBeforeNext
        : 0;
    return Math.max(locked, spent);
  },
  async failed({ email, address }) {
    const [failures] = await Promise.all([
      counters.accountFailures.penalty(email),
      counters.addressFailures.penalty(addressKey(address)),
    ]);
    const seconds = accountLockSeconds(failures.consumedPoints, limits);
    if (seconds > 0) await counters.accountLock.block(email, seconds);
  },
  async succeeded({ email }) {
    await Promise.all([counters.accountFailures.delete(email), counters.accountLock.delete(email)]);
  },
  async forgetAccount(email) {
    await Promise.all([counters.accountFailures.delete(email), counters.accountLock.delete(email)]);
  },
  close,
});
