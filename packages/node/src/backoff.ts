/** The longest Retry-After honoured: a server asking for more is treated as asking for this. */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Exponential backoff with full jitter: uniformly random in [0, min(max, initial·2^attempt)],
 *  so clients that failed together do not retry together. */
export const backoffDelay = (
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number => Math.floor(random() * Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30)));

/** Retry-After as delta-seconds or an HTTP date, in milliseconds; undefined when absent or
 *  unreadable. */
export const parseRetryAfter = (value: string | string[] | undefined): number | undefined => {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS);
};
