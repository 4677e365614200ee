import test from 'ava';
import fc from 'fast-check';
import { comparePositions } from '../../src/log/event-log.ts';

/** Positions as both logs write them: a bigint's decimal text (KurrentDB's commit positions pass
 *  2^53), or null for "before the first". */
const position = fc.option(
  fc.bigInt({ min: 0n, max: 2n ** 64n }).map((n) => n.toString(10)),
  { nil: null },
);
const byValue = (a: string | null, b: string | null) => {
  const x = a === null ? -1n : BigInt(a);
  const y = b === null ? -1n : BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

test('positions compare as the integers they write, across lengths and past 2^53', (t) => {
  fc.assert(fc.property(position, position, (a, b) => comparePositions(a, b) === byValue(a, b)));
  t.is(comparePositions('9', '10'), -1);
  t.is(comparePositions('10', '9'), 1);
  t.is(comparePositions('18446744073709551616', '18446744073709551615'), 1);
  t.is(comparePositions(null, '0'), -1);
  t.is(comparePositions('0', null), 1);
  t.is(comparePositions(null, null), 0);
  t.is(comparePositions('42', '42'), 0);
});
