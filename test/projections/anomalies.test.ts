import { anomaliesProjection } from '../../projections/anomalies.ts';
import type { AnomalySettingsPatch, RuleName } from '../../src/domain/anomaly-settings.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(anomaliesProjection, (m) => m.stores.anomalies);

const [P, Q, A1, A2, A3, A4] = [
  'a08b6d39-b4c5-47e8-9d5e-6f7a8b9c0d01',
  'a08b6d39-b4c5-47e8-9d5e-6f7a8b9c0d02',
  'b19c7e4a-c5d6-48f9-8e6f-7a8b9c0d1e01',
  'b19c7e4a-c5d6-48f9-8e6f-7a8b9c0d1e02',
  'b19c7e4a-c5d6-48f9-8e6f-7a8b9c0d1e03',
  'b19c7e4a-c5d6-48f9-8e6f-7a8b9c0d1e04',
];

const at = (minute: number) => new Date(Date.UTC(2026, 9, 1, 6, minute)).toISOString();

const settings = (project_id: string, minute: number, changes: AnomalySettingsPatch): DomainEvent => ({
  type: 'AnomalySettingsUpdated',
  data: { project_id, changes, updated_at: at(minute) },
});
const detected = (
  alert_id: string,
  project_id: string,
  rule: RuleName,
  subject: string,
  minute: number,
): DomainEvent => ({
  type: 'AnomalyDetected',
  data: {
    alert_id,
    project_id,
    rule,
    subject,
    service_name: 'api',
    environment: 'production',
    detected_at: at(minute),
    details: { count: 12 },
  },
});
const cleared = (
  alert_id: string,
  project_id: string,
  rule: RuleName,
  subject: string,
  minute: number,
): DomainEvent => ({ type: 'AnomalyCleared', data: { alert_id, project_id, rule, subject, cleared_at: at(minute) } });

const read = async (m: ReadModels) => ({
  settings: (await m.anomalies.allSettings()).sort((a, b) => a.project_id.localeCompare(b.project_id)),
  open: await m.anomalies.openAlerts(),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    settings(P, 0, { brute_force: { threshold: 5, window_secs: 30 }, mass_delete: { enabled: false } }),
    detected(A1, P, 'brute_force', 'mallory', 1),
    detected(A2, P, 'error_rate', 'api', 2),
    detected(A3, Q, 'brute_force', 'eve', 3),
    settings(Q, 4, { silent_service: { threshold_minutes: 60 } }),
    // null puts a field back to the default; a value sets it; the untouched ones stay.
    settings(P, 5, { brute_force: { threshold: null }, error_rate: { threshold_percent: 10, window_secs: 120 } }),
    cleared(A1, P, 'brute_force', 'mallory', 6),
    settings(P, 7, { error_rate: { window_secs: null } }),
  ],
  read,
  expected: () => ({
    settings: [
      {
        project_id: P,
        updated_at: at(7),
        overrides: {
          brute_force: { window_secs: 30 },
          mass_delete: { enabled: false },
          error_rate: { threshold_percent: 10 },
        },
      },
      { project_id: Q, updated_at: at(4), overrides: { silent_service: { threshold_minutes: 60 } } },
    ],
    open: [
      { alert_id: A2, project_id: P, rule: 'error_rate', subject: 'api', detected_at: at(2) },
      { alert_id: A3, project_id: Q, rule: 'brute_force', subject: 'eve', detected_at: at(3) },
    ],
  }),
});

it('a rule whose every field was put back to the default leaves the overrides', async (t, f) => {
  await f.fold([
    settings(P, 0, { mass_delete: { enabled: false, threshold: 20 }, brute_force: { enabled: false } }),
    settings(P, 1, { mass_delete: { enabled: null, threshold: null } }),
  ]);
  t.deepEqual(await f.models.anomalies.settingsOf(P), {
    project_id: P,
    overrides: { brute_force: { enabled: false } },
    updated_at: at(1),
  });
  t.is(await f.models.anomalies.settingsOf(Q), null);
});

it('an alert stays open until cleared; the next finding of the same rule and subject opens a new one', async (t, f) => {
  const openIds = async () => (await f.models.anomalies.openAlerts()).map((a) => a.alert_id);
  await f.fold([detected(A1, P, 'mass_delete', 'files', 0)]);
  t.deepEqual(await openIds(), [A1]);
  await f.fold([cleared(A1, P, 'mass_delete', 'files', 5)]);
  t.deepEqual(await openIds(), []);
  await f.fold([detected(A4, P, 'mass_delete', 'files', 9)]);
  t.deepEqual(await f.models.anomalies.openAlerts(), [
    { alert_id: A4, project_id: P, rule: 'mass_delete', subject: 'files', detected_at: at(9) },
  ]);
});
