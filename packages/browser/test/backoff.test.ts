import test from 'ava';
import { backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs } from '../src/backoff.ts';

test('Retry-After: delta-seconds or an IMF-fixdate, at most 5 minutes, else nothing', (t) => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  t.is(retryAfterMs('7', now), 7000);
  t.is(retryAfterMs(' 0 ', now), 0);
  t.is(retryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now), 30_000);
  t.is(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now), 0, 'a date in the past: now');
  t.is(retryAfterMs('Sun, 01 Mar 2026 13:00:00 GMT', now), MAX_RETRY_AFTER_MS);
  t.is(retryAfterMs('3600', now), MAX_RETRY_AFTER_MS);
  t.is(retryAfterMs('Sun, 01 Foo 2026 12:00:30 GMT', now), undefined, 'no such month');
  t.is(retryAfterMs('2026-03-01T12:00:30Z', now), undefined, 'not an HTTP date');
  t.is(retryAfterMs('soon', now), undefined);
  t.is(retryAfterMs('-5', now), undefined);
  t.is(retryAfterMs(null, now), undefined);
  t.is(retryAfterMs('', now), undefined);
});

test('backoff doubles from the initial delay to the cap, with full jitter below it', (t) => {
  t.deepEqual(
    [0, 1, 2, 3, 4, 5, 6].map((a) => backoffMs(a, 0.999999, 1000, 30_000)),
    [999, 1999, 3999, 7999, 15_999, 29_999, 29_999],
  );
  t.deepEqual(
    [0, 1, 5].map((a) => backoffMs(a, 0, 1000, 30_000)),
    [0, 0, 0],
  );
  for (let i = 0; i < 100; i += 1) {
    const d = backoffMs(2, Math.random(), 1000, 30_000);
    t.true(d >= 0 && d < 4000);
  }
});
