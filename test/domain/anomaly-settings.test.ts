import test from 'ava';
import { isLeft } from 'fp-ts/lib/Either.js';
import {
  AnomalySettingsPatch,
  DEFAULT_ANOMALY_SETTINGS as D,
  applyPatch,
  effectiveSettings,
  settingsProblems,
} from '../../src/domain/anomaly-settings.ts';
import { describeErrors } from '../../src/domain/decode-errors.ts';

const problems = (input: unknown) => {
  const r = AnomalySettingsPatch.decode(input);
  return isLeft(r) ? describeErrors(r.left) : [];
};

test('a patch names each faulty field by its path, unknown keys included', (t) => {
  t.deepEqual(problems({ brute_force: { threshold: 5 }, volume_spike: { z_threshold: 2.5, enabled: false } }), []);
  t.deepEqual(problems({}), []);
  const bad = problems({
    brute_force: { threshold: 0, treshold: 5 },
    error_rate: { threshold_percent: 100, window_secs: 45 },
    mass_delete: 'x',
    silent_service: { threshold_minutes: 1.5 },
    volume_spike: { enabled: 'yes' },
    nope: {},
  });
  t.deepEqual(bad.map((d) => d.path).sort(), [
    'brute_force.threshold',
    'brute_force.treshold',
    'error_rate.threshold_percent',
    'error_rate.window_secs',
    'mass_delete',
    'nope',
    'silent_service.threshold_minutes',
    'volume_spike.enabled',
  ]);
  t.is(bad.find((d) => d.path === 'brute_force.treshold')?.message, 'is not a known field (did you mean threshold?)');
  t.is(
    bad.find((d) => d.path === 'error_rate.window_secs')?.message,
    'must be a multiple of 10 from 10 to 3600 or null',
  );
  t.deepEqual(
    problems({ __proto__: { x: 1 } }).map((d) => d.path),
    [],
  ); // a literal __proto__ sets the prototype, not a key
  t.deepEqual(
    problems(JSON.parse('{"__proto__": {"threshold": 1}}')).map((d) => d.path),
    ['__proto__'],
    'a JSON __proto__ key is just unknown',
  );
  t.deepEqual(
    problems([]).map((d) => d.path),
    ['(root)'],
  );
});

test(
  'overrides: values set fields, null puts them back to the default; ' + 'effective settings merge over the defaults',
  (t) => {
    const first = applyPatch({}, { brute_force: { threshold: 5 }, silent_service: { enabled: false } });
    t.deepEqual(first, { brute_force: { threshold: 5 }, silent_service: { enabled: false } });
    const second = applyPatch(first, {
      brute_force: { threshold: null, window_secs: 120 },
      silent_service: { enabled: null },
    });
    t.deepEqual(second, { brute_force: { window_secs: 120 } });
    const effective = effectiveSettings(D, second);
    t.deepEqual(effective.brute_force, { enabled: true, threshold: 10, window_secs: 120 });
    t.deepEqual(effective.mass_delete, D.mass_delete);
  },
);

test('fields must agree with each other', (t) => {
  t.deepEqual(settingsProblems(D), []);
  const wrong = effectiveSettings(D, { volume_spike: { baseline_minutes: 20, min_baseline_minutes: 30 } });
  t.deepEqual(
    settingsProblems(wrong).map((d) => d.path),
    ['volume_spike.min_baseline_minutes'],
  );
});
