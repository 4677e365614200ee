export const BASE_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;
/** A server asking for more than this is still retried after this long: a page rarely lives
 *  longer, and the queue is bounded anyway. */
export const MAX_RETRY_AFTER_MS = 300_000;

/** `Retry-After` in milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export const retryAfterMs = (value: string | null | undefined, now: number): number | undefined => {
  const s = value?.trim();
  if (!s) return undefined;
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  // An HTTP date names its day and month; Date.parse alone would read '-5' as a year.
  const at = /[a-z]/i.test(s) ? Date.parse(s) : NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

/** The wait before retry number `attempt` (1-based): the server's Retry-After when it gave one,
 *  else exponential from 1 s, capped at 30 s, with jitter (half to all of it, from `random` in
 *  [0, 1)) so that many tabs hit by one outage do not come back in step. */
export const backoffMs = (attempt: number, random: number, retryAfter?: number): number =>
  retryAfter !== undefined
    ? Math.min(retryAfter, MAX_RETRY_AFTER_MS)
    : Math.round(Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1)) * (0.5 + random / 2));
