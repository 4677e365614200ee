import * as t from 'io-ts';
import { boundedArray, boundedString, closed, IsoTimestamp, intRange, ManagedBy, Uuid } from './codecs.ts';
import type { Decider } from './decider.ts';
import { DomainError, type ErrorDetail, invalid, notFound } from './errors.ts';
import type { DomainEvent } from './events.ts';
import { isTimeZone, MAX_DURATION_MINUTES, type MaintenanceSchedule, ruleFault } from './maintenance-schedule.ts';

/** Maintenance windows (docs/status-pages.md#maintenance): planned work on some monitors of a
 *  project, or all of them. During a window checks run and are recorded, but transitions notify
 *  no one, uptime leaves the checks out, and status pages say "under maintenance". One stream per
 *  window (`maintenance-{id}`); the worker's maintenance clock appends MaintenanceStarted and
 *  MaintenanceEnded as each occurrence opens and closes. */

export const MAX_MAINTENANCE_MONITORS = 500;
/** A one-off window lasts at most this long. */
export const MAX_WINDOW_DAYS = 31;

export const MaintenanceMonitors = t.union(
  [t.literal('all'), boundedArray(Uuid, 1, MAX_MAINTENANCE_MONITORS, `a list of 1 to ${MAX_MAINTENANCE_MONITORS} ids`)],
  '"all" or a list of monitor ids',
);
export type MaintenanceMonitors = t.TypeOf<typeof MaintenanceMonitors>;

export const maintenanceShape = {
  title: boundedString(1, 200),
  description: t.union([t.null, boundedString(0, 2000)]),
  monitor_ids: MaintenanceMonitors,
  starts_at: IsoTimestamp,
  ends_at: IsoTimestamp,
  rrule: boundedString(1, 500),
  duration_minutes: intRange(1, MAX_DURATION_MINUTES),
  timezone: boundedString(1, 64),
  managed_by: ManagedBy,
};

/** One-off: `starts_at` and `ends_at`. Recurring: `rrule`, `starts_at` (its DTSTART),
 *  `duration_minutes` and `timezone`. Which one is told by `rrule`. */
export const MaintenanceCreateInput = closed(
  t.exact(
    t.intersection([
      t.type({
        project_id: Uuid,
        title: maintenanceShape.title,
        monitor_ids: maintenanceShape.monitor_ids,
        starts_at: maintenanceShape.starts_at,
      }),
      t.partial({
        description: maintenanceShape.description,
        ends_at: maintenanceShape.ends_at,
        rrule: maintenanceShape.rrule,
        duration_minutes: maintenanceShape.duration_minutes,
        timezone: maintenanceShape.timezone,
        managed_by: maintenanceShape.managed_by,
      }),
    ]),
  ),
  'field',
  'a maintenance window',
);
export type MaintenanceCreateInput = t.TypeOf<typeof MaintenanceCreateInput>;

/** A PUT names the fields it changes; a schedule is given whole (every field of its kind). */
export const MaintenanceUpdateInput = closed(
  t.exact(t.partial(maintenanceShape)),
  'field',
  'changes to a maintenance window',
);
export type MaintenanceUpdateInput = t.TypeOf<typeof MaintenanceUpdateInput>;

type ScheduleFields = Partial<
  Pick<MaintenanceCreateInput, 'starts_at' | 'ends_at' | 'rrule' | 'duration_minutes' | 'timezone'>
>;

