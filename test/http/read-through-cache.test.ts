import test from 'ava';
import { ReadThroughCache } from '../../src/http/middleware/read-through-cache.ts';

const counting = (values: Map<string, string | null>) => {
  const reads: string[] = [];
  return {
    reads,
    read: async (key: string) => {
      reads.push(key);
      return values.get(key) ?? null;
    },
  };
};

test('a value is read once per ttl; what `remember` refuses is read every time', async (t) => {
  const source = counting(new Map([['a', 'A']]));
  // A ttl a loaded machine cannot outlast between two reads in a row (at 40 ms it could).
  const cache = new ReadThroughCache(source.read, { ttlMs: 1000, remember: (v) => v !== null });
  t.is(await cache.get('a'), 'A');
  t.is(await cache.get('a'), 'A');
  t.is(await cache.get('missing'), null);
  t.is(await cache.get('missing'), null);
  t.deepEqual(source.reads, ['a', 'missing', 'missing']);
  await new Promise((r) => setTimeout(r, 1100));
  await cache.get('a');
  t.deepEqual(source.reads, ['a', 'missing', 'missing', 'a']);
});

test('a read that began before an invalidation is not remembered: a revoked value cannot come back', async (t) => {
  const values = new Map<string, string | null>([['key', 'project-1']]);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  let slow = true;
  const cache = new ReadThroughCache<string, string | null>(
    async (key) => {
      const value = values.get(key) ?? null;
      if (slow) await gate;
      return value;
    },
    { ttlMs: 60_000 },
  );
  const inFlight = cache.get('key');
  values.set('key', null);
  cache.invalidate('key');
  release();
  t.is(await inFlight, 'project-1', 'the caller that asked before gets what it read');
  slow = false;
  t.is(await cache.get('key'), null, 'but it was not remembered');
});

test('invalidate without a key forgets everything; a full cache starts over', async (t) => {
  const source = counting(
    new Map([
      ['a', 'A'],
      ['b', 'B'],
      ['c', 'C'],
    ]),
  );
  const cache = new ReadThroughCache(source.read, { ttlMs: 60_000, maxEntries: 2 });
  await cache.get('a');
  await cache.get('b');
  await cache.get('c');
  await cache.get('c');
  await cache.get('a');
  t.deepEqual(source.reads, ['a', 'b', 'c', 'a'], 'the third entry cleared the two before it');
  cache.invalidate();
  await cache.get('c');
  t.deepEqual(source.reads, ['a', 'b', 'c', 'a', 'c']);
});
