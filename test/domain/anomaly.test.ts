import test from 'ava';
import { DEFAULT_ANOMALY_SETTINGS as D } from '../../src/domain/anomaly-settings.ts';
import {
  BUCKET_MS,
  alertKey,
  baselineOf,
  baselineRange,
  bruteForce,
  bruteForceOver,
  currentRate,
  decideAlerts,
  errorRate,
  errorRateOver,
  evolveAnomalies,
  initialAnomalies,
  massDelete,
  massDeleteOver,
  silentService,
  volumeSpike,
  windowEnds,
  windowStart,
  type Baseline,
  type Finding,
  type ServiceCounts,
  type ServiceSeries,
} from '../../src/domain/anomaly.ts';

/** A baseline from per-minute counts (the first with events first). */
const summary = (counts: readonly number[]): Baseline => ({
  minutes: counts.length,
  sum: counts.reduce((a, b) => a + b, 0),
  sum_squares: counts.reduce((a, b) => a + b * b, 0),
});
const steady = (minutes: number, perMinute: number) => summary(Array.from({ length: minutes }, () => perMinute));

test('volume_spike: z above the threshold with a long enough baseline and a high enough rate', (t) => {
  const cases: Array<[string, number, Baseline, boolean]> = [
    ['steady 10/min then 40', 40, steady(60, 10), true],
    ['steady 10/min then 19 (z 2.85: within the √mean noise of a count)', 19, steady(60, 10), false],
    ['steady 400/min then 460 (z 3.0 exactly, not above)', 460, steady(60, 400), false],
    ['steady 400/min then 461', 461, steady(60, 400), true],
    ['steady 10/min then 14', 14, steady(60, 10), false], // z 4 but under the 20/min floor
    ['noisy baseline absorbs the burst', 40, summary(Array.from({ length: 60 }, (_, i) => (i % 2 ? 0 : 40))), false],
    ['29 minutes of baseline is too short', 100, steady(29, 5), false],
    ['30 minutes of baseline is enough', 100, steady(30, 5), true],
    ['empty baseline', 100, summary([]), false],
    ['rate 20 is enough when z is high', 20, steady(60, 1), true],
    ['rate 19 is not', 19, steady(60, 1), false],
  ];
  for (const [name, current, baseline, fires] of cases)
    t.is(volumeSpike(current, baseline, D.volume_spike) !== null, fires, name);
  t.deepEqual(volumeSpike(40, steady(60, 10), D.volume_spike), {
    current_rate: 40,
    baseline_mean: 10,
    z_score: 9.49,
    threshold: 3,
  });
  const noisy = summary(Array.from({ length: 60 }, (_, i) => (i % 2 ? 4 : 16)));
  t.is(volumeSpike(40, noisy, D.volume_spike)?.z_score, 5, 'a spread (6) above √mean (3.16) is the spread');
  t.is(volumeSpike(40, steady(60, 10), { ...D.volume_spike, enabled: false }), null);
});

test('error_rate: above 25 % with at least 20 events', (t) => {
  t.deepEqual(errorRate(8, 20, D.error_rate), {
    error_rate: 40,
    threshold: 25,
    errors: 8,
    total: 20,
    window_secs: 300,
  });
  t.is(errorRate(5, 20, D.error_rate), null, '25 % exactly is not above');
  t.not(errorRate(6, 20, D.error_rate), null);
  t.is(errorRate(19, 19, D.error_rate), null, 'too few events');
  t.is(errorRate(0, 0, D.error_rate), null);
});

test('brute_force and mass_delete: at least the threshold in the window', (t) => {
  t.is(bruteForce('u1', 9, D.brute_force), null);
  t.deepEqual(bruteForce('u1', 10, D.brute_force), { identifier: 'u1', count: 10, window_secs: 60, threshold: 10 });
  t.is(massDelete(49, D.mass_delete), null);
  t.deepEqual(massDelete(60, D.mass_delete), { count: 60, threshold: 50, window_secs: 60 });
  t.is(massDelete(60, { ...D.mass_delete, enabled: false }), null);
});

test('silent_service: quiet for more than 15 minutes after at least 10 events in 24 h', (t) => {
  const last = Date.parse('2026-11-23T10:00:00.000Z');
  t.is(silentService(last, 10, last + 15 * 60_000, D.silent_service), null, '15:00 is not more than 15 minutes');
  t.deepEqual(silentService(last, 10, last + 15 * 60_000 + 1, D.silent_service), {
    silence_minutes: 15,
    threshold_minutes: 15,
    last_event_at: '2026-11-23T10:00:00.000Z',
  });
  t.is(silentService(last, 9, last + 3_600_000, D.silent_service), null, 'a barely used service is not watched');
});

