import * as t from 'io-ts';
import { JsonObject } from './codecs.ts';
import { AUDIT_EVENT_TYPE, type StoredAuditEvent } from './audit-event.ts';
import {
  AnomalySettingsPatch,
  RULES,
  applyPatch,
  assertValidSettings,
  effectiveSettings,
  sameOverrides,
  type AnomalyOverrides,
  type AnomalySettings,
  type RuleName,
} from './anomaly-settings.ts';
import type { Decider } from './decider.ts';
import type { DomainEvent } from './events.ts';

/** The five anomaly rules (SPEC 6.2) as pure functions of small windows of counts, the windows
 *  themselves (10-second buckets), the no-storm rule that turns findings into alerts, and the
 *  `anomalies-{projectId}` aggregate whose events record alerts and settings. */

export type { RuleName };

export const AnomalyRule = t.keyof(
  Object.fromEntries(RULES.map((r) => [r, null])) as Record<RuleName, null>,
  RULES.join(' | '),
);

const round2 = (n: number) => Math.round(n * 100) / 100;

/** A service's per-minute event counts over the baseline, summarised: how many minutes (from the
 *  service's first event in the baseline window, so a new service has a short baseline, not a
 *  long run of zeros; minutes without events after it count as 0), and the sum and the sum of
 *  squares of the counts. */
export interface Baseline {
  minutes: number;
  sum: number;
  sum_squares: number;
}

/** `current`: events in the last minute, against the baseline's mean and spread. The spread has a
 *  floor of √mean (and of 1): a count of independent requests varies by about √mean from minute
 *  to minute even when the recorded minutes happen to agree, and without a floor a perfectly
 *  steady baseline would make any uptick infinitely unusual (400 a minute, then 420, is not an
 *  anomaly). */
export const volumeSpike = (current: number, baseline: Baseline, s: AnomalySettings['volume_spike']) => {
  if (!s.enabled || baseline.minutes < s.min_baseline_minutes || current < s.min_rate) return null;
  const mean = baseline.sum / baseline.minutes;
  const variance = Math.max(0, baseline.sum_squares / baseline.minutes - mean ** 2);
  const z = (current - mean) / Math.max(Math.sqrt(variance), Math.sqrt(mean), 1);
  if (z <= s.z_threshold) return null;
  return { current_rate: current, baseline_mean: round2(mean), z_score: round2(z), threshold: s.z_threshold };
};

/** Errors (4xx + 5xx) and total events over the rule's window. */
export const errorRate = (errors: number, total: number, s: AnomalySettings['error_rate']) => {
  if (!s.enabled || total < s.min_events) return null;
  const percent = (errors / total) * 100;
  if (percent <= s.threshold_percent) return null;
  return { error_rate: round2(percent), threshold: s.threshold_percent, errors, total, window_secs: s.window_secs };
};

/** 401 answers to one identifier over the rule's window. */
export const bruteForce = (identifier: string, count: number, s: AnomalySettings['brute_force']) =>
  s.enabled && count >= s.threshold ? { identifier, count, window_secs: s.window_secs, threshold: s.threshold } : null;

/** DELETE requests of one service over the rule's window. */
export const massDelete = (count: number, s: AnomalySettings['mass_delete']) =>
  s.enabled && count >= s.threshold ? { count, threshold: s.threshold, window_secs: s.window_secs } : null;

/** A service with enough events in the last 24 h that has gone quiet for longer than the threshold. */
export const silentService = (
  lastEventAt: number,
  events24h: number,
  now: number,
  s: AnomalySettings['silent_service'],
) => {
  if (!s.enabled || events24h < s.min_events_24h) return null;
  const silentMs = now - lastEventAt;
  if (silentMs <= s.threshold_minutes * 60_000) return null;
  return {
    silence_minutes: Math.floor(silentMs / 60_000),
    threshold_minutes: s.threshold_minutes,
    last_event_at: new Date(lastEventAt).toISOString(),
  };
};

// ---- windows ----

/** Windowed rules count in 10-second buckets: small aggregates a projection keeps, so a scan
 *  never reads events. */
