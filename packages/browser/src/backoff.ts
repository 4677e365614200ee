export const BASE_DELAY_MS = 1000;
export const MAX_DELAY_MS = 30_000;
/** A server asking for more than this is still retried after this long: a page rarely lives
 *  longer, and the queue is bounded anyway. */
export const MAX_RETRY_AFTER_MS = 300_000;

const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';
/** RFC 9110's IMF-fixdate. Date.parse alone would read `-5` or `2026-01-01T00:00:10Z` as dates,
 *  where the other SDKs find nothing to read (packages/conformance/retry.json). */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) ([A-Z][a-z]{2}) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;

/** `Retry-After` in milliseconds from `now`, at most MAX_RETRY_AFTER_MS: delta-seconds or an
 *  HTTP date (RFC 9110 10.2.3); undefined when absent or unreadable. */
export const retryAfterMs = (value: string | null | undefined, now: number): number | undefined => {
  const s = value?.trim();
  if (!s) return undefined;
  if (/^\d+$/.test(s)) return Math.min(Number(s) * 1000, MAX_RETRY_AFTER_MS);
  const m = IMF_FIXDATE.exec(s);
  const month = m ? MONTHS.indexOf(m[2]!) : -1;
  if (!m || month % 3 !== 0) return undefined;
  const at = Date.UTC(Number(m[3]), month / 3, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(at) ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
};

/** The wait before retrying after attempt `attempt` (0 for the first): exponential from
 *  `initialMs`, capped at `maxMs`, with full jitter (anywhere below it, from `random` in [0, 1))
 *  so that many tabs hit by one outage do not come back in step. */
export const backoffMs = (attempt: number, random: number, initialMs: number, maxMs: number): number =>
  Math.floor(random * Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30)));
