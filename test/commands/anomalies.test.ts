import test from 'ava';
import {
  DEFAULT_ANOMALY_SETTINGS,
  RULES,
  type AnomalySettings,
  type AnomalySettingsPatch,
} from '../../src/domain/anomaly-settings.ts';
import { anomaliesDecider, type AnomaliesCommand, type Finding, type RuleName } from '../../src/domain/anomaly.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(anomaliesDecider);

const [P, T0, T1, T2] = [
  '0b7c2a4e-1111-4a4a-8a8a-000000000001',
  '2026-11-23T10:00:00.000Z',
  '2026-11-23T10:05:00.000Z',
  '2026-11-23T10:10:00.000Z',
];

// ---- UpdateAnomalySettings ----

const patch = (
  changes: AnomalySettingsPatch,
  defaults: AnomalySettings = DEFAULT_ANOMALY_SETTINGS,
): AnomaliesCommand => ({ type: 'UpdateAnomalySettings', project_id: P, patch: changes, defaults, at: T1 });
const settingsUpdated = (changes: AnomalySettingsPatch, at = T1): DomainEvent => ({
  type: 'AnomalySettingsUpdated',
  data: { project_id: P, changes, updated_at: at },
});
const baselineProblem = (baseline: number) => [
  { path: 'volume_spike.min_baseline_minutes', message: `must not exceed baseline_minutes (${baseline})` },
];

test('UpdateAnomalySettings records the patch as given: values set fields, null resets them', (t) => {
  const changes: AnomalySettingsPatch = {
    brute_force: { threshold: 5, enabled: false },
    error_rate: { window_secs: null },
  };
  spec(t)
    .given([])
    .when(patch(changes))
    .then([settingsUpdated(changes)]);
});

test('a patch is valid or not by the settings it leads to: min_baseline_minutes <= baseline_minutes', (t) => {
  // Defaults: baseline 60, minimum 30.
  const rows: Array<[string, AnomalySettingsPatch, number | null]> = [
    ['minimum above the default baseline', { volume_spike: { min_baseline_minutes: 90 } }, 60],
    ['baseline below the default minimum', { volume_spike: { baseline_minutes: 20 } }, 20],
    ['both, the wrong way round', { volume_spike: { baseline_minutes: 40, min_baseline_minutes: 41 } }, 40],
    ['minimum equal to the baseline', { volume_spike: { min_baseline_minutes: 60 } }, null],
    ['both lowered together', { volume_spike: { baseline_minutes: 20, min_baseline_minutes: 20 } }, null],
  ];
  for (const [, changes, refusedAt] of rows) {
    if (refusedAt === null)
      spec(t)
        .given([])
        .when(patch(changes))
        .then([settingsUpdated(changes)]);
    else
      spec(t)
        .given([])
        .when(patch(changes))
        .thenThrows({ code: 'validation_error', details: baselineProblem(refusedAt) });
  }
});

test('earlier patches are part of the settings a new patch is checked against', (t) => {
  const longBaseline = settingsUpdated({ volume_spike: { baseline_minutes: 120 } }, T0);
  spec(t)
    .given([longBaseline])
    .when(patch({ volume_spike: { min_baseline_minutes: 90 } }))
    .then([settingsUpdated({ volume_spike: { min_baseline_minutes: 90 } })]);
});

test('resetting a field to a default that no longer fits the other overrides is refused', (t) => {
  const overrides = settingsUpdated({ volume_spike: { baseline_minutes: 120, min_baseline_minutes: 90 } }, T0);
  spec(t)
    .given([overrides])
    .when(patch({ volume_spike: { baseline_minutes: null } }))
    .thenThrows({
      code: 'validation_error',
      message: 'invalid anomaly settings: volume_spike.min_baseline_minutes must not exceed baseline_minutes (60)',
      details: baselineProblem(60),
    });
  // Resetting both goes back to the defaults, which fit.
  const both: AnomalySettingsPatch = { volume_spike: { baseline_minutes: null, min_baseline_minutes: null } };
  spec(t)
    .given([overrides])
    .when(patch(both))
    .then([settingsUpdated(both)]);
});

test('a reset is a reset: after null the field follows the defaults again, not the old override', (t) => {
  // With baseline_minutes still overridden to 120 a minimum of 90 would pass.
  const given = [
    settingsUpdated({ volume_spike: { baseline_minutes: 120 } }, T0),
    settingsUpdated({ volume_spike: { baseline_minutes: null } }, T0),
  ];
  spec(t)
    .given(given)
    .when(patch({ volume_spike: { min_baseline_minutes: 90 } }))
    .thenThrows({ code: 'validation_error', details: baselineProblem(60) });
});

test("the settings are checked over the deployment's defaults the command carries", (t) => {
  const deployment = {
    ...DEFAULT_ANOMALY_SETTINGS,
    volume_spike: { ...DEFAULT_ANOMALY_SETTINGS.volume_spike, baseline_minutes: 20, min_baseline_minutes: 10 },
  };
  const changes = { volume_spike: { min_baseline_minutes: 30 } };
  spec(t)
    .given([])
    .when(patch(changes, deployment))
    .thenThrows({ code: 'validation_error', details: baselineProblem(20) });
  spec(t)
    .given([])
    .when(patch(changes))
    .then([settingsUpdated(changes)]);
});

