import { randomUUID } from 'node:crypto';
import { statsProjection } from '../../projections/stats.ts';
import type { AuditEventType } from '../../src/domain/audit-event.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { ZERO_BIN, binOf, quantileOf, type StatsBucket } from '../../src/domain/stats.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(statsProjection, (m) => m.stores.stats);

const P = '6b4d2f95-7081-43a4-9f1a-2b3c4d5e6f01';
const Q = '6b4d2f95-7081-43a4-9f1a-2b3c4d5e6f02';
const T = Date.UTC(2026, 6, 1, 10, 0);
const MIN = 60_000;

interface Over {
  project_id?: string;
  service_name?: string;
  environment?: string;
  event_type?: AuditEventType;
  status_code?: number;
  response_time?: number;
}
const event = (ms: number, method: string, over: Over = {}): DomainEvent => ({
  type: 'AuditEventRecorded',
  data: {
    id: randomUUID(),
    project_id: P,
    event_type: 'http',
    timestamp: new Date(T + ms).toISOString(),
    path: '/orders',
    method,
    identifier: 'ann',
    service_name: 'api',
    environment: 'production',
    source: 'backend',
    ...over,
  },
});

/** A bucket of `minute` with one event's worth of nothing: the fields a test overrides. */
const bucket = (over: Partial<StatsBucket>): StatsBucket => ({
  project_id: P,
  service_name: 'api',
  environment: 'production',
  minute: T,
  total: 0,
  errors_4xx: 0,
  errors_5xx: 0,
  classes: {},
  methods: {},
  rt_count: 0,
  rt_sum: 0,
  last_ts: T,
  bins: {},
  ...over,
});

const minuteBuckets = async (m: ReadModels, from = T - 60 * MIN, to = T + 60 * MIN) =>
  (await m.stats.buckets({ from, to, hourly: false }, { all: true })).sort(
    (a, b) =>
      a.project_id.localeCompare(b.project_id) ||
      a.minute - b.minute ||
      a.service_name.localeCompare(b.service_name) ||
      a.environment.localeCompare(b.environment),
  );

scenarioTests(it, {
  projectId: P,
  events: () => [
    event(5_000, 'GET', { status_code: 200, response_time: 120 }),
    event(10_000, 'POST', { status_code: 201, response_time: 80 }),
    event(20_000, 'GET', { status_code: 404, response_time: 80 }),
    event(40_000, 'GET', { status_code: 200, response_time: 50, environment: 'staging' }),
    event(30_000, 'DELETE', { status_code: 500, response_time: 0 }),
    event(59_999, 'PUT'), // no status and no response time: counted in total and methods only
    event(41_000, 'GET', { status_code: 503, response_time: 900, service_name: 'web' }),
    event(60_000, 'GET', { status_code: 302, response_time: 15 }), // the next minute
    event(42_000, 'GET', { status_code: 200, response_time: 10, project_id: Q }),
    // not http: not counted
    event(50_000, 'GET', { status_code: 503, response_time: 3, event_type: 'system.healthcheck.down' }),
    event(15_000, 'GET', { status_code: 200, response_time: 120 }), // late in the log, early in the minute
  ],
  read: (m) => minuteBuckets(m),
  expected: () => [
    bucket({
      total: 6,
      errors_4xx: 1,
      errors_5xx: 1,
      classes: { '2xx': 3, '4xx': 1, '5xx': 1 },
      methods: { GET: 3, POST: 1, DELETE: 1, PUT: 1 },
      rt_count: 5,
      rt_sum: 400,
      last_ts: T + 59_999,
      bins: { [binOf(120)]: 2, [binOf(80)]: 2, [ZERO_BIN]: 1 },
    }),
    bucket({
      environment: 'staging',
      total: 1,
      classes: { '2xx': 1 },
      methods: { GET: 1 },
      rt_count: 1,
      rt_sum: 50,
      last_ts: T + 40_000,
      bins: { [binOf(50)]: 1 },
    }),
    bucket({
      service_name: 'web',
      total: 1,
      errors_5xx: 1,
      classes: { '5xx': 1 },
      methods: { GET: 1 },
      rt_count: 1,
      rt_sum: 900,
      last_ts: T + 41_000,
      bins: { [binOf(900)]: 1 },
    }),
    bucket({
      minute: T + MIN,
      total: 1,
      classes: { '3xx': 1 },
      methods: { GET: 1 },
      rt_count: 1,
      rt_sum: 15,
      last_ts: T + 60_000,
      bins: { [binOf(15)]: 1 },
    }),
    bucket({
      project_id: Q,
      total: 1,
      classes: { '2xx': 1 },
      methods: { GET: 1 },
      rt_count: 1,
      rt_sum: 10,
      last_ts: T + 42_000,
      bins: { [binOf(10)]: 1 },
    }),
  ],
});

it('status classes at their bounds; 4xx and 5xx count as errors', async (t, f) => {
  await f.fold([101, 299, 300, 499, 500, 599].map((status_code, i) => event(i * 1000, 'GET', { status_code })));
  t.deepEqual(await minuteBuckets(f.models), [
    bucket({
      total: 6,
      errors_4xx: 1,
      errors_5xx: 2,
      classes: { '1xx': 1, '2xx': 1, '3xx': 1, '4xx': 1, '5xx': 2 },
      methods: { GET: 6 },
      last_ts: T + 5000,
    }),
  ]);
});

it(
  'the bins are the p95 input: the 95th percentile of the folded response times, ' +
    'within 1 %, per minute and per hour',
  async (t, f) => {
    // 10, 20, …, 200 ms over two minutes: the 95th percentile (rank 0.95 × 19) is 190 ms.
    await f.fold(
      Array.from({ length: 20 }, (_, i) => event(i * 6_000, 'GET', { status_code: 200, response_time: (i + 1) * 10 })),
    );
    const minutes = await minuteBuckets(f.models);
    t.deepEqual(
      minutes.map((b) => [b.minute, b.rt_count, b.rt_sum]),
      [
        [T, 10, 550],
        [T + MIN, 10, 1550],
      ],
    );
    const merged = Object.fromEntries(
      Object.keys({ ...minutes[0]!.bins, ...minutes[1]!.bins }).map((k) => [
        k,
        (minutes[0]!.bins[k] ?? 0) + (minutes[1]!.bins[k] ?? 0),
      ]),
    );
    const [hour] = await f.models.stats.buckets({ from: T, to: T + 59 * MIN, hourly: true }, { all: true });
    t.like(hour, { minute: T, total: 20, rt_count: 20, rt_sum: 2100 });
    t.deepEqual(hour!.bins, merged, 'the hour roll-up holds the bins of its minutes');
    for (const bins of [merged, hour!.bins]) {
      const p95 = quantileOf(bins, 0.95)!;
      t.true(Math.abs(p95 - 190) / 190 <= 0.01, `p95 ${p95}`);
    }
  },
);
