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