test(
  'no storms: one alert while the condition holds, ' + 'again only after it cleared; disabled rules do not clear',
  (t) => {
    const f = (rule: Finding['rule'], subject: string): Finding => ({
      rule,
      project_id: 'p',
      subject,
      service_name: 's',
      environment: 'production',
      details: {},
    });
    const evaluated = new Set<Finding['rule']>(['brute_force', 'mass_delete']);
    let open = new Set<string>();
    const step = (findings: Finding[], rules = evaluated) => {
      const { raise, clear } = decideAlerts(findings, open, rules);
      open = new Set([...open, ...raise.map(alertKey)].filter((k) => !clear.includes(k)));
      return { raised: raise.map((r) => `${r.rule}:${r.subject}`), cleared: clear.length };
    };
    t.deepEqual(step([f('brute_force', 'u1'), f('mass_delete', 'svc')]), {
      raised: ['brute_force:u1', 'mass_delete:svc'],
      cleared: 0,
    });
    t.deepEqual(
      step([f('brute_force', 'u1'), f('mass_delete', 'svc')]),
      { raised: [], cleared: 0 },
      'still holding: nothing new',
    );
    t.deepEqual(
      step([f('brute_force', 'u2')]),
      { raised: ['brute_force:u2'], cleared: 2 },
      'a new subject raises; cleared ones close',
    );
    t.deepEqual(step([], new Set()), { raised: [], cleared: 0 }, 'rules not evaluated keep their alerts open');
    t.deepEqual(
      step([f('brute_force', 'u1')]),
      { raised: ['brute_force:u1'], cleared: 1 },
      'u1 fires again after clearing',
    );
  },
);

// ---- windows: 10-second buckets, every window position since the previous scan ----

const T = Date.parse('2026-11-23T10:00:00.000Z');
const at = (seconds: number) => T + seconds * 1000;
/** A service's buckets from [second, counts] pairs. */
const service = (entries: Array<[number, Partial<ServiceCounts>]>): ServiceSeries => ({
  project_id: 'p',
  service_name: 'svc',
  environment: 'production',
  buckets: new Map(entries.map(([s, c]) => [at(s), { total: 0, errors: 0, deletes: 0, ...c }])),
});

test('windowEnds: every bucket from the lookback to the one holding now', (t) => {
  t.deepEqual(windowEnds(at(45), 40_000), [at(0), at(10), at(20), at(30), at(40)]);
  t.deepEqual(windowEnds(at(40), 10_000), [at(30), at(40)]);
  t.is(windowStart([at(30), at(40)], 60), at(-20), 'a 60 s window ending with the bucket at 30 s starts at -20 s');
});

test('mass_delete: a burst between two scans is seen whole by the window positions since the last scan', (t) => {
  // 50 DELETEs spread over 50 s, from 5 s to 55 s: the scan at 40 s sees 45 of them in its window,
  // the scan at 70 s those from 20 s on (35): neither window ending at a scan holds all 50.
  const burst = service([
    [0, { total: 5, deletes: 5 }],
    [10, { total: 10, deletes: 10 }],
    [20, { total: 10, deletes: 10 }],
    [30, { total: 10, deletes: 10 }],
    [40, { total: 10, deletes: 10 }],
    [50, { total: 5, deletes: 5 }],
  ]);
  const s = D.mass_delete;
  t.is(massDeleteOver(burst, [at(70)], s), null, 'the window ending at the scan alone misses it');
  t.deepEqual(massDeleteOver(burst, windowEnds(at(70), 30_000 + BUCKET_MS), s)?.details, {
    count: 50,
    threshold: 50,
    window_secs: 60,
  });
  const cases: Array<[string, number, boolean]> = [
    ['49 in the window', 49, false],
    ['50 in the window', 50, true],
    ['60 in the window', 60, true],
  ];
  for (const [name, deletes, fires] of cases) {
    t.is(massDeleteOver(service([[0, { total: deletes, deletes }]]), [at(0)], s) !== null, fires, name);
  }
  t.is(
    massDeleteOver(service([[-60, { total: 50, deletes: 50 }]]), [at(0)], s),
    null,
    'a burst a full window before is out of it',
  );
  t.is(
    massDeleteOver(service([[-50, { total: 50, deletes: 50 }]]), [at(0)], s) !== null,
    true,
    'six buckets make the 60 s window',
  );
});

