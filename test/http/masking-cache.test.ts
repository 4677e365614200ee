import test from 'ava';
import { MaskingCache } from '../../src/http/middleware/masking-cache.ts';
import type { ProjectMaskingRules } from '../../src/views/masking/port.ts';

/** A read model of one project's rules that counts its reads. */
const readModel = (initial: ProjectMaskingRules | null) => {
  let rules = initial;
  let reads = 0;
  return {
    queries: {
      rulesOf: async () => {
        reads += 1;
        return rules;
      },
    },
    set: (next: ProjectMaskingRules | null) => {
      rules = next;
    },
    reads: () => reads,
  };
};

const P = 'd3be9a6c-e7f8-4a0b-9c8d-9e0f1a2b3c01';
const rules = (keys: string[], updated_at: string): ProjectMaskingRules => ({
  project_id: P,
  keys,
  patterns: ['sk_[0-9]+'],
  updated_at,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a project without rules is null, and is remembered too', async (t) => {
  const m = readModel(null);
  const cache = new MaskingCache(m.queries, 10_000);
  t.is(await cache.of(P), null);
  t.is(await cache.of(P), null);
  t.is(m.reads(), 1);
});

test('rules are read once per ttl; a change applies within the ttl, or at once after invalidate', async (t) => {
  const m = readModel(rules(['a'], 't1'));
  // A ttl a loaded machine cannot outlast between two reads in a row (at 40 ms it could).
  const cache = new MaskingCache(m.queries, 1000);
  const first = await cache.of(P);
  t.deepEqual([...first!.keys], ['a']);
  m.set(rules(['b'], 't2'));
  t.is(await cache.of(P), first, 'within the ttl: the remembered rules');
  t.is(m.reads(), 1);
  await sleep(1100);
  t.deepEqual([...(await cache.of(P))!.keys], ['b'], "after the ttl: the read model's");
  m.set(rules(['c'], 't3'));
  cache.invalidate(P);
  t.deepEqual([...(await cache.of(P))!.keys], ['c'], 'after invalidate: at once');
});

test('unchanged rules are not compiled again when the ttl runs out', async (t) => {
  const m = readModel(rules(['a'], 't1'));
  const cache = new MaskingCache(m.queries, 10);
  const first = await cache.of(P);
  await sleep(30);
  t.is(await cache.of(P), first, 'the same compiled rules');
  t.is(m.reads(), 2);
});

test('a read model that cannot be read fails the lookup: ingest never goes on without the rules', async (t) => {
  const cache = new MaskingCache({
    rulesOf: async () => {
      throw new Error('read model down');
    },
  });
  await t.throwsAsync(cache.of(P), { message: 'read model down' });
});

test('a read that began before an invalidation is not remembered: it cannot bring back the old rules', async (t) => {
  let release: (r: ProjectMaskingRules) => void = () => undefined;
  let reads = 0;
  const cache = new MaskingCache(
    {
      rulesOf: async () => {
        reads += 1;
        return reads === 1
          ? new Promise<ProjectMaskingRules>((resolve) => {
              release = resolve;
            })
          : rules(['new'], 't2');
      },
    },
    10_000,
  );
  const slow = cache.of(P);
  await sleep(5);
  cache.invalidate(P);
  release(rules(['old'], 't1'));
  t.deepEqual([...(await slow)!.keys], ['old'], 'the request that began before answers what it read');
  t.deepEqual([...(await cache.of(P))!.keys], ['new'], 'the next one reads again');
});
