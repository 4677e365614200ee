import * as t from 'io-ts';
import { withSchema } from './json-schema.ts';
import { DomainError, invalid, notFound, type ErrorDetail } from './errors.ts';
import { canonicalJson } from './canonical-json.ts';
import { SECRET_MASK, StoredOptions, unmaskedChanges } from './monitor-options.ts';
import { settingsIssues, targetOf, typeOf } from './monitor-rules.ts';
import { CERT_WARN_DAYS_DEFAULT, decideCertificateWarning } from './monitor-certificates.ts';
import type { MonitorCreateInput, MonitorUpdateInput } from './monitor-input.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent } from './events.ts';

/** Monitors (SPEC 2.8, 3.1, 3.2, 8): payload codecs, the aggregate, and the transition rule.
 *  Pure: the HTTP check itself is in src/checks/http-probe.ts. */

/** SPEC 8's cap; WATCHLOG_MONITORS_PER_PROJECT raises it. */
export const MONITORS_PER_PROJECT = 10;
export const MIN_INTERVAL_SECONDS = 10;
/** A day: a monitor checked less often than daily is not watching anything. */
export const MAX_INTERVAL_SECONDS = 86_400;
export const MAX_TIMEOUT_SECONDS = 120;
export const CHECKS_KEPT = 200;
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

