import * as t from 'io-ts';
import { boundedString, closed, intRange, Uuid } from './codecs.ts';
import { withSchema } from './json-schema.ts';
import { DomainError, invalid, notFound } from './errors.ts';
import { AUDIT_EVENT_TYPE, type StoredAuditEvent } from './audit-event.ts';
import { HOUR_MS, hourOf } from './stats.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent } from './events.ts';

/** Monitors (SPEC 2.8, 3.1, 3.2, 8): payload codecs, the aggregate, and the transition rule.
 *  Pure: the HTTP check itself is in src/checks/http-probe.ts. */

export const MONITORS_PER_PROJECT = 10;
export const MIN_INTERVAL_SECONDS = 10;
/** A day: a monitor checked less often than daily is not watching anything. */
export const MAX_INTERVAL_SECONDS = 86_400;
export const MAX_TIMEOUT_SECONDS = 120;
export const CHECKS_KEPT = 200;
/** Uptime is counted per hour, over the last 24 and 168 whole hours plus the current one; a
 *  monitor keeps the buckets of the 168 hours before its newest check and that check's hour. */
export const UPTIME_HOURS_KEPT = 7 * 24 + 1;
/** The hour a time falls in, as the epoch milliseconds of its start. */
export const uptimeHourOf = (time: string | Date): number => hourOf(new Date(time).getTime());

/** Checks that were OK over all checks of the buckets from `fromHour` to `toHour`; null without checks. */
export const uptimeRatio = (buckets: ReadonlyArray<UptimeBucket>, fromHour: number, toHour: number): number | null => {
  let ok = 0;
  let total = 0;
  for (const b of buckets) {
    if (b.hour < fromHour || b.hour > toHour) continue;
    ok += b.ok;
    total += b.total;
  }
  return total === 0 ? null : ok / total;
};

/** A monitor's checks in one hour. */
export interface UptimeBucket {
  hour: number;
  ok: number;
  total: number;
}

/** SPEC 4.10 uptime of a monitor at `now`: over the last 24 (168) whole hours and the current one. */
export const uptimeAt = (
  buckets: ReadonlyArray<UptimeBucket>,
  now: Date,
): { uptime_24h: number | null; uptime_7d: number | null } => {
  const current = uptimeHourOf(now);
  return {
    uptime_24h: uptimeRatio(buckets, current - 24 * HOUR_MS, current),
    uptime_7d: uptimeRatio(buckets, current - 7 * 24 * HOUR_MS, current),
  };
};
export const DEFAULTS = { interval_seconds: 60, timeout_seconds: 10, expected_status: 200, enabled: true } as const;

