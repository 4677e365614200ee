import test from 'ava';
import fc from 'fast-check';
import {
  bucketOf,
  binOf,
  intervalFor,
  mergeInto,
  planRange,
  quantileOf,
  statisticsOf,
  type Bins,
  type StatsBucket,
} from '../../src/domain/stats.ts';

/** DDSketch's rank rule: the value at rank q × (n − 1) of the sorted values. */
const exactQuantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;

const binsOf = (values: number[]): Bins => {
  const bins: Bins = {};
  for (const v of values) bins[binOf(v)] = (bins[binOf(v)] ?? 0) + 1;
  return bins;
};

test('property: p95 from bins is within 1% of the exact p95', (t) => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 1, max: 120_000 }), { minLength: 1, maxLength: 500 }), (values) => {
      const exact = exactQuantile(values, 0.95);
      const estimate = quantileOf(binsOf(values), 0.95)!;
      t.true(Math.abs(estimate - exact) <= exact * 0.01 + 1e-9, `${estimate} vs ${exact}`);
    }),
  );
});

test('zeros have their own bin; no values, no quantile', (t) => {
  t.is(quantileOf(binsOf([0, 0, 0, 5]), 0.5), 0);
  t.is(quantileOf({}, 0.95), null);
});

const event = (
  minute: number,
  extra: Partial<{ status_code: number; response_time: number; method: string; service_name: string }> = {},
) =>
  bucketOf({
    project_id: 'p',
    service_name: extra.service_name ?? 'api',
    environment: 'production',
    method: extra.method ?? 'GET',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, minute, 7)).toISOString(),
    ...(extra.status_code === undefined ? {} : { status_code: extra.status_code }),
    ...(extra.response_time === undefined ? {} : { response_time: extra.response_time }),
  });

test('statistics: totals, errors, classes, methods, per service, averages over timed events only', (t) => {
  const buckets: StatsBucket[] = [
    event(0, { status_code: 200, response_time: 10 }),
    event(0, { status_code: 404, response_time: 30, method: 'POST' }),
    event(1, { status_code: 503, service_name: 'web' }),
    event(2, { status_code: 101, response_time: 20, method: 'DELETE' }),
    event(3),
  ];
  const from = Date.UTC(2026, 0, 1, 0, 0);
  const s = statisticsOf(buckets, from, from + 4 * 60_000, 'minute');
  t.like(s, {
    total: 5,
    errors_4xx: 1,
    errors_5xx: 1,
    avg_response_time: 20,
    active_services: 2,
    last_event_at: new Date(Date.UTC(2026, 0, 1, 0, 3, 7)).toISOString(),
  });
  t.deepEqual(s.by_status_class, { '1xx': 1, '2xx': 1, '3xx': 0, '4xx': 1, '5xx': 1 });
  t.deepEqual(s.by_method, { GET: 3, POST: 1, DELETE: 1 });
  t.deepEqual(
    s.by_service.map((x) => [x.service_name, x.total, x.avg_response_time]),
    [
      ['api', 4, 20],
      ['web', 1, null],
    ],
  );
  t.deepEqual(
    s.timeline.map((p) => p.total),
    [2, 1, 1, 1, 0],
  );
  t.is(s.timeline[1]!.avg_response_time, null);
  const noOneXx = statisticsOf([event(0, { status_code: 200 })], from, from, 'minute');
  t.deepEqual(Object.keys(noOneXx.by_status_class), ['2xx', '3xx', '4xx', '5xx']);
  const none = statisticsOf([], from, from + 60_000, 'minute');
  t.like(none, { total: 0, avg_response_time: null, p95_response_time: null, active_services: 0, last_event_at: null });
});

test('merging buckets equals adding their events', (t) => {
  const a = event(0, { status_code: 200, response_time: 10 });
  mergeInto(a, event(0, { status_code: 500, response_time: 90, method: 'PUT' }));
  t.like(a, {
    total: 2,
    errors_5xx: 1,
    rt_count: 2,
    rt_sum: 100,
    classes: { '2xx': 1, '5xx': 1 },
    methods: { GET: 1, PUT: 1 },
  });
});

test('the timeline interval follows the range: 2 h of minutes, 7 days of hours, then days', (t) => {
  const h = 3_600_000;
  t.is(intervalFor(0, 2 * h), 'minute');
  t.is(intervalFor(0, 2 * h + 1), 'hour');
  t.is(intervalFor(0, 7 * 24 * h), 'hour');
  t.is(intervalFor(0, 7 * 24 * h + 1), 'day');
});

test('a range reads whole hours from the roll-up and the ragged ends from minutes', (t) => {
  const H = 3_600_000;
  const M = 60_000;
  t.deepEqual(planRange(0, 3 * H - M), { hours: [0, 3 * H], minutes: [] });
  t.deepEqual(planRange(10 * M, 3 * H + 5 * M), {
    hours: [H, 3 * H],
    minutes: [
      [10 * M, H - M],
      [3 * H, 3 * H + 5 * M],
    ],
  });
  t.deepEqual(planRange(10 * M, 50 * M), { hours: null, minutes: [[10 * M, 50 * M]] });
  t.deepEqual(planRange(10 * M, H + 59 * M), { hours: [H, 2 * H], minutes: [[10 * M, H - M]] });
});
