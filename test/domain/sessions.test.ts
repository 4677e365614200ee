import test from 'ava';
import fc from 'fast-check';
import { SESSION_GAP_MS, addEvent, type SessionSpan } from '../../src/domain/sessions.ts';

const MIN = 60_000;
const build = (times: number[]) => times.reduce<SessionSpan[]>((spans, ts) => addEvent(spans, ts), []);

test('30:00 of inactivity stays in the session; 30:01 starts a new one', (t) => {
  t.deepEqual(build([0, 30 * MIN]), [{ start: 0, end: 30 * MIN, count: 2 }]);
  t.deepEqual(build([0, 30 * MIN + 1000]), [
    { start: 0, end: 0, count: 1 },
    { start: 30 * MIN + 1000, end: 30 * MIN + 1000, count: 1 },
  ]);
});

test('a late event inside a session joins it; one that bridges two sessions merges them', (t) => {
  t.deepEqual(build([0, 20 * MIN, 10 * MIN]), [{ start: 0, end: 20 * MIN, count: 3 }]);
  const apart = build([0, 50 * MIN]);
  t.is(apart.length, 2);
  t.deepEqual(addEvent(apart, 25 * MIN), [{ start: 0, end: 50 * MIN, count: 3 }]);
  t.deepEqual(build([40 * MIN, 0]), [
    { start: 0, end: 0, count: 1 },
    { start: 40 * MIN, end: 40 * MIN, count: 1 },
  ]);
});

/** The definition: sort the times and split where the gap exceeds 30 minutes. */
const reference = (times: number[]): SessionSpan[] => {
  const sorted = [...times].sort((a, b) => a - b);
  const spans: SessionSpan[] = [];
  for (const ts of sorted) {
    const last = spans[spans.length - 1];
    if (last && ts - last.end <= SESSION_GAP_MS) {
      last.end = ts;
      last.count += 1;
    } else spans.push({ start: ts, end: ts, count: 1 });
  }
  return spans;
};

test('property: any arrival order gives the sessions of the sorted timestamps', (t) => {
  fc.assert(
    fc.property(
      fc.array(
        fc.integer({ min: 0, max: 6 * 60 }).map((m) => (m * MIN) / 2),
        { maxLength: 40 },
      ),
      (times) => {
        t.deepEqual(build(times), reference(times));
      },
    ),
  );
});