/** The schedule the fields describe, or every fault with its path. */
export const scheduleOf = (f: ScheduleFields): MaintenanceSchedule => {
  const faults: ErrorDetail[] = [];
  if (f.starts_at === undefined) faults.push({ path: 'starts_at', message: 'is required' });
  if (f.rrule === undefined) {
    for (const key of ['duration_minutes', 'timezone'] as const)
      if (f[key] !== undefined) faults.push({ path: key, message: 'is for recurring windows (with rrule) only' });
    if (f.ends_at === undefined) faults.push({ path: 'ends_at', message: 'is required of a one-off window' });
    else if (f.starts_at !== undefined) {
      const length = Date.parse(f.ends_at) - Date.parse(f.starts_at);
      if (length <= 0) faults.push({ path: 'ends_at', message: 'must be after starts_at' });
      else if (length > MAX_WINDOW_DAYS * 86_400_000)
        faults.push({ path: 'ends_at', message: `must be at most ${MAX_WINDOW_DAYS} days after starts_at` });
    }
    if (faults.length > 0) throw invalid('maintenance window', faults);
    return { kind: 'once', starts_at: f.starts_at!, ends_at: f.ends_at! };
  }
  if (f.ends_at !== undefined)
    faults.push({ path: 'ends_at', message: 'is for one-off windows; a rule ends with UNTIL or COUNT' });
  if (f.duration_minutes === undefined) faults.push({ path: 'duration_minutes', message: 'is required with rrule' });
  if (f.timezone === undefined) faults.push({ path: 'timezone', message: 'is required with rrule' });
  else if (!isTimeZone(f.timezone))
    faults.push({ path: 'timezone', message: 'must be an IANA time zone (Europe/Berlin)' });
  if (f.starts_at !== undefined && f.timezone !== undefined) {
    const fault = ruleFault(f.rrule, f.starts_at, f.timezone);
    if (fault !== null) faults.push({ path: 'rrule', message: fault });
  }
  if (faults.length > 0) throw invalid('maintenance window', faults);
  return {
    kind: 'recurring',
    rrule: f.rrule.replace(/^RRULE:/i, '').toUpperCase(),
    starts_at: f.starts_at!,
    duration_minutes: f.duration_minutes!,
    timezone: f.timezone!,
  };
};

/** The schedule's own fields, to lay a PUT's over. */
export const scheduleFields = (s: MaintenanceSchedule): ScheduleFields =>
  s.kind === 'once'
    ? { starts_at: s.starts_at, ends_at: s.ends_at }
    : { starts_at: s.starts_at, rrule: s.rrule, duration_minutes: s.duration_minutes, timezone: s.timezone };

export const MaintenanceScheduleCodec = t.union([
  t.type({ kind: t.literal('once'), starts_at: t.string, ends_at: t.string }),
  t.type({
    kind: t.literal('recurring'),
    rrule: t.string,
    starts_at: t.string,
    duration_minutes: t.number,
    timezone: t.string,
  }),
]);

const storedSettings = {
  title: t.string,
  description: t.union([t.null, t.string]),
  monitor_ids: t.union([t.literal('all'), t.array(t.string)]),
  schedule: MaintenanceScheduleCodec,
};
/** A window as the log keeps it (`managed_by` absent on one made by hand). */
export const MaintenanceSettings = t.intersection([t.type(storedSettings), t.partial({ managed_by: t.string })]);
export type MaintenanceSettings = t.TypeOf<typeof MaintenanceSettings>;

const ids = { maintenance_id: t.string, project_id: t.string };
const window = { occurrence_start: t.string, occurrence_end: t.string };

export const maintenanceEvents = {
  MaintenanceScheduled: t.intersection([t.type({ ...ids, created_at: t.string }), MaintenanceSettings]),
  MaintenanceUpdated: t.type({
    ...ids,
    changes: t.partial({ ...storedSettings, managed_by: t.string }),
    updated_at: t.string,
  }),
  MaintenanceDeleted: t.type({ ...ids, deleted_at: t.string }),
  /** An occurrence opened (`at`: when the clock saw it; `occurrence_start` when it was due). */
  MaintenanceStarted: t.type({
    ...ids,
    ...window,
    title: t.string,
    monitor_ids: t.union([t.literal('all'), t.array(t.string)]),
    at: t.string,
  }),
  /** It closed: at its end, or earlier when the window was changed or deleted. `title`: the
   *  window's then, for the audit event that says so. */
  MaintenanceEnded: t.intersection([t.type({ ...ids, ...window, at: t.string }), t.partial({ title: t.string })]),
} as const;

export interface MaintenanceState {
  id: string | null;
  projectId: string;
  deleted: boolean;
  settings: MaintenanceSettings | null;
  /** The occurrence open now, as the log last said. */
  open: { start: string; end: string } | null;
}

