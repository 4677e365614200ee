import type { Maintenance } from '../../api.ts';
import { zonedText } from './zoned.ts';

/** The occurrences of maintenance windows within a span (a calendar's month), computed in the
 *  browser. A recurring window is expanded by `rrule-temporal`, the library the server expands it
 *  with (src/domain/maintenance-schedule.ts), from the same DTSTART in the same zone, so the
 *  calendar and the server agree. The library (about 50 KB gzipped, with its own Temporal) loads
 *  with the first calendar, not with the dashboard. A rule it cannot expand falls back to the
 *  window's `next` occurrences, as the API answered them, and says so. */

export interface Occurrence {
  window: Maintenance;
  /** Epoch milliseconds. */
  start: number;
  end: number;
}

export interface Expanded {
  occurrences: Occurrence[];
  /** The windows shown from their `next` occurrences only (their rule could not be expanded here). */
  partial: Maintenance[];
}

/** One expansion never yields more than this, as on the server. */
const MAX_OCCURRENCES = 1000;

const fromAnswer = (w: Maintenance, from: number, to: number): Occurrence[] =>
  [...(w.open === null ? [] : [w.open]), ...w.next]
    .map((o) => ({ window: w, start: Date.parse(o.start), end: Date.parse(o.end) }))
    .filter((o, i, all) => o.start < to && o.end > from && all.findIndex((x) => x.start === o.start) === i);

export const occurrencesBetween = async (
  windows: readonly Maintenance[],
  from: number,
  to: number,
): Promise<Expanded> => {
  const out: Occurrence[] = [];
  const partial: Maintenance[] = [];
  const recurring = windows.filter((w) => w.schedule.kind === 'recurring');
  let RRuleTemporal: typeof import('rrule-temporal').RRuleTemporal | null = null;
  if (recurring.length > 0) {
    try {
      ({ RRuleTemporal } = await import('rrule-temporal'));
    } catch {
      RRuleTemporal = null;
    }
  }
  for (const w of windows) {
    const s = w.schedule;
    if (s.kind === 'once') {
      out.push(...fromAnswer({ ...w, next: [{ start: s.starts_at, end: s.ends_at }], open: null }, from, to));
      continue;
    }
    const duration = s.duration_minutes * 60_000;
    try {
      if (RRuleTemporal === null) throw new Error('rrule-temporal did not load');
      const rule = new RRuleTemporal({
        rruleString: s.rrule.replace(/^RRULE:/i, ''),
        dtstart: { timeZoneId: s.timezone, toString: () => zonedText(s.starts_at, s.timezone) },
      });
      const starts = rule.between(new Date(from - duration), new Date(to), true);
      for (const zoned of starts.slice(0, MAX_OCCURRENCES)) {
        const start = zoned.epochMilliseconds;
        if (start < to && start + duration > from) out.push({ window: w, start, end: start + duration });
      }
    } catch {
      partial.push(w);
      out.push(...fromAnswer(w, from, to));
    }
  }
  return { occurrences: out.sort((a, b) => a.start - b.start), partial };
};
