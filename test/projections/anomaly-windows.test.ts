import { randomUUID } from 'node:crypto';
import { anomalyWindowsProjection } from '../../projections/anomaly-windows.ts';
import type { AuditEventType } from '../../src/domain/audit-event.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(anomalyWindowsProjection, (m) => m.stores.anomalyWindows);

const P = '9e7a5c28-a3b4-46d7-8c4d-5e6f7a8b9c01';
const Q = '9e7a5c28-a3b4-46d7-8c4d-5e6f7a8b9c02';
const T0 = Date.UTC(2026, 8, 1, 12, 0); // a bucket start
const S = 10_000;

interface Over {
  project_id?: string;
  service_name?: string;
  environment?: string;
  identifier?: string;
  event_type?: AuditEventType;
  status_code?: number;
}
const event = (ms: number, method: string, over: Over = {}): DomainEvent => ({
  type: 'AuditEventRecorded',
  data: {
    id: randomUUID(),
    project_id: P,
    event_type: 'http',
    timestamp: new Date(T0 + ms).toISOString(),
    path: '/login',
    method,
    identifier: 'ann',
    service_name: 'api',
    environment: 'production',
    source: 'backend',
    ...over,
  },
});

const byKey = (a: { project_id: string; key: string }, b: { project_id: string; key: string }) =>
  a.project_id.localeCompare(b.project_id) || a.key.localeCompare(b.key);

/** Every series over the scenario's minutes, as plain data in a stable order. */
const read = async (m: ReadModels) => {
  const [from, to] = [T0 - 60_000, T0 + 60_000];
  const services = (await m.anomalyWindows.serviceSeries(from, to, 1))
    .map((s) => ({ ...s, key: s.service_name, buckets: [...s.buckets].sort((a, b) => a[0] - b[0]) }))
    .sort(byKey);
  const auth = (await m.anomalyWindows.authFailureSeries(from, to, 1))
    .map((s) => ({ ...s, key: s.identifier, buckets: [...s.buckets].sort((a, b) => a[0] - b[0]) }))
    .sort(byKey);
  return { services: services.map(({ key: _, ...s }) => s), auth: auth.map(({ key: _, ...s }) => s) };
};

scenarioTests(it, {
  projectId: P,
  events: () => [
    event(1_000, 'GET', { status_code: 200 }),
    event(2_000, 'DELETE', { status_code: 500 }),
    event(9_999, 'GET', { status_code: 401, identifier: 'mallory' }),
    // the next bucket
    event(10_000, 'POST', { status_code: 401, identifier: 'mallory', service_name: 'auth', environment: 'staging' }),
    event(11_000, 'GET', { status_code: 403, identifier: 'alice' }), // an error, not an auth failure
    event(12_000, 'GET', { status_code: 401, identifier: 'alice' }),
    event(5_000, 'GET', { service_name: 'web' }), // no status: counted, not an error
    event(3_000, 'DELETE', { status_code: 503, event_type: 'system.healthcheck.down' }), // not http: not counted
    event(14_000, 'POST', { status_code: 401, identifier: 'mallory', service_name: 'auth' }),
    event(4_000, 'GET', { status_code: 401, identifier: 'mallory', project_id: Q }),
    event(19_999, 'GET', { status_code: 200, environment: 'staging' }),
    // recorded last but older: api keeps the environment of its 19.999 s event
    event(15_000, 'GET', { status_code: 200 }),
  ],
  read,
  expected: () => ({
    services: [
      {
        project_id: P,
        service_name: 'api',
        environment: 'staging',
        buckets: [
          [T0, { total: 3, errors: 2, deletes: 1 }],
          [T0 + S, { total: 4, errors: 2, deletes: 0 }],
        ],
      },
      {
        project_id: P,
        service_name: 'auth',
        environment: 'production',
        buckets: [[T0 + S, { total: 2, errors: 2, deletes: 0 }]],
      },
      {
        project_id: P,
        service_name: 'web',
        environment: 'production',
        buckets: [[T0, { total: 1, errors: 0, deletes: 0 }]],
      },
      {
        project_id: Q,
        service_name: 'api',
        environment: 'production',
        buckets: [[T0, { total: 1, errors: 1, deletes: 0 }]],
      },
    ],
    auth: [
      { project_id: P, identifier: 'alice', service_name: 'api', environment: 'production', buckets: [[T0 + S, 1]] },
      // service and environment of mallory's latest 401
      {
        project_id: P,
        identifier: 'mallory',
        service_name: 'auth',
        environment: 'production',
        buckets: [
          [T0, 1],
          [T0 + S, 2],
        ],
      },
      { project_id: Q, identifier: 'mallory', service_name: 'api', environment: 'production', buckets: [[T0, 1]] },
    ],
  }),
});

it('buckets are 10 seconds from a multiple of 10 s: 9.999 s and 10 s fall in different ones', async (t, f) => {
  await f.fold([0, 9_999, 10_000, 19_999, 20_000].map((ms) => event(ms, 'GET', { status_code: 401 })));
  const { services, auth } = await read(f.models);
  t.deepEqual(
    services.map((s) => s.buckets.map(([b, c]) => [b, c.total])),
    [
      [
        [T0, 2],
        [T0 + S, 2],
        [T0 + 2 * S, 1],
      ],
    ],
  );
  t.deepEqual(
    auth.map((s) => s.buckets),
    [
      [
        [T0, 2],
        [T0 + S, 2],
        [T0 + 2 * S, 1],
      ],
    ],
  );
});

it('only http events count: others add to no bucket, not even with a DELETE or a 401', async (t, f) => {
  await f.fold([
    event(1_000, 'DELETE', { status_code: 401, event_type: 'system.alert' }),
    event(2_000, 'GET', { status_code: 401, event_type: 'system.healthcheck.down', identifier: 'system' }),
  ]);
  t.deepEqual(await read(f.models), { services: [], auth: [] });
});

it('only a 401 is an auth failure: other errors of an identifier make no auth series', async (t, f) => {
  await f.fold(
    [400, 403, 404, 500].map((status_code, i) => event(i * 1000, 'POST', { status_code, identifier: 'mallory' })),
  );
  const { services, auth } = await read(f.models);
  t.deepEqual(
    services.map((s) => s.buckets),
    [[[T0, { total: 4, errors: 4, deletes: 0 }]]],
  );
  t.deepEqual(auth, []);
});