export function isHttpUrl(s: string): boolean {
  if (s.length > 2048) return false;
  try {
    const url = new URL(s);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const SpecSettings = t.type({
  name: t.string,
  url: t.string,
  interval_seconds: t.number,
  timeout_seconds: t.number,
  expected_status: t.number,
  enabled: t.boolean,
});
/** SPEC 2.8's settings, and the options given (absent ones are their defaults). For dns and
 *  heartbeat monitors `url` is derived from the other settings (monitor-rules.ts `targetOf`). */
export const MonitorSettings = t.intersection([SpecSettings, StoredOptions]);
export type MonitorSettings = t.TypeOf<typeof MonitorSettings>;

/** What a MonitorUpdated changes: a null option went back to its default. */
const { type: _storedType, ...storedChangeable } = StoredOptions.props;
export const SettingsChanges = t.intersection([
  t.exact(t.partial(SpecSettings.props)),
  t.exact(
    t.partial(
      Object.fromEntries(Object.entries(storedChangeable).map(([k, c]) => [k, t.union([c, t.null])])) as {
        [K in keyof typeof storedChangeable]: t.UnionC<[(typeof storedChangeable)[K], t.NullC]>;
      },
    ),
  ),
]);
export type SettingsChanges = t.TypeOf<typeof SettingsChanges>;

export const MonitorStatus = t.keyof({ UP: null, DOWN: null, PENDING: null });
export type MonitorStatus = t.TypeOf<typeof MonitorStatus>;

export const Certificate = t.type({
  valid_from: t.string,
  valid_to: t.string,
  issuer: t.string,
  subject: t.string,
  names: t.array(t.string),
});
export type Certificate = t.TypeOf<typeof Certificate>;

/** One assertion's verdict: `received` is what was seen, shortened to 200 characters. */
export const AssertionResult = t.intersection([
  t.type({ source: t.string, op: t.string, passed: t.boolean, received: t.union([t.string, t.null]) }),
  t.partial({ path: t.string, value: t.union([t.string, t.number, t.boolean, t.null]) }),
]);
export type AssertionResult = t.TypeOf<typeof AssertionResult>;

/** What one check saw. `status_code` is absent when no response came (timeout, refused, DNS,
 *  TLS). `heartbeat`: a beat that arrived, or a beat that did not arrive in time. */
export const CheckResult = t.intersection([
  t.type({ checked_at: t.string, ok: t.boolean, response_ms: t.number }),
  t.partial({
    status_code: t.number,
    error: t.string,
    assertions: t.array(AssertionResult),
    certificate: Certificate,
    dns_records: t.array(t.string),
    heartbeat: t.keyof({ beat: null, missed: null }),
  }),
]);
export type CheckResult = t.TypeOf<typeof CheckResult>;

const ids = { monitor_id: t.string, project_id: t.string };
/** Made under a maintenance window: left out of uptime, notified to no one (monitors.md). */
const InMaintenance = t.partial({ in_maintenance: t.literal(true) });

/** The facts about a monitor; transition events carry what an auditor needs without a join. */
export const monitorEvents = {
  MonitorCreated: t.intersection([
    t.type({ ...ids, created_at: t.string }),
    MonitorSettings,
    // The SHA-256 of a heartbeat monitor's token, hex.
    t.partial({ heartbeat_token_hash: t.string }),
  ]),
  MonitorUpdated: t.type({ ...ids, changes: SettingsChanges, updated_at: t.string }),
  MonitorDeleted: t.type({ ...ids, deleted_at: t.string }),
  CheckRecorded: t.intersection([t.type(ids), CheckResult, InMaintenance]),
  /** The first check of a monitor found it UP: no transition, but the state is now known. */
  MonitorStatusEstablished: t.intersection([t.type({ ...ids, status: t.literal('UP') }), CheckResult]),
  /** A check that would change the state, not yet confirmed (`streak` of `down_after` or
   *  `up_after` in a row); a streak of 0 ends an unconfirmed run. */
  MonitorConfirming: t.type({
    ...ids,
    toward: t.keyof({ UP: null, DOWN: null }),
    streak: t.number,
    checked_at: t.string,
  }),
  MonitorWentDown: t.intersection([
    t.type({
      ...ids,
      name: t.string,
      url: t.string,
      expected_status: t.number,
      went_down_at: t.string,
      response_ms: t.number,
      error: t.string,
    }),
    t.partial({ status_code: t.number, method: t.string, failed_checks: t.number }),
    InMaintenance,
  ]),
  MonitorCameUp: t.intersection([
    t.type({
      ...ids,
      name: t.string,
      url: t.string,
      came_up_at: t.string,
      status_code: t.number,
      response_ms: t.number,
      downtime_seconds: t.number,
    }),
    t.partial({ method: t.string }),
    InMaintenance,
  ]),
  /** A check saw a certificate within one of `cert_expiry_warn_days` of its expiry: once per
   *  threshold and certificate (`threshold_days`: the nearest threshold crossed). */
  CertificateExpiring: t.type({
    ...ids,
    name: t.string,
    url: t.string,
    checked_at: t.string,
    days_left: t.number,
    threshold_days: t.number,
    certificate: Certificate,
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
  readonly createdAt: string | null;
  /** Since when a heartbeat monitor waits for beats: created, or enabled again. */
  readonly armedAt: string | null;
  /** An unconfirmed run of checks toward another state. */
  readonly streak: { toward: 'UP' | 'DOWN'; count: number } | null;
  /** The last certificate warning: for which certificate (its expiry) and threshold. */
  readonly certWarning: { validTo: string; threshold: number } | null;
  readonly heartbeatTokenHash: string | null;
}

export const initialMonitor: MonitorState = {
  id: null,
  projectId: '',
  deleted: false,
  status: 'PENDING',
  statusSince: null,
  createdAt: null,
  armedAt: null,
  streak: null,
  certWarning: null,
  heartbeatTokenHash: null,
  settings: { name: '', url: '', ...DEFAULTS },
};

/** Settings after a change: a null option is removed. */
export const applyChanges = (s: MonitorSettings, changes: SettingsChanges): MonitorSettings => {
  const next: Record<string, unknown> = { ...s };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  return next as MonitorSettings;
};

/** The options among a monitor's fields, `type` aside (for stores that keep them apart). */
export const optionsIn = (fields: object): StoredOptions =>
  Object.fromEntries(
    Object.entries(fields).filter(([k, v]) => k !== 'type' && v !== undefined && k in StoredOptions.props),
  ) as StoredOptions;

export const evolveMonitor = (state: MonitorState, e: DomainEvent): MonitorState => {
  switch (e.type) {
    case 'MonitorCreated': {
      const { monitor_id, project_id, created_at, heartbeat_token_hash, ...s } = e.data;
      return {
        ...state,
        id: monitor_id,
        projectId: project_id,
        settings: s,
        createdAt: created_at,
        armedAt: created_at,
        heartbeatTokenHash: heartbeat_token_hash ?? null,
      };
    }
    case 'MonitorUpdated': {
      const rearmed = e.data.changes.enabled === true && !state.settings.enabled;
      return {
        ...state,
        settings: applyChanges(state.settings, e.data.changes),
        ...(rearmed ? { armedAt: e.data.updated_at, streak: null } : {}),
      };
    }
    case 'MonitorDeleted':
      return { ...state, deleted: true };
    case 'MonitorStatusEstablished':
      return { ...state, status: 'UP', statusSince: e.data.checked_at, streak: null };
    case 'MonitorConfirming':
      return { ...state, streak: e.data.streak === 0 ? null : { toward: e.data.toward, count: e.data.streak } };
    case 'MonitorWentDown':
      return { ...state, status: 'DOWN', statusSince: e.data.went_down_at, streak: null };
    case 'MonitorCameUp':
      return { ...state, status: 'UP', statusSince: e.data.came_up_at, streak: null };
    case 'CertificateExpiring':
      return {
        ...state,
        certWarning: { validTo: e.data.certificate.valid_to, threshold: e.data.threshold_days },
      };
    default:
      return state;
  }
};

export const assertMonitorExists = (state: MonitorState): void => {
  if (state.id === null || state.deleted) throw notFound('monitor');
};

type EventOf<K extends keyof typeof monitorEvents> = { type: K; data: t.TypeOf<(typeof monitorEvents)[K]> };
export type Transition =
  | EventOf<'MonitorStatusEstablished'>
  | EventOf<'MonitorConfirming'>
  | EventOf<'MonitorWentDown'>
  | EventOf<'MonitorCameUp'>;

const methodOf = (s: MonitorSettings) =>
  (s.type ?? 'http') === 'http' && s.method !== undefined && s.method !== 'GET' ? { method: s.method } : {};

/** SPEC 3.1, with confirmations. Only UP→DOWN and DOWN→UP are transitions. Before its first
 *  check a monitor is PENDING: a first check that fails is a transition to DOWN (a monitor added
 *  for a service that is already down must say so); a first check that passes only establishes
 *  UP. A check toward another state changes it only as the `down_after`-th (`up_after`-th) in a
 *  row; the ones before are MonitorConfirming, and a check that breaks the run ends it. With
 *  both at 1 (the default) this is SPEC's rule exactly. `maintenance`: a window covered the monitor. */
export const decideTransition = (state: MonitorState, result: CheckResult, maintenance = false): Transition | null => {
  if (state.id === null || state.deleted) return null;
  // A check that started before the current status began (a slow one finishing after a later
  // one) says nothing about the current state.
  if (state.statusSince !== null && Date.parse(result.checked_at) < Date.parse(state.statusSince)) return null;
  const base = { monitor_id: state.id, project_id: state.projectId };
  const s = state.settings;
  const toward = result.ok ? (state.status === 'UP' ? null : 'UP') : state.status === 'DOWN' ? null : 'DOWN';
  if (toward === null) {
    return state.streak === null
      ? null
      : {
          type: 'MonitorConfirming',
          data: { ...base, toward: state.streak.toward, streak: 0, checked_at: result.checked_at },
        };
  }
  if (toward === 'UP' && state.status === 'PENDING')
    return { type: 'MonitorStatusEstablished', data: { ...base, status: 'UP', ...result } };
  const streak = (state.streak?.toward === toward ? state.streak.count : 0) + 1;
  const marked = maintenance ? { in_maintenance: true as const } : {};
  const needed = toward === 'DOWN' ? (s.down_after ?? 1) : (s.up_after ?? 1);
  if (streak < needed)
    return { type: 'MonitorConfirming', data: { ...base, toward, streak, checked_at: result.checked_at } };
  if (toward === 'UP') {
    const since = state.statusSince === null ? Date.parse(result.checked_at) : Date.parse(state.statusSince);
    return {
      type: 'MonitorCameUp',
      data: {
        ...base,
        name: s.name,
        url: s.url,
        came_up_at: result.checked_at,
        status_code: result.status_code ?? s.expected_status,
        response_ms: result.response_ms,
        downtime_seconds: Math.max(0, Math.round((Date.parse(result.checked_at) - since) / 1000)),
        ...methodOf(s),
        ...marked,
      },
    };
  }
  return {
    type: 'MonitorWentDown',
    data: {
      ...base,
      name: s.name,
      url: s.url,
      expected_status: s.expected_status,
      went_down_at: result.checked_at,
      response_ms: result.response_ms,
      error: result.error ?? `expected status ${s.expected_status}, received ${result.status_code ?? 'no response'}`,
      ...(result.status_code === undefined ? {} : { status_code: result.status_code }),
      ...methodOf(s),
      ...(needed > 1 ? { failed_checks: streak } : {}),
      ...marked,
    },
  };
};

/** How soon a check follows one that began an unconfirmed run: `retry_interval_seconds`, by
 *  default the interval or 30 s, whichever is shorter. */
export const retryIntervalSeconds = (s: Pick<MonitorSettings, 'retry_interval_seconds' | 'interval_seconds'>): number =>
  s.retry_interval_seconds ?? Math.min(s.interval_seconds, 30);

/** The fields a PUT changes: masked secrets sent back keep the stored ones, `type` cannot change
 *  (a monitor's history is of one kind of check), a dns or heartbeat monitor's `url` follows its
 *  other settings, and the result must be a valid monitor as a whole. */
export const decideUpdate = (state: MonitorState, input: MonitorUpdateInput): SettingsChanges => {
  assertMonitorExists(state);
  const before = state.settings;
  if (input.type !== undefined && input.type !== typeOf(before))
    throw invalid('monitor', [{ path: 'type', message: `cannot change (${typeOf(before)}); create a new monitor` }]);
  const { type: _t, ...rest } = input;
  const changes = unmaskedChanges(rest as StoredOptions, before) as SettingsChanges;
  let next = applyChanges(before, changes);
  const derived = targetOf(next, state.id!);
  if (derived !== next.url) next = { ...next, url: derived };
  const issues = [...settingsIssues(next, new Set(Object.keys(input))), ...maskedLeft(changes)];
  if (issues.length > 0) throw invalid('monitor', issues);
  const changed: Record<string, unknown> = {};
  for (const [k, v] of Object.entries({ ...changes, url: next.url })) {
    const was = (before as Record<string, unknown>)[k];
    if (v === null ? was !== undefined : canonicalJson(v) !== canonicalJson(was)) changed[k] = v;
  }
  return changed as SettingsChanges;
};

/** A header named with the mask but never stored has no value to keep. */
const maskedLeft = (changes: SettingsChanges): ErrorDetail[] =>
  Object.entries(changes.headers ?? {})
    .filter(([, v]) => v === SECRET_MASK)
    .map(([k]) => ({ path: `headers.${k}`, message: 'has no stored value to keep: give the value' }));

/** A new monitor's settings: defaults filled in, the whole checked, `url` derived where it is. */
export const decideSettings = (input: Omit<MonitorCreateInput, 'project_id'>, monitorId: string): MonitorSettings => {
  const s: MonitorSettings = { ...DEFAULTS, url: '', ...input };
  const issues = settingsIssues(s, new Set(Object.keys(input)));
  if (issues.length > 0) throw invalid('monitor', issues);
  // SPEC notifies on transitions only: a monitor made of SPEC's fields alone keeps to that, and
  // one made with any option of watchlog's own gets the certificate warnings by default.
  const own = Object.keys(input).some((k) => !(k in DEFAULTS) && k !== 'name' && k !== 'url');
  const warns = own && s.cert_expiry_warn_days === undefined && ['http', 'tcp'].includes(typeOf(s));
  return { ...s, url: targetOf(s, monitorId), ...(warns ? { cert_expiry_warn_days: CERT_WARN_DAYS_DEFAULT } : {}) };
};

export type MonitorCommand =
  | {
      type: 'CreateMonitor';
      monitor_id: string;
      project_id: string;
      settings: MonitorSettings;
      at: string;
      heartbeat_token_hash?: string;
    }
  | { type: 'UpdateMonitor'; changes: MonitorUpdateInput; at: string }
  | { type: 'DeleteMonitor'; at: string }
  /** A check's result: a transition (or a step toward one) when it changes the monitor's state
   *  (SPEC 3.1), and a certificate warning when one is due; else nothing. `in_maintenance`: a
   *  maintenance window covered the monitor when it was checked (its transition says so). */
  | { type: 'RecordCheck'; result: CheckResult; in_maintenance?: boolean };

export const monitorDecider: Decider<MonitorState, MonitorCommand> = {
  initialState: initialMonitor,
  evolve: evolveMonitor,
  decide(command, state) {
    switch (command.type) {
      case 'CreateMonitor': {
        if (state.id !== null) throw new DomainError('conflict', 'monitor already exists');
        const { monitor_id, project_id, at, settings, heartbeat_token_hash } = command;
        // The rules of the whole (decideSettings also judged which fields the request named).
        const issues = settingsIssues(settings, new Set());
        if (issues.length > 0) throw invalid('monitor', issues);
        return [
          {
            type: 'MonitorCreated',
            data: {
              monitor_id,
              project_id,
              created_at: at,
              ...settings,
              ...(heartbeat_token_hash === undefined ? {} : { heartbeat_token_hash }),
            },
          },
        ];
      }
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
        const transition = decideTransition(state, command.result, command.in_maintenance);
        const warning = decideCertificateWarning(state, command.result);
        return [...(transition ? [transition] : []), ...(warning ? [warning] : [])];
      }
    }
  },
};
