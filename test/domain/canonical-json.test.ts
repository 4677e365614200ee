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
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    const reversed = JSON.parse(JSON.stringify(value), (_k, v: unknown) =>
      (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)) as unknown;
    const text = canonicalJson(value);
    t.is(canonicalJson(reversed), text);
    t.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)));
  }));
});

test('integer-like keys are ordered as strings, as RFC 8785 says ("10" before "9"), at any depth', (t) => {
  t.is(canonicalJson({ 9: 'a', 10: 'b', a: 1 }), '{"10":"b","9":"a","a":1}');
  t.is(canonicalJson({ x: [{ 2: true, 1: false }] }), '{"x":[{"1":false,"2":true}]}');
  // RFC 8785 §3.2.3's example, keys written by their UTF-16 code units.
  t.is(canonicalJson({ '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', 1: 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' }),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}');
});
