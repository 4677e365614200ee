import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const anomaliesContract = (withModels: WithModels): void => {
  withModels(
    'anomalies: settings fold their updates, open alerts come and go; replays change nothing',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const alert = (
        alert_id: string,
        projectId: string,
        rule: 'brute_force' | 'mass_delete',
        subject: string,
        detected_at: string,
      ) => ({ alert_id, project_id: projectId, rule, subject, detected_at });
      const first = [recorded(), recorded()];
      const second = [recorded(), recorded()];
      const applyFirst = () =>
        m.stores.anomalies.commit(first, (r, w) => {
          if (r === first[0]) {
            w.settingsUpdated(
              p,
              { brute_force: { threshold: 5, window_secs: 30 }, mass_delete: { enabled: false } },
              '2026-01-01T00:00:00.000Z',
            );
            w.detected(alert('a1', p, 'brute_force', 'mallory', '2026-01-01T00:01:00.000Z'));
          } else {
            w.detected(alert('a2', p, 'mass_delete', 'files', '2026-01-01T00:02:00.000Z'));
            w.detected(alert('a3', q, 'brute_force', 'eve', '2026-01-01T00:03:00.000Z'));
          }
        });
      const applySecond = () =>
        m.stores.anomalies.commit(second, (r, w) => {
          if (r === second[0]) {
            w.settingsUpdated(
              p,
              { brute_force: { threshold: null }, mass_delete: { enabled: null } },
              '2026-01-02T00:00:00.000Z',
            );
            w.cleared(p, 'a1');
          } else {
            w.cleared(q, 'a2'); // another project's id: not this project's alert
          }
        });
      await applyFirst();
      t.deepEqual(await m.anomalies.settingsOf(p), {
        project_id: p,
        overrides: { brute_force: { threshold: 5, window_secs: 30 }, mass_delete: { enabled: false } },
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      await applyFirst();
      await applySecond();
      await applyFirst();
      await applySecond();
      t.deepEqual(await m.anomalies.settingsOf(p), {
        project_id: p,
        overrides: { brute_force: { window_secs: 30 } },
        updated_at: '2026-01-02T00:00:00.000Z',
      });
      t.deepEqual(await m.anomalies.allSettings(), [
        { project_id: p, overrides: { brute_force: { window_secs: 30 } }, updated_at: '2026-01-02T00:00:00.000Z' },
      ]);
      t.is(await m.anomalies.settingsOf(q), null);
      t.deepEqual(
        (await m.anomalies.openAlerts()).map((a) => a.alert_id),
        ['a2', 'a3'],
      );
      t.deepEqual(
        (await m.anomalies.openAlerts())[0],
        alert('a2', p, 'mass_delete', 'files', '2026-01-01T00:02:00.000Z'),
      );
      await m.stores.anomalies.reset();
      t.deepEqual(await m.anomalies.openAlerts(), []);
      t.deepEqual(await m.anomalies.allSettings(), []);
    },
  );
};
