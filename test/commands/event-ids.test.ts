import test from 'ava';
import { isUuid } from '../../src/domain/codecs.ts';
import { newEventId } from '../../src/commands/event-ids.ts';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (id: string) => Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

test('event ids are UUIDs of version 7 carrying the time they were made, each after the one before', (t) => {
  const before = Date.now();
  const ids = Array.from({ length: 100_000 }, () => newEventId());
  const after = Date.now();
  for (const id of ids) {
    t.true(V7.test(id), id);
    t.true(isUuid(id));
  }
  t.is(new Set(ids).size, ids.length);
  // Text order is creation order: what the read models' unique index on the id relies on.
  for (let i = 1; i < ids.length; i++) if (!(ids[i - 1]! < ids[i]!)) t.fail(`${ids[i - 1]} then ${ids[i]}`);
  t.true(msOf(ids[0]!) >= before);
  // Over 4,096 ids in one millisecond borrow the next: never far past the clock.
  t.true(msOf(ids[ids.length - 1]!) <= after + 100);
});

test(
  'a clock that steps back, or one millisecond asked for too many ids, ' +
    'never makes an id that sorts before the last',
  (t) => {
    const now = Date.now();
    const first = newEventId(now);
    const stepBack = newEventId(now - 60_000);
    t.true(first < stepBack);
    t.is(msOf(stepBack), msOf(first));
    let last = stepBack;
    for (let i = 0; i < 5000; i++) {
      const next = newEventId(now);
      if (!(last < next)) t.fail(`${last} then ${next}`);
      last = next;
    }
    t.true(msOf(last) > msOf(first), 'the 4,097th id of a millisecond is of the next one');
    t.true(msOf(last) <= msOf(first) + 2);
    t.is(new Set(Array.from({ length: 1000 }, () => newEventId().slice(19))).size, 1000, 'the random part differs');
  },
);