export const BUCKET_MS = 10_000;
export const bucketStart = (ms: number): number => Math.floor(ms / BUCKET_MS) * BUCKET_MS;
/** How far back the anomaly windows keep buckets: the longest window (MAX_WINDOW_SECS) plus the
 *  longest lookback (a scan interval of at most an hour, plus a bucket), with room to spare. */
export const WINDOW_RETENTION_MS = 9_000_000;
/** volume_spike compares the last minute with the per-minute baseline. */
export const RATE_WINDOW_SECS = 60;

/** The windows a scan evaluates end at every bucket from `lookbackMs` before `now` to the one
 *  holding `now` (oldest first). With a lookback of one scan interval plus a bucket, every window
 *  position is evaluated by some scan: a burst that starts and ends between two scans is still
 *  seen whole, not cut in two halves that each stay under the threshold. */
export const windowEnds = (now: number, lookbackMs: number): number[] => {
  const ends: number[] = [];
  for (let b = bucketStart(now - lookbackMs); b <= now; b += BUCKET_MS) ends.push(b);
  return ends;
};

/** The first bucket any of `ends`' windows of `windowSecs` reaches back to. */
export const windowStart = (ends: readonly number[], windowSecs: number): number =>
  (ends[0] ?? 0) - windowSecs * 1000 + BUCKET_MS;

/** Sum over the window of `windowSecs` that ends with bucket `end` (included). */
const windowSum = <B>(
  buckets: ReadonlyMap<number, B>,
  end: number,
  windowSecs: number,
  pick: (b: B) => number,
): number => {
  let sum = 0;
  for (let b = end - windowSecs * 1000 + BUCKET_MS; b <= end; b += BUCKET_MS) {
    const bucket = buckets.get(b);
    if (bucket !== undefined) sum += pick(bucket);
  }
  return sum;
};

export const maxWindowSum = <B>(
  buckets: ReadonlyMap<number, B>,
  ends: readonly number[],
  windowSecs: number,
  pick: (b: B) => number,
): number => ends.reduce((max, end) => Math.max(max, windowSum(buckets, end, windowSecs, pick)), 0);

export interface ServiceCounts {
  total: number;
  errors: number;
  deletes: number;
}

/** One service's recent 10-second buckets; `environment` is that of its latest event. */
export interface ServiceSeries {
  project_id: string;
  service_name: string;
  environment: string;
  buckets: ReadonlyMap<number, ServiceCounts>;
}

/** One identifier's recent 401 answers per 10-second bucket; service and environment are those
 *  of its latest 401. */
export interface AuthFailureSeries {
  project_id: string;
  identifier: string;
  service_name: string;
  environment: string;
  buckets: ReadonlyMap<number, number>;
}

/** A service's last event and how many it had in the last 24 hours. */
export interface ServiceActivity {
  project_id: string;
  service_name: string;
  environment: string;
  last_event_at: number;
  events_24h: number;
}

/** A rule's finding: its subject within the project is the service, or for brute_force the
 *  identifier. `details` become the alert's request_body. */
export interface Finding {
  rule: RuleName;
  project_id: string;
  subject: string;
  service_name: string;
  environment: string;
  details: Record<string, unknown>;
}

const serviceFinding = (rule: RuleName, series: ServiceSeries, details: Record<string, unknown>): Finding => ({
  rule,
  project_id: series.project_id,
  subject: series.service_name,
  service_name: series.service_name,
  environment: series.environment,
  details,
});

/** error_rate at the window position with the highest rate, among those that fire. */
export const errorRateOver = (
  series: ServiceSeries,
  ends: readonly number[],
  s: AnomalySettings['error_rate'],
): Finding | null => {
  let best: ReturnType<typeof errorRate> = null;
  for (const end of ends) {
    const total = windowSum(series.buckets, end, s.window_secs, (b) => b.total);
    const found = errorRate(
      windowSum(series.buckets, end, s.window_secs, (b) => b.errors),
      total,
      s,
    );
    if (found && (!best || found.error_rate >= best.error_rate)) best = found;
  }
  return best && serviceFinding('error_rate', series, best);
};

export const massDeleteOver = (
  series: ServiceSeries,
  ends: readonly number[],
  s: AnomalySettings['mass_delete'],
): Finding | null => {
  const found = massDelete(
    maxWindowSum(series.buckets, ends, s.window_secs, (b) => b.deletes),
    s,
  );
  return found && serviceFinding('mass_delete', series, found);
};

