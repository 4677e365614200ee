import type { Maintenance, MaintenanceCreate, Verbatim } from '../../api.ts';
import { numberOf } from '../monitors/form-values.ts';
import { isoToLocalInput, localInputToIso } from '../events-shared.tsx';
import { browserZone, isoToWall, wallToIso } from './zoned.ts';

/** The maintenance form's state (what the reader typed), the bodies of POST and PUT made from it,
 *  and schedules in words. Pure. */

export type Repeat = 'daily' | 'weekly' | 'monthly' | 'custom';
export const WEEKDAYS: Array<[string, string]> = [
  ['MO', 'Monday'],
  ['TU', 'Tuesday'],
  ['WE', 'Wednesday'],
  ['TH', 'Thursday'],
  ['FR', 'Friday'],
  ['SA', 'Saturday'],
  ['SU', 'Sunday'],
];

export interface WindowValues {
  title: string;
  description: string;
  kind: 'once' | 'recurring';
  /** One-off: `datetime-local` text in the browser's zone. */
  startsLocal: string;
  endsLocal: string;
  /** Recurring: the first start, as the clocks of `timezone` read it. */
  firstStart: string;
  repeat: Repeat;
  weekdays: string[];
  rrule: string;
  duration: string;
  timezone: string;
  everyMonitor: boolean;
  monitorIds: string[];
}

/** The rule of a preset, or the rule as typed. */
export const ruleOf = (v: Pick<WindowValues, 'repeat' | 'weekdays' | 'rrule'>): string => {
  switch (v.repeat) {
    case 'daily':
      return 'FREQ=DAILY';
    case 'weekly': {
      const days = WEEKDAYS.map(([d]) => d).filter((d) => v.weekdays.includes(d));
      return days.length === 0 ? 'FREQ=WEEKLY' : `FREQ=WEEKLY;BYDAY=${days.join(',')}`;
    }
    case 'monthly':
      return 'FREQ=MONTHLY';
    default:
      return v.rrule.trim();
  }
};

/** The preset a rule is, or `custom` with its text. */
export const presetOf = (rule: string): Pick<WindowValues, 'repeat' | 'weekdays' | 'rrule'> => {
  const r = rule.replace(/^RRULE:/i, '').toUpperCase();
  if (r === 'FREQ=DAILY') return { repeat: 'daily', weekdays: [], rrule: r };
  if (r === 'FREQ=MONTHLY') return { repeat: 'monthly', weekdays: [], rrule: r };
  const weekly = /^FREQ=WEEKLY(?:;BYDAY=((?:MO|TU|WE|TH|FR|SA|SU)(?:,(?:MO|TU|WE|TH|FR|SA|SU))*))?$/.exec(r);
  if (weekly !== null) return { repeat: 'weekly', weekdays: weekly[1]?.split(',') ?? [], rrule: r };
  return { repeat: 'custom', weekdays: [], rrule: r };
};

const nextHour = (): string => {
  const d = new Date(Date.now() + 3_600_000);
  d.setMinutes(0, 0, 0);
  return isoToLocalInput(d.toISOString()).slice(0, 16);
};

export const valuesOf = (w: Maintenance | null): WindowValues => {
  const zone = w?.schedule.kind === 'recurring' ? w.schedule.timezone : browserZone();
  const start = w?.schedule.starts_at;
  const base: WindowValues = {
    title: w?.title ?? '',
    description: w?.description ?? '',
    kind: w?.schedule.kind ?? 'once',
    startsLocal: start === undefined ? nextHour() : isoToLocalInput(start).slice(0, 16),
    endsLocal: '',
    firstStart: start === undefined ? nextHour() : isoToWall(start, zone),
    repeat: 'weekly',
    weekdays: [],
    rrule: '',
    duration: '60',
    timezone: zone,
    everyMonitor: w === null || w.monitor_ids === 'all',
    monitorIds: w === null || w.monitor_ids === 'all' ? [] : [...w.monitor_ids],
  };
  if (w?.schedule.kind === 'once') return { ...base, endsLocal: isoToLocalInput(w.schedule.ends_at).slice(0, 16) };
  if (w?.schedule.kind === 'recurring')
    return { ...base, ...presetOf(w.schedule.rrule), duration: String(w.schedule.duration_minutes) };
  return base;
};

type Body = Omit<MaintenanceCreate, 'project_id' | 'duration_minutes'> & { duration_minutes?: number | Verbatim };

/** Every field of the chosen kind, as both POST and PUT take them (a PUT of the other kind
 *  switches the window's kind). A time that cannot be read is sent empty: the server names it. */
export const bodyOf = (v: WindowValues): Body => {
  const common = {
    title: v.title.trim(),
    description: v.description.trim() === '' ? null : v.description.trim(),
    monitor_ids: v.everyMonitor ? ('all' as const) : v.monitorIds,
  };
  if (v.kind === 'once')
    return { ...common, starts_at: localInputToIso(v.startsLocal) ?? '', ends_at: localInputToIso(v.endsLocal) ?? '' };
  const zone = v.timezone.trim();
  const duration = numberOf(v.duration);
  return {
    ...common,
    starts_at: wallToIso(v.firstStart, zone) ?? localInputToIso(v.firstStart) ?? '',
    rrule: ruleOf(v),
    ...(duration === undefined ? {} : { duration_minutes: duration }),
    timezone: zone,
  };
};

export const SHOWN = [
  'title',
  'description',
  'monitor_ids',
  'starts_at',
  'ends_at',
  'rrule',
  'duration_minutes',
  'timezone',
];

const DAY_NAMES = Object.fromEntries(WEEKDAYS);

export const durationText = (minutes: number): string => {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return [h > 0 ? `${h} h` : '', m > 0 ? `${m} min` : ''].filter(Boolean).join(' ') || '0 min';
};

/** "Every week on Sunday, 02:00 for 1 h (Europe/Berlin)", or the rule itself when no preset. */
export const scheduleText = (s: Maintenance['schedule']): string => {
  if (s.kind === 'once') return 'Once';
  const p = presetOf(s.rrule);
  const at = `${isoToWall(s.starts_at, s.timezone).slice(11)} for ${durationText(s.duration_minutes)} (${s.timezone})`;
  switch (p.repeat) {
    case 'daily':
      return `Every day at ${at}`;
    case 'weekly':
      return p.weekdays.length === 0
        ? `Every week at ${at}`
        : `Every week on ${p.weekdays.map((d) => DAY_NAMES[d] ?? d).join(', ')} at ${at}`;
    case 'monthly':
      return `Every month on day ${isoToWall(s.starts_at, s.timezone).slice(8, 10).replace(/^0/, '')} at ${at}`;
    default:
      return `${s.rrule} from ${isoToWall(s.starts_at, s.timezone).replace('T', ' ')}, ${durationText(
        s.duration_minutes,
      )} each (${s.timezone})`;
  }
};