// Like UpdateMonitor: a patch that changes no setting records nothing (updated_at stays).
test('UpdateAnomalySettings with no actual change gives no event', (t) => {
  spec(t).given([]).when(patch({})).thenNothing();
  spec(t)
    .given([])
    .when(patch({ brute_force: { threshold: null } }))
    .thenNothing();
  spec(t)
    .given([settingsUpdated({ brute_force: { threshold: 5 } })])
    .when(patch({ brute_force: { threshold: 5 } }))
    .thenNothing();
});

// ---- RecordFindings: no storms ----

const finding = (rule: RuleName, subject: string, details: Record<string, unknown> = { count: 12 }): Finding => ({
  rule,
  project_id: P,
  subject,
  service_name: rule === 'brute_force' ? 'auth' : subject,
  environment: 'production',
  details,
});

/** A scan's command; alert ids come from `alertIds` in order, so the expected events are exact. */
const scan = (
  findings: Finding[],
  evaluated: readonly RuleName[] = RULES,
  alertIds = ['A2', 'A3', 'A4'],
): AnomaliesCommand => {
  const next = [...alertIds];
  return {
    type: 'RecordFindings',
    project_id: P,
    findings,
    evaluated: new Set(evaluated),
    at: T2,
    newAlertId: () => next.shift() ?? 'out-of-ids',
  };
};
const detected = (alert_id: string, f: Finding, at = T2): DomainEvent => ({
  type: 'AnomalyDetected',
  data: {
    alert_id,
    project_id: P,
    rule: f.rule,
    subject: f.subject,
    service_name: f.service_name,
    environment: f.environment,
    detected_at: at,
    details: f.details,
  },
});
const cleared = (alert_id: string, f: Pick<Finding, 'rule' | 'subject'>, at = T2): DomainEvent => ({
  type: 'AnomalyCleared',
  data: { alert_id, project_id: P, rule: f.rule, subject: f.subject, cleared_at: at },
});

const bruteU1 = finding('brute_force', 'user-1');
const bruteU2 = finding('brute_force', 'user-2');
const deletes = finding('mass_delete', 'orders');
const errors = finding('error_rate', 'orders', { error_rate: 40 });
const u1Open = detected('A1', bruteU1, T0);

test('a finding without an open alert raises one, each with its own id', (t) => {
  spec(t)
    .given([])
    .when(scan([bruteU1, deletes]))
    .then([detected('A2', bruteU1), detected('A3', deletes)]);
});

test('a finding with an alert already open for the same rule and subject raises nothing (no storm)', (t) => {
  spec(t)
    .given([u1Open])
    .when(scan([bruteU1]))
    .thenNothing();
  // Different details are still the same condition holding.
  spec(t)
    .given([u1Open])
    .when(scan([finding('brute_force', 'user-1', { count: 99 })]))
    .thenNothing();
});

test('within one scan, two findings for the same rule and subject raise one alert', (t) => {
  const later = finding('brute_force', 'user-1', { count: 30 });
  spec(t)
    .given([])
    .when(scan([bruteU1, later]))
    .then([detected('A2', later)]);
});

test('the same subject under another rule, or another subject under the same rule, is another alert', (t) => {
  spec(t)
    .given([u1Open])
    .when(scan([bruteU1, bruteU2]))
    .then([detected('A2', bruteU2)]);
  spec(t)
    .given([detected('A1', deletes, T0)])
    .when(scan([deletes, errors]))
    .then([detected('A2', errors)]);
});

test('an open alert of an evaluated rule not found again is cleared with its alert id', (t) => {
  spec(t)
    .given([u1Open])
    .when(scan([]))
    .then([cleared('A1', bruteU1)]);
});

test('clears come before raises, and only the alerts no longer found are cleared', (t) => {
  spec(t)
    .given([u1Open, detected('A9', deletes, T0)])
    .when(scan([bruteU2, deletes]))
    .then([cleared('A1', bruteU1), detected('A2', bruteU2)]);
});

test('a rule not evaluated (disabled) keeps its alerts open', (t) => {
  spec(t)
    .given([u1Open])
    .when(scan([], ['mass_delete', 'error_rate']))
    .thenNothing();
  spec(t).given([u1Open]).when(scan([], [])).thenNothing();
  // Its alerts stay open, so enabling it again with the condition still holding raises nothing.
  spec(t)
    .given([u1Open])
    .when(scan([bruteU1]))
    .thenNothing();
});

test('after a clear the next finding raises a new alert', (t) => {
  spec(t)
    .given([u1Open, cleared('A1', bruteU1, T1)])
    .when(scan([bruteU1]))
    .then([detected('A2', bruteU1)]);
});

test('no findings and no open alerts give nothing; settings changes do not open alerts', (t) => {
  spec(t).given([]).when(scan([])).thenNothing();
  spec(t)
    .given([settingsUpdated({ brute_force: { threshold: 5 } }, T0)])
    .when(scan([]))
    .thenNothing();
});