/** The busiest minute among the window positions: volume_spike's current rate. */
export const currentRate = (series: ServiceSeries, ends: readonly number[]): number =>
  maxWindowSum(series.buckets, ends, RATE_WINDOW_SECS, (b) => b.total);

export const volumeSpikeOf = (
  series: ServiceSeries,
  current: number,
  baseline: Baseline,
  s: AnomalySettings['volume_spike'],
): Finding | null => {
  const found = volumeSpike(current, baseline, s);
  return found && serviceFinding('volume_spike', series, found);
};

/** The baseline minutes of a scan: the `minutes` whole minutes before the minute in which the
 *  earliest current window starts (so no minute counts in both). [from, to) in epoch ms. */
export const baselineRange = (ends: readonly number[], minutes: number): { from: number; to: number } => {
  const to = Math.floor(windowStart(ends, RATE_WINDOW_SECS) / 60_000) * 60_000;
  return { from: to - minutes * 60_000, to };
};

/** The baseline up to `to` of a service whose first minute with events is `firstMinute`. */
export const baselineOf = (firstMinute: number, sum: number, sumSquares: number, to: number): Baseline => ({
  minutes: Math.max(0, Math.round((to - firstMinute) / 60_000)),
  sum,
  sum_squares: sumSquares,
});

export const bruteForceOver = (
  series: AuthFailureSeries,
  ends: readonly number[],
  s: AnomalySettings['brute_force'],
): Finding | null => {
  const found = bruteForce(
    series.identifier,
    maxWindowSum(series.buckets, ends, s.window_secs, (n) => n),
    s,
  );
  return (
    found && {
      rule: 'brute_force',
      project_id: series.project_id,
      subject: series.identifier,
      service_name: series.service_name,
      environment: series.environment,
      details: found,
    }
  );
};

export const silentServiceOf = (
  activity: ServiceActivity,
  now: number,
  s: AnomalySettings['silent_service'],
): Finding | null => {
  const found = silentService(activity.last_event_at, activity.events_24h, now, s);
  return (
    found && {
      rule: 'silent_service',
      project_id: activity.project_id,
      subject: activity.service_name,
      service_name: activity.service_name,
      environment: activity.environment,
      details: found,
    }
  );
};

// ---- alerts: no storms ----

export const alertKey = (f: Pick<Finding, 'rule' | 'subject'>) => `${f.rule}\u0000${f.subject}`;
const ruleOfKey = (key: string) => key.slice(0, key.indexOf('\u0000')) as RuleName;

/** No storms: a finding raises an alert only when no alert for the same rule × subject is open
 *  in its project; an open alert whose condition no longer holds is cleared, so the next finding
 *  raises again. `open` is derived from the log (alerts raised and cleared), so a restart raises
 *  nothing twice. Only the rules that were evaluated (`evaluated`) may clear: a disabled rule
 *  keeps its alerts open rather than flapping. */
export const decideAlerts = (
  findings: readonly Finding[],
  open: ReadonlySet<string>,
  evaluated: ReadonlySet<RuleName>,
) => {
  const found = new Map(findings.map((f) => [alertKey(f), f]));
  const raise = [...found.entries()].filter(([key]) => !open.has(key)).map(([, f]) => f);
  const clear = [...open].filter((key) => !found.has(key) && evaluated.has(ruleOfKey(key)));
  return { raise, clear };
};

/** The rules a scan evaluated for a project: the enabled ones. */
export const enabledRules = (s: AnomalySettings): Set<RuleName> => new Set(RULES.filter((rule) => s[rule].enabled));

// ---- the anomalies-{projectId} aggregate ----

export const anomalyEvents = {
  /** An alert: becomes a system.alert audit event (SPEC 2.10) and, for channels that opt in,
   *  a notification. */
  AnomalyDetected: t.type({
    alert_id: t.string,
    project_id: t.string,
    rule: AnomalyRule,
    subject: t.string,
    service_name: t.string,
    environment: t.string,
    detected_at: t.string,
    details: JsonObject,
  }),
  /** The condition of an open alert no longer holds: the next finding raises a new alert. */
  AnomalyCleared: t.type({
    alert_id: t.string,
    project_id: t.string,
    rule: AnomalyRule,
    subject: t.string,
    cleared_at: t.string,
  }),
  AnomalySettingsUpdated: t.type({ project_id: t.string, changes: AnomalySettingsPatch, updated_at: t.string }),
} as const;

