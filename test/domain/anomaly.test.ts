import test from 'ava';
import {
  DEFAULT_ANOMALY_SETTINGS as D, alertKey, bruteForce, decideAlerts, errorRate, massDelete, silentService, volumeSpike, type Finding,
} from '../../src/domain/anomaly.ts';

const steady = (minutes: number, perMinute: number) => Array.from({ length: minutes }, () => perMinute);

test('volume_spike: z above the threshold with a long enough baseline and a high enough rate', (t) => {
  const cases: Array<[string, number, number[], boolean]> = [
    ['steady 10/min then 40', 40, steady(60, 10), true],
    ['steady 10/min then 13 (z 3.0 exactly, not above)', 13, steady(60, 10), false],
    ['steady 10/min then 14', 14, steady(60, 10), false], // z 4 but under the 20/min floor
    ['noisy baseline absorbs the burst', 40, Array.from({ length: 60 }, (_, i) => (i % 2 ? 0 : 40)), false],
    ['29 minutes of baseline is too short', 100, steady(29, 5), false],
    ['30 minutes of baseline is enough', 100, steady(30, 5), true],
    ['empty baseline', 100, [], false],
    ['rate 20 is enough when z is high', 20, steady(60, 1), true],
    ['rate 19 is not', 19, steady(60, 1), false],
  ];
  for (const [name, current, baseline, fires] of cases) t.is(volumeSpike(current, baseline, D.volume_spike) !== null, fires, name);
  t.deepEqual(volumeSpike(40, steady(60, 10), D.volume_spike), { current_rate: 40, baseline_mean: 10, z_score: 30, threshold: 3 });
  t.is(volumeSpike(40, steady(60, 10), { ...D.volume_spike, enabled: false }), null);
});

test('error_rate: above 25 % with at least 20 events', (t) => {
  t.deepEqual(errorRate(8, 20, D.error_rate), { error_rate: 40, threshold: 25, errors: 8, total: 20, window_secs: 300 });
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
    silence_minutes: 15, threshold_minutes: 15, last_event_at: '2026-11-23T10:00:00.000Z',
  });
  t.is(silentService(last, 9, last + 3_600_000, D.silent_service), null, 'a barely used service is not watched');
});

test('no storms: one alert while the condition holds, again only after it cleared; disabled rules do not clear', (t) => {
  const f = (rule: Finding['rule'], subject: string): Finding => ({ rule, project_id: 'p', subject, service_name: 's', body: {} });
  const evaluated = new Set<Finding['rule']>(['brute_force', 'mass_delete']);
  let open = new Set<string>();
  const step = (findings: Finding[], rules = evaluated) => {
    const { raise, clear } = decideAlerts(findings, open, rules);
    open = new Set([...open, ...raise.map(alertKey)].filter((k) => !clear.includes(k)));
    return { raised: raise.map((r) => `${r.rule}:${r.subject}`), cleared: clear.length };
  };
  t.deepEqual(step([f('brute_force', 'u1'), f('mass_delete', 'svc')]), { raised: ['brute_force:u1', 'mass_delete:svc'], cleared: 0 });
  t.deepEqual(step([f('brute_force', 'u1'), f('mass_delete', 'svc')]), { raised: [], cleared: 0 }, 'still holding: nothing new');
  t.deepEqual(step([f('brute_force', 'u2')]), { raised: ['brute_force:u2'], cleared: 2 }, 'a new subject raises; cleared ones close');
  t.deepEqual(step([], new Set()), { raised: [], cleared: 0 }, 'rules not evaluated keep their alerts open');
  t.deepEqual(step([f('brute_force', 'u1')]), { raised: ['brute_force:u1'], cleared: 1 }, 'u1 fires again after clearing');
});
