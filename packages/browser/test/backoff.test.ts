import test from 'ava';
import { backoffMs, MAX_RETRY_AFTER_MS, retryAfterMs } from '../src/backoff.ts';

test('Retry-After: delta-seconds or an HTTP date, else nothing', (t) => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  t.is(retryAfterMs('7', now), 7000);
  t.is(retryAfterMs(' 0 ', now), 0);
  t.is(retryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now), 30_000);
  t.is(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now), 0, 'a date in the past: now');
  t.is(retryAfterMs('soon', now), undefined);
  t.is(retryAfterMs('-5', now), undefined);
  t.is(retryAfterMs(null, now), undefined);
  t.is(retryAfterMs('', now), undefined);
});

test('backoff doubles from 1 s to a 30 s cap, jittered between half and all of it', (t) => {
  t.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((a) => backoffMs(a, 0.999999)),
    [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000],
  );
  t.deepEqual(
    [1, 2, 6].map((a) => backoffMs(a, 0)),
    [500, 1000, 15_000],
  );
  for (let i = 0; i < 100; i += 1) {
    const d = backoffMs(3, Math.random());
    t.true(d >= 2000 && d <= 4000);
  }
});

test("the server's Retry-After wins over the backoff, up to 5 minutes", (t) => {
  t.is(backoffMs(1, 0.5, 12_000), 12_000);
  t.is(backoffMs(6, 0.5, 0), 0);
  t.is(backoffMs(1, 0.5, 3_600_000), MAX_RETRY_AFTER_MS);
});