export type AnomalyDetected = t.TypeOf<typeof anomalyEvents.AnomalyDetected>;

export interface OpenAlert {
  alert_id: string;
  rule: RuleName;
  subject: string;
}

export interface AnomalyState {
  overrides: AnomalyOverrides;
  updatedAt: string | null;
  /** Open alerts by alertKey. */
  open: ReadonlyMap<string, OpenAlert>;
}

export const initialAnomalies: AnomalyState = { overrides: {}, updatedAt: null, open: new Map() };

export const evolveAnomalies = (state: AnomalyState, e: DomainEvent): AnomalyState => {
  switch (e.type) {
    case 'AnomalyDetected': {
      const { alert_id, rule, subject } = e.data;
      return { ...state, open: new Map(state.open).set(alertKey(e.data), { alert_id, rule, subject }) };
    }
    case 'AnomalyCleared': {
      const open = new Map(state.open);
      open.delete(alertKey(e.data));
      return { ...state, open };
    }
    case 'AnomalySettingsUpdated':
      return { ...state, overrides: applyPatch(state.overrides, e.data.changes), updatedAt: e.data.updated_at };
    default:
      return state;
  }
};

/** SPEC 2.10: an alert as an audit event. `method` is POST (an alert is something the service
 *  posts about the project, and the SPEC's list item needs a method) and `environment` is that of
 *  the events that triggered it. */
export const alertAuditEvent = (d: AnomalyDetected): StoredAuditEvent => ({
  id: d.alert_id,
  project_id: d.project_id,
  event_type: AUDIT_EVENT_TYPE.alert,
  timestamp: d.detected_at,
  path: d.rule,
  method: 'POST',
  identifier: 'system',
  service_name: d.service_name,
  environment: d.environment,
  source: 'backend',
  request_body: d.details,
});

export type AnomaliesCommand =
  /** A partial settings update (null puts a field back to the default); the settings it leads
   *  to over `defaults` must be consistent as a whole. */
  | {
      type: 'UpdateAnomalySettings';
      project_id: string;
      patch: AnomalySettingsPatch;
      defaults: AnomalySettings;
      at: string;
    }
  /** A scan's findings for the project: an AnomalyDetected for each finding without an open
   *  alert, an AnomalyCleared for each open alert of an evaluated rule not found again. */
  | {
      type: 'RecordFindings';
      project_id: string;
      findings: readonly Finding[];
      evaluated: ReadonlySet<RuleName>;
      at: string;
      newAlertId: () => string;
    };

export const anomaliesDecider: Decider<AnomalyState, AnomaliesCommand> = {
  initialState: initialAnomalies,
  evolve: evolveAnomalies,
  decide(command, state) {
    if (command.type === 'UpdateAnomalySettings') {
      const overrides = applyPatch(state.overrides, command.patch);
      assertValidSettings(effectiveSettings(command.defaults, overrides));
      if (sameOverrides(overrides, state.overrides)) return [];
      return [
        {
          type: 'AnomalySettingsUpdated',
          data: { project_id: command.project_id, changes: command.patch, updated_at: command.at },
        },
      ];
    }
    const { project_id, at } = command;
    const { raise, clear } = decideAlerts(command.findings, new Set(state.open.keys()), command.evaluated);
    return [
      ...clear.map((key): DomainEvent => {
        const { alert_id, rule, subject } = state.open.get(key)!;
        return { type: 'AnomalyCleared', data: { alert_id, project_id, rule, subject, cleared_at: at } };
      }),
      ...raise.map(
        (f): DomainEvent => ({
          type: 'AnomalyDetected',
          data: {
            alert_id: command.newAlertId(),
            project_id,
            rule: f.rule,
            subject: f.subject,
            service_name: f.service_name,
            environment: f.environment,
            detected_at: at,
            details: f.details,
          },
        }),
      ),
    ];
  },
};