export const initialMaintenance: MaintenanceState = {
  id: null,
  projectId: '',
  deleted: false,
  settings: null,
  open: null,
};

export const evolveMaintenance = (state: MaintenanceState, e: DomainEvent): MaintenanceState => {
  switch (e.type) {
    case 'MaintenanceScheduled': {
      const { maintenance_id, project_id, created_at: _, ...settings } = e.data;
      return { ...initialMaintenance, id: maintenance_id, projectId: project_id, settings };
    }
    case 'MaintenanceUpdated':
      return state.settings === null ? state : { ...state, settings: { ...state.settings, ...e.data.changes } };
    case 'MaintenanceDeleted':
      return { ...state, deleted: true };
    case 'MaintenanceStarted':
      return { ...state, open: { start: e.data.occurrence_start, end: e.data.occurrence_end } };
    case 'MaintenanceEnded':
      return { ...state, open: null };
    default:
      return state;
  }
};

export type MaintenanceCommand =
  | {
      type: 'ScheduleMaintenance';
      maintenance_id: string;
      project_id: string;
      settings: MaintenanceSettings;
      at: string;
    }
  | { type: 'UpdateMaintenance'; changes: Partial<MaintenanceSettings>; at: string }
  | { type: 'DeleteMaintenance'; at: string }
  /** The clock's look at the window: the occurrence open at `at` (null: none). It ends an open
   *  occurrence that is no longer the one, and starts the new one. */
  | { type: 'ObserveMaintenance'; open: { start: string; end: string } | null; at: string };

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

const exists = (state: MaintenanceState) => {
  if (state.id === null || state.deleted || state.settings === null) throw notFound('maintenance window');
  return state.settings;
};

export const maintenanceDecider: Decider<MaintenanceState, MaintenanceCommand> = {
  initialState: initialMaintenance,
  evolve: evolveMaintenance,
  decide(command, state) {
    const ids = () => ({ maintenance_id: state.id!, project_id: state.projectId });
    const ending = (at: string): DomainEvent[] =>
      state.open === null
        ? []
        : [
            {
              type: 'MaintenanceEnded',
              data: {
                ...ids(),
                occurrence_start: state.open.start,
                occurrence_end: state.open.end,
                at: at < state.open.end ? at : state.open.end,
                ...(state.settings === null ? {} : { title: state.settings.title }),
              },
            },
          ];
    switch (command.type) {
      case 'ScheduleMaintenance':
        if (state.id !== null) throw new DomainError('conflict', 'maintenance window already exists');
        return [
          {
            type: 'MaintenanceScheduled',
            data: {
              maintenance_id: command.maintenance_id,
              project_id: command.project_id,
              ...command.settings,
              created_at: command.at,
            },
          },
        ];
      case 'UpdateMaintenance': {
        const settings = exists(state);
        const changes = Object.fromEntries(
          Object.entries(command.changes).filter(
            ([key, value]) => value !== undefined && !same(value, settings[key as keyof MaintenanceSettings]),
          ),
        ) as Partial<MaintenanceSettings>;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'MaintenanceUpdated', data: { ...ids(), changes, updated_at: command.at } }];
      }
      case 'DeleteMaintenance':
        exists(state);
        return [...ending(command.at), { type: 'MaintenanceDeleted', data: { ...ids(), deleted_at: command.at } }];
      case 'ObserveMaintenance': {
        if (state.id === null || state.settings === null) return [];
        const open = state.deleted ? null : command.open;
        if (same(open, state.open)) return [];
        const started: DomainEvent[] =
          open === null
            ? []
            : [
                {
                  type: 'MaintenanceStarted',
                  data: {
                    ...ids(),
                    occurrence_start: open.start,
                    occurrence_end: open.end,
                    title: state.settings.title,
                    monitor_ids: state.settings.monitor_ids,
                    at: command.at,
                  },
                },
              ];
        return [...ending(command.at), ...started];
      }
    }
  },
};

/** Whether a window covers a monitor. */
export const coversMonitor = (monitorIds: MaintenanceSettings['monitor_ids'], monitorId: string): boolean =>
  monitorIds === 'all' || monitorIds.includes(monitorId);
