import { randomUUID } from 'node:crypto';
import { WINDOW_RETENTION_MS } from '../../../src/domain/anomaly.ts';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import type { WindowContribution } from '../../../src/views/anomaly-windows/port.ts';
import { recorded, type WithModels } from './harness.ts';

export const anomalyWindowsContract = (withModels: WithModels): void => {
  withModels(
    'anomaly windows: 10-second buckets per service and per 401 identifier; replays count once; old buckets are pruned',
    async (t, m) => {
      const p = randomUUID();
      const t0 = Date.UTC(2026, 8, 1, 12, 0);
      const c = (second: number, over: Partial<WindowContribution> = {}): WindowContribution => ({
        project_id: p,
        service_name: 'api',
        environment: 'production',
        identifier: 'u1',
        method: 'GET',
        status_code: 200,
        timestamp: t0 + second * 1000,
        ...over,
      });
      const plan = [
        c(1),
        c(2, { method: 'DELETE', status_code: 500 }),
        c(3, { identifier: 'mallory', status_code: 401 }),
        c(12, { identifier: 'mallory', status_code: 401, environment: 'staging', service_name: 'auth' }),
        c(13, { identifier: 'alice', status_code: 401 }),
        c(5, { service_name: 'web', status_code: undefined }),
        c(14, { identifier: 'mallory', status_code: 401, service_name: 'auth', environment: 'staging' }),
      ];
      const batch = plan.map(() => recorded());
      const apply = (events: RecordedEvent[]) =>
        m.stores.anomalyWindows.commit(events, (r, w) => w.add(plan[batch.indexOf(r)]!, r.position));
      await apply(batch.slice(0, 2));
      await apply(batch);
      await apply(batch);
      const services = (await m.anomalyWindows.serviceSeries(t0, t0 + 10_000, 1)).sort((a, b) =>
        a.service_name.localeCompare(b.service_name),
      );
      t.deepEqual(
        services.map((s) => [s.service_name, s.environment, [...s.buckets].sort((a, b) => a[0] - b[0])]),
        [
          [
            'api',
            'production',
            [
              [t0, { total: 3, errors: 2, deletes: 1 }],
              [t0 + 10_000, { total: 1, errors: 1, deletes: 0 }],
            ],
          ],
          ['auth', 'staging', [[t0 + 10_000, { total: 2, errors: 2, deletes: 0 }]]],
          ['web', 'production', [[t0, { total: 1, errors: 0, deletes: 0 }]]],
        ],
      );
      t.deepEqual(
        (await m.anomalyWindows.serviceSeries(t0, t0 + 10_000, 3)).map((s) => s.service_name).sort(),
        ['api'],
        'at least 3 events in the range',
      );
      t.deepEqual(await m.anomalyWindows.serviceSeries(t0 + 20_000, t0 + 60_000, 1), []);
      const failures = await m.anomalyWindows.authFailureSeries(t0, t0 + 10_000, 2);
      t.deepEqual(
        failures.map((f) => ({ ...f, buckets: [...f.buckets].sort((a, b) => a[0] - b[0]) })),
        [
          {
            project_id: p,
            identifier: 'mallory',
            service_name: 'auth',
            environment: 'staging',
            buckets: [
              [t0, 1],
              [t0 + 10_000, 2],
            ],
          },
        ],
        "alice has one 401: under the minimum; mallory's service and environment are those of the latest 401",
      );
      t.deepEqual(await m.anomalyWindows.authFailureSeries(t0, t0 + 10_000, 4), []);
      // A batch that fails part-way leaves nothing behind, and its retry counts once.
      const retried = [recorded(), recorded()];
      await t.throwsAsync(
        m.stores.anomalyWindows.commit(retried, (r, w) => {
          if (r === retried[1]) throw new Error('the projection failed');
          w.add(c(25, { service_name: 'retried' }), r.position);
        }),
        { message: 'the projection failed' },
      );
      await m.stores.anomalyWindows.commit(retried, (r, w) => w.add(c(25, { service_name: 'retried' }), r.position));
      const [again] = await m.anomalyWindows.serviceSeries(t0 + 20_000, t0 + 20_000, 1);
      t.deepEqual([...again!.buckets.values()], [{ total: 2, errors: 0, deletes: 0 }]);

      const late = recorded();
      await m.stores.anomalyWindows.commit([late], (r, w) => w.add(c(WINDOW_RETENTION_MS / 1000 + 1200), r.position));
      t.deepEqual(
        await m.anomalyWindows.serviceSeries(t0, t0 + 10_000, 1),
        [],
        'buckets older than the retention are gone',
      );
      t.deepEqual(await m.anomalyWindows.authFailureSeries(t0, t0 + 10_000, 1), []);
    },
  );
};
