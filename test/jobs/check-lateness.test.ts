import test from 'ava';
import { latenessOf } from '../../src/jobs/worker-jobs.ts';

const view = (last_checked_at: string | null, updated_at = '2025-01-01T00:00:00.000Z') => ({
  last_checked_at,
  updated_at,
});

test("a check's lateness: after the previous check plus the interval, never negative", (t) => {
  t.is(latenessOf(view('2025-01-01T00:01:00.000Z'), 60, '2025-01-01T00:02:00.250Z'), 0.25);
  t.is(latenessOf(view('2025-01-01T00:01:00.000Z'), 60, '2025-01-01T00:02:07.000Z'), 7);
  t.is(latenessOf(view('2025-01-01T00:01:00.000Z'), 60, '2025-01-01T00:01:59.900Z'), 0, 'early is on time');
});

test('no lateness without a previous check, or when the monitor changed since it (its schedule began again)', (t) => {
  t.is(latenessOf(null, 60, '2025-01-01T00:02:00.000Z'), null);
  t.is(latenessOf(view(null), 60, '2025-01-01T00:02:00.000Z'), null);
  t.is(latenessOf(view('2025-01-01T00:01:00.000Z', '2025-01-01T00:05:00.000Z'), 60, '2025-01-01T00:05:00.100Z'), null);
});
