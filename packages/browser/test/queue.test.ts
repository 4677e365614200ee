import test from 'ava';
import { bodyOf, boundedQueue, entryOf, fitting } from '../src/queue.ts';

const entries = (n: number, size = 10) => Array.from({ length: n }, (_, i) => entryOf({ i, pad: 'x'.repeat(size) }));

test('an entry is serialised once, with its UTF-8 size', (t) => {
  const e = entryOf({ path: '/café' });
  t.is(e.json, '{"path":"/café"}');
  t.is(e.bytes, e.json.length + 1, 'é is two bytes');
});

test('batches are cut by count and by the bytes of the whole JSON array, never empty', (t) => {
  const list = entries(10);
  t.is(fitting(list, 4, Infinity), 4);
  const body = bodyOf(list.slice(0, 3));
  t.deepEqual(
    JSON.parse(body),
    list.slice(0, 3).map((e) => JSON.parse(e.json)),
  );
  t.is(fitting(list, 100, Buffer.byteLength(body)), 3, 'exactly three fit in their own size');
  t.is(fitting(list, 100, Buffer.byteLength(body) - 1), 2);
  t.is(fitting(entries(2, 1000), 100, 50), 1, 'an entry larger than the budget still goes, alone');
  t.is(fitting([], 100, 100), 0);
});

test('past its capacity the queue drops the oldest, and counts them', (t) => {
  const q = boundedQueue(3);
  for (const e of entries(5)) q.push(e);
  t.is(q.length, 3);
  t.is(q.dropped, 2);
  const taken = q.take(2, Infinity);
  t.deepEqual(
    taken.map((e) => (JSON.parse(e.json) as { i: number }).i),
    [2, 3],
  );
  q.putBack(entries(3));
  t.is(q.length, 3, 'put back in front, and trimmed from the front');
  t.is(q.dropped, 3);
  t.deepEqual(
    q.take(10, Infinity).map((e) => (JSON.parse(e.json) as { i: number }).i),
    [1, 2, 4],
  );
});