/** http(s) only, with a host; at most 2048 characters. */
export const MonitorUrl = withSchema(
  new t.Type<string, string, unknown>(
    'an http or https URL of at most 2048 characters',
    (u): u is string => typeof u === 'string' && isHttpUrl(u),
    (u, c) => (typeof u === 'string' && isHttpUrl(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', format: 'uri', maxLength: 2048 },
);

function isHttpUrl(s: string): boolean {
  if (s.length > 2048) return false;
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const settings = {
  name: boundedString(1, 255),
  url: MonitorUrl,
  interval_seconds: intRange(MIN_INTERVAL_SECONDS, MAX_INTERVAL_SECONDS),
  timeout_seconds: intRange(1, MAX_TIMEOUT_SECONDS),
  expected_status: intRange(100, 599),
  enabled: t.boolean,
};

/** Create and update bodies: unknown fields are refused (a misspelt setting is a 400, not a
 *  default silently applied). */
export const MonitorCreateInput = closed(
  t.exact(
    t.intersection([
      t.type({ project_id: Uuid, name: settings.name, url: settings.url }),
      t.partial({
        interval_seconds: settings.interval_seconds,
        timeout_seconds: settings.timeout_seconds,
        expected_status: settings.expected_status,
        enabled: settings.enabled,
      }),
    ]),
  ),
  'field',
  'a monitor',
);
export type MonitorCreateInput = t.TypeOf<typeof MonitorCreateInput>;

export const MonitorUpdateInput = closed(t.exact(t.partial(settings)), 'field', 'a monitor update');
export type MonitorUpdateInput = t.TypeOf<typeof MonitorUpdateInput>;

export const MonitorSettings = t.type({
  name: t.string,
  url: t.string,
  interval_seconds: t.number,
  timeout_seconds: t.number,
  expected_status: t.number,
  enabled: t.boolean,
});
export type MonitorSettings = t.TypeOf<typeof MonitorSettings>;

export const MonitorStatus = t.keyof({ UP: null, DOWN: null, PENDING: null });
export type MonitorStatus = t.TypeOf<typeof MonitorStatus>;

/** What one check saw. `status_code` is absent when no response came (timeout, refused, DNS, TLS). */
export const CheckResult = t.intersection([
  t.type({ checked_at: t.string, ok: t.boolean, response_ms: t.number }),
  t.partial({ status_code: t.number, error: t.string }),
]);
export type CheckResult = t.TypeOf<typeof CheckResult>;

/** The facts about a monitor; transition events carry what an auditor needs without a join. */
export const monitorEvents = {
  MonitorCreated: t.intersection([
    t.type({ monitor_id: t.string, project_id: t.string, created_at: t.string }),
    MonitorSettings,
  ]),
  MonitorUpdated: t.type({
    monitor_id: t.string,
    project_id: t.string,
    changes: t.exact(t.partial(MonitorSettings.props)),
    updated_at: t.string,
  }),
  MonitorDeleted: t.type({ monitor_id: t.string, project_id: t.string, deleted_at: t.string }),
  CheckRecorded: t.intersection([t.type({ monitor_id: t.string, project_id: t.string }), CheckResult]),
  /** The first check of a monitor found it UP: no transition, but the state is now known. */
  MonitorStatusEstablished: t.intersection([
    t.type({ monitor_id: t.string, project_id: t.string, status: t.literal('UP') }),
    CheckResult,
  ]),
  MonitorWentDown: t.intersection([
    t.type({
      monitor_id: t.string,
      project_id: t.string,
      name: t.string,
      url: t.string,
      expected_status: t.number,
      went_down_at: t.string,
      response_ms: t.number,
      error: t.string,
    }),
    t.partial({ status_code: t.number }),
  ]),
  MonitorCameUp: t.type({
    monitor_id: t.string,
    project_id: t.string,
    name: t.string,
    url: t.string,
    came_up_at: t.string,
    status_code: t.number,
    response_ms: t.number,
    downtime_seconds: t.number,
  }),
} as const;

export interface MonitorState {
  readonly id: string | null;
  readonly projectId: string;
  readonly deleted: boolean;
  readonly settings: MonitorSettings;
  readonly status: MonitorStatus;
  /** When the current status began (the first check for the first status). */
  readonly statusSince: string | null;
}

export const initialMonitor: MonitorState = {
  id: null,
  projectId: '',
  deleted: false,
  status: 'PENDING',
  statusSince: null,
  settings: { name: '', url: '', ...DEFAULTS },
};

export const evolveMonitor = (state: MonitorState, e: DomainEvent): MonitorState => {
  switch (e.type) {
    case 'MonitorCreated': {
      const { monitor_id, project_id, created_at: _, ...s } = e.data;
      return { ...state, id: monitor_id, projectId: project_id, settings: s };
    }
    case 'MonitorUpdated':
      return { ...state, settings: { ...state.settings, ...e.data.changes } };
    case 'MonitorDeleted':
      return { ...state, deleted: true };
    case 'MonitorStatusEstablished':
      return { ...state, status: 'UP', statusSince: e.data.checked_at };
    case 'MonitorWentDown':
      return { ...state, status: 'DOWN', statusSince: e.data.went_down_at };
    case 'MonitorCameUp':
      return { ...state, status: 'UP', statusSince: e.data.came_up_at };
    default:
      return state;
  }
};

export const assertMonitorExists = (state: MonitorState): void => {
  if (state.id === null || state.deleted) throw notFound('monitor');
};

/** A check passes when it got a response with the expected status; errors and timeouts fail. */
export const checkPasses = (expected: number, statusCode: number | undefined): boolean => statusCode === expected;

/** Why a failed check failed, as the `error` text of SPEC 6.1. */
export const failureText = (expected: number, result: Pick<CheckResult, 'status_code' | 'error'>): string =>
  result.error ?? `expected status ${expected}, received ${result.status_code ?? 'no response'}`;

export type Transition =
  | { type: 'MonitorStatusEstablished'; data: t.TypeOf<typeof monitorEvents.MonitorStatusEstablished> }
  | { type: 'MonitorWentDown'; data: t.TypeOf<typeof monitorEvents.MonitorWentDown> }
  | { type: 'MonitorCameUp'; data: t.TypeOf<typeof monitorEvents.MonitorCameUp> };

/** SPEC 3.1. Only UP→DOWN and DOWN→UP are transitions. Before its first check a monitor is
 *  PENDING: a first check that fails is a transition to DOWN (a monitor added for a service that
 *  is already down must say so); a first check that passes only establishes UP. */
export const decideTransition = (state: MonitorState, result: CheckResult): Transition | null => {
  if (state.id === null || state.deleted) return null;
  // A check that started before the current status began (a slow one finishing after a later
  // one) says nothing about the current state.
  if (state.statusSince !== null && Date.parse(result.checked_at) < Date.parse(state.statusSince)) return null;
  const base = { monitor_id: state.id, project_id: state.projectId };
  if (result.ok) {
    if (state.status === 'UP') return null;
    if (state.status === 'PENDING')
      return { type: 'MonitorStatusEstablished', data: { ...base, status: 'UP', ...result } };
    const since = state.statusSince === null ? Date.parse(result.checked_at) : Date.parse(state.statusSince);
    return {
      type: 'MonitorCameUp',
      data: {
        ...base,
        name: state.settings.name,
        url: state.settings.url,
        came_up_at: result.checked_at,
        status_code: result.status_code ?? state.settings.expected_status,
        response_ms: result.response_ms,
        downtime_seconds: Math.max(0, Math.round((Date.parse(result.checked_at) - since) / 1000)),
      },
    };
  }
  if (state.status === 'DOWN') return null;
  return {
    type: 'MonitorWentDown',
    data: {
      ...base,
      name: state.settings.name,
      url: state.settings.url,
      expected_status: state.settings.expected_status,
      went_down_at: result.checked_at,
      response_ms: result.response_ms,
      error: failureText(state.settings.expected_status, result),
      ...(result.status_code === undefined ? {} : { status_code: result.status_code }),
    },
  };
};

export const decideUpdate = (state: MonitorState, changes: MonitorUpdateInput): Partial<MonitorSettings> => {
  assertMonitorExists(state);
  const next = { ...state.settings, ...changes };
  assertTimeoutWithinInterval(next);
  return Object.fromEntries(
    Object.entries(changes).filter(([k, v]) => state.settings[k as keyof MonitorSettings] !== v),
  );
};

/** A check may wait as long as the interval: with the minimum interval (10 s) the default timeout
 *  (10 s) is allowed. A check that times out ends as the next one is due; the job's lock keeps two
 *  checks of one monitor from overlapping. */
export const assertTimeoutWithinInterval = (s: Pick<MonitorSettings, 'timeout_seconds' | 'interval_seconds'>): void => {
  if (s.timeout_seconds > s.interval_seconds) {
    throw invalid('monitor', [
      { path: 'timeout_seconds', message: `must not exceed interval_seconds (${s.interval_seconds})` },
    ]);
  }
};

/** SPEC 6.1: a transition as the audit event the list and export show. `identifier` is the
 *  constant `system`, `method` GET (the check's method), `environment` production. */
export const transitionAuditEvent = (
  id: string,
  e: {
    type: 'MonitorWentDown' | 'MonitorCameUp';
    data: t.TypeOf<(typeof monitorEvents)['MonitorWentDown' | 'MonitorCameUp']>;
  },
): StoredAuditEvent => {
  const common = {
    id,
    project_id: e.data.project_id,
    identifier: 'system',
    method: 'GET',
    environment: 'production',
    source: 'backend' as const,
    service_name: e.data.name,
    path: e.data.url.slice(0, 255),
    response_time: e.data.response_ms,
  };
  if (e.type === 'MonitorWentDown') {
    const d = e.data as t.TypeOf<typeof monitorEvents.MonitorWentDown>;
    return {
      ...common,
      event_type: AUDIT_EVENT_TYPE.healthcheckDown,
      timestamp: d.went_down_at,
      ...(d.status_code === undefined ? {} : { status_code: d.status_code }),
      request_body: {
        url: d.url,
        expected_status: d.expected_status,
        status_code: d.status_code ?? 0,
        response_ms: d.response_ms,
        error: d.error,
      },
    };
  }
  const d = e.data as t.TypeOf<typeof monitorEvents.MonitorCameUp>;
  return {
    ...common,
    event_type: AUDIT_EVENT_TYPE.healthcheckUp,
    timestamp: d.came_up_at,
    status_code: d.status_code,
    request_body: {
      url: d.url,
      status_code: d.status_code,
      response_ms: d.response_ms,
      downtime_seconds: d.downtime_seconds,
    },
  };
};

export type MonitorCommand =
  | { type: 'CreateMonitor'; monitor_id: string; project_id: string; settings: MonitorSettings; at: string }
  | { type: 'UpdateMonitor'; changes: MonitorUpdateInput; at: string }
  | { type: 'DeleteMonitor'; at: string }
  /** A check's result: a transition when it changes the monitor's state (SPEC 3.1), else nothing. */
  | { type: 'RecordCheck'; result: CheckResult };

export const monitorDecider: Decider<MonitorState, MonitorCommand> = {
  initialState: initialMonitor,
  evolve: evolveMonitor,
  decide(command, state) {
    switch (command.type) {
      case 'CreateMonitor':
        if (state.id !== null) throw new DomainError('conflict', 'monitor already exists');
        assertTimeoutWithinInterval(command.settings);
        return [
          {
            type: 'MonitorCreated',
            data: {
              monitor_id: command.monitor_id,
              project_id: command.project_id,
              created_at: command.at,
              ...command.settings,
            },
          },
        ];
      case 'UpdateMonitor': {
        const changes = decideUpdate(state, command.changes);
        if (Object.keys(changes).length === 0) return [];
        return [
          {
            type: 'MonitorUpdated',
            data: { monitor_id: state.id!, project_id: state.projectId, changes, updated_at: command.at },
          },
        ];
      }
      case 'DeleteMonitor':
        assertMonitorExists(state);
        return [
          {
            type: 'MonitorDeleted',
            data: { monitor_id: state.id!, project_id: state.projectId, deleted_at: command.at },
          },
        ];
      case 'RecordCheck': {
        const transition = decideTransition(state, command.result);
        return transition ? [transition] : [];
      }
    }
  },
};
