import { HOUR_MS, hourOf } from './stats.ts';

/** A monitor's uptime and mean response time, counted per hour (for the last 24 hours and 7 days)
 *  and per UTC day (for the last 30 and 90 days): a window is its whole hours (days) plus the
 *  current one. Buckets are kept for the longest window only, so a monitor costs at most
 *  UPTIME_HOURS_KEPT + UPTIME_DAYS_KEPT rows however long it runs. */

export const DAY_MS = 24 * HOUR_MS;
export const UPTIME_HOURS_KEPT = 7 * 24 + 1;
export const UPTIME_DAYS_KEPT = 90 + 1;

/** The hour a time falls in, as the epoch milliseconds of its start. */
export const uptimeHourOf = (time: string | Date): number => hourOf(new Date(time).getTime());
/** The UTC day a time falls in, as the epoch milliseconds of its start. */
export const uptimeDayOf = (time: string | Date): number => {
  const ms = new Date(time).getTime();
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
};

/** A monitor's checks in one hour or day (`start`: its first millisecond). `ok_response_ms` sums
 *  the response times of the OK checks: a failed check's time is a timeout's, not the service's. */
export interface UptimeBucket {
  start: number;
  ok: number;
  total: number;
  ok_response_ms: number;
}

const windowOf = (buckets: ReadonlyArray<UptimeBucket>, from: number, to: number) => {
  let ok = 0;
  let total = 0;
  let responseMs = 0;
  for (const b of buckets) {
    if (b.start < from || b.start > to) continue;
    ok += b.ok;
    total += b.total;
    responseMs += b.ok_response_ms;
  }
  return { uptime: total === 0 ? null : ok / total, avg: ok === 0 ? null : Math.round(responseMs / ok) };
};

/** The share of OK checks (null without checks) and the mean response time of the OK checks
 *  (null without one), per window. */
export interface MonitorUptime {
  uptime_24h: number | null;
  uptime_7d: number | null;
  uptime_30d: number | null;
  uptime_90d: number | null;
  avg_response_ms_24h: number | null;
  avg_response_ms_7d: number | null;
  avg_response_ms_30d: number | null;
  avg_response_ms_90d: number | null;
}

export const uptimeAt = (
  hours: ReadonlyArray<UptimeBucket>,
  days: ReadonlyArray<UptimeBucket>,
  now: Date,
): MonitorUptime => {
  const hour = uptimeHourOf(now);
  const day = uptimeDayOf(now);
  const h24 = windowOf(hours, hour - 24 * HOUR_MS, hour);
  const d7 = windowOf(hours, hour - 7 * 24 * HOUR_MS, hour);
  const d30 = windowOf(days, day - 30 * DAY_MS, day);
  const d90 = windowOf(days, day - 90 * DAY_MS, day);
  return {
    uptime_24h: h24.uptime,
    uptime_7d: d7.uptime,
    uptime_30d: d30.uptime,
    uptime_90d: d90.uptime,
    avg_response_ms_24h: h24.avg,
    avg_response_ms_7d: d7.avg,
    avg_response_ms_30d: d30.avg,
    avg_response_ms_90d: d90.avg,
  };
};
