import { useQuery } from '@tanstack/react-query';
import type { Maintenance } from '../../api.ts';
import { ErrorNote, Loading } from '../../components/ui.tsx';
import { browserZone } from './zoned.ts';
import { type Occurrence, occurrencesBetween } from './occurrences.ts';

const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-09` → the first of that month, local time; another text → this month. */
export const monthOf = (text: string | null): Date => {
  const m = /^(\d{4})-(\d{2})$/.exec(text ?? '');
  const now = new Date();
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 12) return new Date(now.getFullYear(), now.getMonth(), 1);
  return new Date(Number(m[1]), Number(m[2]) - 1, 1);
};
export const monthText = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}`;
export const addMonths = (d: Date, n: number) => new Date(d.getFullYear(), d.getMonth() + n, 1);

const monthName = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric' });
const dayName = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long' });
const weekdayShort = new Intl.DateTimeFormat(undefined, { weekday: 'short' });
const weekdayLong = new Intl.DateTimeFormat(undefined, { weekday: 'long' });
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const monthTitle = (d: Date) => monthName.format(d);

/** The days the grid shows: whole weeks, Monday first, around the month. */
const gridDays = (month: Date): Date[] => {
  const first = new Date(month);
  first.setDate(1 - ((month.getDay() + 6) % 7));
  const last = new Date(month.getFullYear(), month.getMonth() + 1, 0);
  last.setDate(last.getDate() + (6 - ((last.getDay() + 6) % 7)));
  const days: Date[] = [];
  for (let d = new Date(first); d <= last; d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)) days.push(d);
  return days;
};
const nextDay = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime();
const sameDay = (a: Date, b: Date) => a.toDateString() === b.toDateString();

/** What a cell says of an occurrence: its start time on its first day, "until" on its last,
 *  "all day" between. */
const inDay = (o: Occurrence, day: Date): string => {
  const from = day.getTime();
  const to = nextDay(day);
  if (o.start >= from) return clock.format(o.start);
  if (o.end <= to) return `until ${clock.format(o.end)}`;
  return 'all day';
};

/** "6 Sept 2026, 02:00 – 03:00", the end's date said when it is another day. */
export const spanText = (o: { start: number; end: number }) => {
  const sameDate = o.end - o.start < DAY_MS && sameDay(new Date(o.start), new Date(o.end));
  return `${dateTime.format(o.start)} – ${sameDate ? clock.format(o.end) : dateTime.format(o.end)}`;
};

/** A month of the project's maintenance: every occurrence of every window on the days it covers,
 *  in the reader's time zone, as a grid and, under it, as a list (what a phone shows in full). */
export const Calendar = ({
  windows,
  month,
  fingerprint,
}: {
  windows: readonly Maintenance[];
  month: Date;
  fingerprint: string;
}) => {
  const days = gridDays(month);
  const from = days[0]!.getTime();
  const to = nextDay(days.at(-1)!);
  const expanded = useQuery({
    queryKey: ['maintenance-occurrences', fingerprint, from, to],
    queryFn: () => occurrencesBetween(windows, from, to),
    staleTime: 60_000,
  });
  const occurrences = expanded.data?.occurrences ?? [];
  const inMonth = occurrences.filter((o) => o.end > month.getTime() && o.start < addMonths(month, 1).getTime());
  const weeks: Date[][] = [];
  for (let i = 0; i < days.length; i += 7) weeks.push(days.slice(i, i + 7));
  const today = new Date();
  const title = monthTitle(month);
  return (
    <div className="cal">
      <p className="muted small">Times in your time zone ({browserZone()}).</p>
      {expanded.isPending && <Loading what="the occurrences" />}
      <ErrorNote error={expanded.error} title="The occurrences could not be computed" />
      {(expanded.data?.partial.length ?? 0) > 0 && (
        <p className="notice">
          Shown from their next occurrences only (their rule could not be expanded here):{' '}
          {expanded.data!.partial.map((w) => w.title).join(', ')}.
        </p>
      )}
      <div className="table-wrap">
        <table className="cal-grid">
          <caption className="visually-hidden">Maintenance in {title}</caption>
          <thead>
            <tr>
              {weeks[0]!.map((d) => (
                <th key={d.getDay()} scope="col">
                  <abbr title={weekdayLong.format(d)}>{weekdayShort.format(d)}</abbr>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {weeks.map((week) => (
              <tr key={week[0]!.getTime()}>
                {week.map((day) => {
                  const here = occurrences.filter((o) => o.start < nextDay(day) && o.end > day.getTime());
                  const outside = day.getMonth() !== month.getMonth();
                  return (
                    <td
                      key={day.getTime()}
                      className={`${outside ? 'cal-outside' : ''}${here.length > 0 ? ' cal-busy' : ''}`}
                      aria-current={sameDay(day, today) ? 'date' : undefined}
                    >
                      <div className="cal-day">
                        <span aria-hidden="true">{day.getDate()}</span>
                        <span className="visually-hidden">{dayName.format(day)}</span>
                      </div>
                      {here.length > 0 && (
                        <ul className="cal-items">
                          {here.map((o) => (
                            <li key={`${o.window.id}-${o.start}`} title={`${o.window.title}: ${spanText(o)}`}>
                              <span className="cal-time">{inDay(o, day)}</span>{' '}
                              <span className="cal-title">{o.window.title}</span>
                            </li>
                          ))}
                        </ul>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>In {title}</h3>
      {expanded.isSuccess && inMonth.length === 0 && <p className="muted">No maintenance this month.</p>}
      {inMonth.length > 0 && (
        <ul className="cal-agenda" aria-label={`Maintenance occurrences in ${title}`}>
          {inMonth.map((o) => (
            <li key={`${o.window.id}-${o.start}`}>
              <time dateTime={new Date(o.start).toISOString()}>{spanText(o)}</time>: <strong>{o.window.title}</strong>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
};