test('error_rate: the position with the highest firing rate; too few events in every position fires nothing', (t) => {
  const s = D.error_rate;
  const steady = service(
    Array.from({ length: 30 }, (_, i): [number, Partial<ServiceCounts>] => [
      -290 + i * 10,
      { total: 2, errors: i >= 20 ? 2 : 0 },
    ]),
  );
  // The last 10 buckets are all errors: 20 of 60 over the 300 s window is 33.33 %.
  t.deepEqual(errorRateOver(steady, [at(0)], s)?.details, {
    error_rate: 33.33,
    threshold: 25,
    errors: 20,
    total: 60,
    window_secs: 300,
  });
  t.is(errorRateOver(steady, [at(-100)], s), null, 'before the errors began');
  const sparse = service([[0, { total: 19, errors: 19 }]]);
  t.is(errorRateOver(sparse, [at(0)], s), null, '19 events are under the 20-event minimum');
  const boundary = service([[0, { total: 20, errors: 5 }]]);
  t.is(errorRateOver(boundary, [at(0)], s), null, '25 % is not above 25 %');
  t.is(errorRateOver(service([[0, { total: 20, errors: 6 }]]), [at(0)], s)?.details.error_rate, 30);
  t.is(errorRateOver(service([]), windowEnds(at(0), 40_000), s), null, 'no events at all');
});

test('brute_force over identifier buckets', (t) => {
  const series = (entries: Array<[number, number]>) => ({
    project_id: 'p',
    identifier: 'mallory',
    service_name: 'auth',
    environment: 'staging',
    buckets: new Map(entries.map(([s, n]) => [at(s), n])),
  });
  const found = bruteForceOver(
    series([
      [0, 6],
      [20, 6],
    ]),
    [at(20)],
    D.brute_force,
  );
  t.deepEqual(found, {
    rule: 'brute_force',
    project_id: 'p',
    subject: 'mallory',
    service_name: 'auth',
    environment: 'staging',
    details: { identifier: 'mallory', count: 12, window_secs: 60, threshold: 10 },
  });
  t.is(bruteForceOver(series([[0, 9]]), windowEnds(at(30), 40_000), D.brute_force), null, '9 is under the threshold');
  t.is(
    bruteForceOver(
      series([
        [-60, 5],
        [0, 5],
      ]),
      [at(0)],
      D.brute_force,
    ),
    null,
    '10 spread over 70 s is not within 60 s',
  );
});

test('volume_spike: the busiest minute among the positions against the minutes before them', (t) => {
  const ends = windowEnds(at(40), 40_000);
  const burst = service([
    [0, { total: 30 }],
    [10, { total: 30 }],
    [40, { total: 5 }],
  ]);
  t.is(currentRate(burst, ends), 65);
  // The earliest window ends at 0 s and starts at -50 s, in the minute from -60 s: the baseline
  // is the 60 minutes before that minute.
  t.deepEqual(baselineRange(ends, 60), { from: at(-60) - 3_600_000, to: at(-60) });
  const { to } = baselineRange(ends, 60);
  t.deepEqual(
    baselineOf(to - 45 * 60_000, 450, 4500, to),
    { minutes: 45, sum: 450, sum_squares: 4500 },
    'from the first minute with events on',
  );
  t.is(volumeSpike(65, baselineOf(to - 45 * 60_000, 450, 4500, to), D.volume_spike)?.z_score, 17.39);
  t.is(
    volumeSpike(65, baselineOf(to - 20 * 60_000, 200, 2000, to), D.volume_spike),
    null,
    '20 minutes of history are too few',
  );
});

test('the anomalies aggregate: open alerts by rule and subject; settings fold their updates', (t) => {
  const detected = (alert_id: string, rule: 'brute_force' | 'mass_delete', subject: string) => ({
    type: 'AnomalyDetected' as const,
    data: {
      alert_id,
      project_id: 'p',
      rule,
      subject,
      service_name: 'svc',
      environment: 'production',
      detected_at: '',
      details: {},
    },
  });
  let state = [detected('a1', 'brute_force', 'u1'), detected('a2', 'mass_delete', 'svc')].reduce(
    evolveAnomalies,
    initialAnomalies,
  );
  t.deepEqual(
    [...state.open.keys()],
    [alertKey({ rule: 'brute_force', subject: 'u1' }), alertKey({ rule: 'mass_delete', subject: 'svc' })],
  );
  state = evolveAnomalies(state, {
    type: 'AnomalyCleared',
    data: { alert_id: 'a1', project_id: 'p', rule: 'brute_force', subject: 'u1', cleared_at: '' },
  });
  t.deepEqual(
    [...state.open.values()].map((a) => a.alert_id),
    ['a2'],
  );
  state = evolveAnomalies(state, {
    type: 'AnomalySettingsUpdated',
    data: { project_id: 'p', changes: { brute_force: { threshold: 5, window_secs: 30 } }, updated_at: 'x' },
  });
  state = evolveAnomalies(state, {
    type: 'AnomalySettingsUpdated',
    data: { project_id: 'p', changes: { brute_force: { threshold: null } }, updated_at: 'y' },
  });
  t.deepEqual(state.overrides, { brute_force: { window_secs: 30 } });
  t.is(state.updatedAt, 'y');
});
