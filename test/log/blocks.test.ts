import test from 'ava';
import { deflateRawSync } from 'node:zlib';
import { BlockCache, compressBlockSync, decompressBlock, type BlockRecord } from '../../src/log/sqlite/blocks.ts';

const record = (position: number, data: unknown): BlockRecord => ({
  position,
  id: `id-${position}`,
  type: 'AuditEventRecorded',
  data: JSON.stringify(data),
  metadata: JSON.stringify({ recorded_at: '2026-11-25T00:00:00.000Z' }),
});

test(
  'a block gives back each record byte for byte, ' +
    'multi-byte characters included, and nothing for a position it lacks',
  (t) => {
    const records = [
      record(7, { path: '/ä/€/😀', note: 'naïve' }),
      record(12, { empty: '' }),
      record(9_007_199_254_740, { big: 'position' }),
    ];
    const block = decompressBlock(compressBlockSync(records));
    t.is(block.size, 3);
    for (const r of records) t.deepEqual(block.get(r.position), r);
    t.is(block.get(8), undefined);
    t.is(block.get(0), undefined);
    t.deepEqual(block.records(), records);
  },
);

test('records written out of position order are found all the same', (t) => {
  const records = [record(30, { a: 1 }), record(10, { b: 2 }), record(20, { c: 3 })];
  const block = decompressBlock(compressBlockSync(records));
  for (const r of records) t.deepEqual(block.get(r.position), r);
  t.deepEqual(
    block.records().map((r) => r.position),
    [10, 20, 30],
  );
});

test('a malformed block is an error, not a wrong record', (t) => {
  t.throws(() => decompressBlock(deflateRawSync('not a block')), { message: /malformed/ });
  t.throws(() => decompressBlock(deflateRawSync('12\u0000only\u0000three')).get(12), { message: /malformed/ });
});

test(
  'the cache keeps blocks up to its budget, ' +
    'the least recently used leaving first, and reads a block once while it is kept',
  (t) => {
    const bodies = new Map([1, 2, 3].map((id) => [id, compressBlockSync([record(id, { filler: 'x'.repeat(400) })])]));
    const loads: number[] = [];
    const load = (id: number) => {
      loads.push(id);
      return bodies.get(id);
    };
    const cache = new BlockCache(1200);
    t.is(cache.get(1, load)?.get(1)?.id, 'id-1');
    t.is(cache.get(2, load)?.get(2)?.id, 'id-2');
    t.is(cache.get(1, load)?.get(1)?.id, 'id-1');
    t.deepEqual(loads, [1, 2], 'a kept block is not read again');
    cache.get(3, load);
    t.is(cache.get(1, load)?.get(1)?.id, 'id-1');
    t.deepEqual(loads, [1, 2, 3], 'block 1, used last, is still kept');
    cache.get(2, load);
    t.deepEqual(loads, [1, 2, 3, 2], 'block 2, the least recently used, had left');
    t.is(cache.get(4, load), undefined, 'a block that is gone');
  },
);
