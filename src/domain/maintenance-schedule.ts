import { RRuleTemporal } from 'rrule-temporal';
import { Temporal } from 'temporal-polyfill';

/** When a maintenance window is open: once (`starts_at` to `ends_at`), or every occurrence of an
 *  RFC 5545 rule, each lasting `duration_minutes`. A recurring window's rule is expanded in its
 *  IANA `timezone` from `starts_at` (DTSTART), so "every Sunday at 02:00 Europe/Berlin" stays at
 *  02:00 across daylight-saving changes. Pure: `rrule-temporal`, given its start as a Temporal
 *  date-time of the polyfill (imported, not installed globally). */

export type MaintenanceSchedule =
  | { kind: 'once'; starts_at: string; ends_at: string }
  | { kind: 'recurring'; rrule: string; starts_at: string; duration_minutes: number; timezone: string };

export interface Occurrence {
  /** Epoch milliseconds. */
  start: number;
  end: number;
}

/** Rules more frequent than hourly are refused: a window every minute is no maintenance. */
const TOO_FREQUENT = /(^|;)FREQ=(SECONDLY|MINUTELY)(;|$)/i;
/** One expansion never yields more occurrences than this. */
export const MAX_OCCURRENCES = 1000;
export const MAX_DURATION_MINUTES = 7 * 24 * 60;

export const isTimeZone = (zone: string): boolean => {
  try {
    Temporal.Now.zonedDateTimeISO(zone);
    return true;
  } catch {
    return false;
  }
};

const ruleOf = (s: Extract<MaintenanceSchedule, { kind: 'recurring' }>) =>
  new RRuleTemporal({
    rruleString: s.rrule.replace(/^RRULE:/i, ''),
    dtstart: Temporal.Instant.from(s.starts_at).toZonedDateTimeISO(s.timezone),
  });

/** Why a rule cannot be used, or null when it can. */
export const ruleFault = (rrule: string, startsAt: string, timezone: string): string | null => {
  if (rrule.length > 500) return 'must be at most 500 characters';
  if (/[\r\n]/.test(rrule) || /(^|;)DTSTART/i.test(rrule)) return 'must be one RRULE line, without DTSTART';
  if (!/(^|;|:)FREQ=/i.test(rrule)) return 'must have a FREQ';
  if (TOO_FREQUENT.test(rrule.replace(/^RRULE:/i, ''))) return 'must not repeat more often than hourly';
  if (!isTimeZone(timezone)) return null;
  try {
    ruleOf({ kind: 'recurring', rrule, starts_at: startsAt, duration_minutes: 1, timezone }).between(
      new Date(Date.parse(startsAt)),
      new Date(Date.parse(startsAt) + 366 * 86_400_000),
      true,
    );
    return null;
  } catch (error) {
    return `is not a valid RFC 5545 rule (${error instanceof Error ? error.message : String(error)})`;
  }
};

/** The windows that overlap [from, to), oldest first. */
export const occurrencesBetween = (schedule: MaintenanceSchedule, from: number, to: number): Occurrence[] => {
  if (schedule.kind === 'once') {
    const start = Date.parse(schedule.starts_at);
    const end = Date.parse(schedule.ends_at);
    return start < to && end > from ? [{ start, end }] : [];
  }
  const duration = schedule.duration_minutes * 60_000;
  const starts = ruleOf(schedule).between(new Date(from - duration), new Date(to), true);
  const out: Occurrence[] = [];
  for (const zoned of starts) {
    const start = zoned.epochMilliseconds;
    const end = start + duration;
    if (start < to && end > from) out.push({ start, end });
    if (out.length >= MAX_OCCURRENCES) break;
  }
  return out;
};

/** The window open at `at`, or null. Windows of one rule that overlap count as one, from the
 *  earliest start to the latest end. */
export const openAt = (schedule: MaintenanceSchedule, at: number): Occurrence | null => {
  const open = occurrencesBetween(schedule, at, at + 1).filter((o) => o.start <= at && at < o.end);
  if (open.length === 0) return null;
  return { start: Math.min(...open.map((o) => o.start)), end: Math.max(...open.map((o) => o.end)) };
};

/** Up to `count` windows that start at or after `from` within `horizonMs`. */
export const upcoming = (schedule: MaintenanceSchedule, from: number, horizonMs: number, count: number): Occurrence[] =>
  occurrencesBetween(schedule, from, from + horizonMs)
    .filter((o) => o.start >= from)
    .slice(0, count);
