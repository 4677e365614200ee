import test from 'ava';
import fc from 'fast-check';
import { canonicalJson } from '../../src/domain/canonical-json.ts';

test('keys sorted at every depth, no whitespace, arrays kept in order', (t) => {
  t.is(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  t.is(canonicalJson('x'), '"x"');
  t.is(canonicalJson(undefined), 'null');
  t.is(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
});

test('an own __proto__ key is data, kept and sorted', (t) => {
  const value = JSON.parse('{"z": 1, "__proto__": {"polluted": true}}') as unknown;
  t.is(canonicalJson(value), '{"__proto__":{"polluted":true},"z":1}');
  t.is(({} as Record<string, unknown>).polluted, undefined);
});

test('equal JSON values give the same text whatever their key order; it parses back to them', (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const reversed = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
        v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
      ) as unknown;
      const text = canonicalJson(value);
      t.is(canonicalJson(reversed), text);
      t.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
    }),
  );
});

test('integer-like keys are ordered as strings, as RFC 8785 says ("10" before "9"), at any depth', (t) => {
  t.is(canonicalJson({ 9: 'a', 10: 'b', a: 1 }), '{"10":"b","9":"a","a":1}');
  t.is(canonicalJson({ x: [{ 2: true, 1: false }] }), '{"x":[{"1":false,"2":true}]}');
  // RFC 8785 §3.2.3's example, keys written by their UTF-16 code units.
  t.is(
    canonicalJson({
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      1: 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    }),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test('values with toJSON are written as JSON.stringify writes them, in and out of key order', (t) => {
  const when = new Date(Date.UTC(2026, 10, 25));
  t.is(canonicalJson({ b: when, a: 1 }), '{"a":1,"b":"2026-11-25T00:00:00.000Z"}');
  t.is(
    canonicalJson({ z: { toJSON: () => ({ y: 1, x: 2 }) }, a: [when] }),
    '{"a":["2026-11-25T00:00:00.000Z"],"z":{"x":2,"y":1}}',
  );
  t.is(canonicalJson([{ b: 1, a: undefined, c: () => 1 }, undefined]), '[{"b":1},null]');
});

test('an object out of order holding one with integer-like keys, and the reverse, are written whole', (t) => {
  t.is(canonicalJson({ z: { 10: 1, 9: 2 }, a: { y: 1, x: 2 } }), '{"a":{"x":2,"y":1},"z":{"10":1,"9":2}}');
  t.is(canonicalJson({ 10: { y: 1, x: 2 }, 9: [{ b: 1, a: 2 }] }), '{"10":{"x":2,"y":1},"9":[{"a":2,"b":1}]}');
  // The same value twice: the layouts cached by the first call give the same text.
  t.is(canonicalJson({ z: { 10: 1, 9: 2 }, a: { y: 1, x: 2 } }), '{"a":{"x":2,"y":1},"z":{"10":1,"9":2}}');
});
