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

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** RFC 9110's IMF-fixdate. Date.parse alone is not used: it reads `2030` or `1.5` as dates, and
 *  a date without a zone as local time, where every other SDK finds nothing to read. */
const IMF_FIXDATE = /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

const httpDate = (v: string): number | undefined => {
  const m = IMF_FIXDATE.exec(v);
  const month = m ? MONTHS.indexOf(m[2]!) : -1;
  if (!m || month === -1) return undefined;
  const at = Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  return Number.isNaN(at) ? undefined : at;
};

/** Retry-After as delta-seconds or an HTTP date (less `now`), in milliseconds, at most
 *  MAX_RETRY_AFTER_MS; undefined when absent or unreadable. */
export const parseRetryAfter = (value: string | string[] | undefined, now: number = Date.now()): number | undefined => {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = httpDate(v);
  return at === undefined ? undefined : Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
};
