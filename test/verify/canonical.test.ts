import test from 'ava';
import fc from 'fast-check';
import { leafBytes } from '../../src/domain/merkle.ts';
import { canonicalJson, leafText } from '../../src/verify/canonical.ts';
import { makeRecord } from './fixtures.ts';

/** RFC 8785's own examples, and agreement with the server's leaf bytes. */

test('keys are sorted by UTF-16 code units, as RFC 8785 §3.2.3 sorts its example', (t) => {
  const input =
    '{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One",' +
    '"\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"}';
  // The emoji (a surrogate pair, 0xD83D…) sorts before U+FB33 by code units, after it by code points.
  t.is(
    canonicalJson(JSON.parse(input)),
    '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  );
});

test('RFC 8785 §3.2.4: the example object, its numbers, string escapes and literals', (t) => {
  const input =
    '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001], ' +
    '"string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}';
  t.is(
    canonicalJson(JSON.parse(input)),
    '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
      '"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  );
});

test('numbers are written as RFC 8785 Appendix B writes them, from their IEEE 754 bits', (t) => {
  const cases: Array<[string, string]> = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [bits, expected] of cases) {
    const n = Buffer.from(bits, 'hex').readDoubleBE(0);
    t.is(canonicalJson({ n }), `{"n":${expected}}`, bits);
  }
});

test('integer-like keys sort as strings too, though objects enumerate them first', (t) => {
  t.is(canonicalJson({ b: 1, 10: 2, 9: 3 }), '{"10":2,"9":3,"b":1}');
  t.is(
    canonicalJson({ z: [{ 2: 'two', 10: 'ten', a: { 1: true, '\r': false } }] }),
    '{"z":[{"10":"ten","2":"two","a":{"\\r":false,"1":true}}]}',
  );
  t.is(canonicalJson(JSON.parse('{"b":1,"__proto__":{"y":1,"x":2},"a":3}')), '{"__proto__":{"x":2,"y":1},"a":3,"b":1}');
});

test('the canonical text does not depend on the order keys were written in, and parses back to the value', (t) => {
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        const shuffled = JSON.parse(
          JSON.stringify(value, (_k, v: unknown) =>
            v !== null && typeof v === 'object' && !Array.isArray(v)
              ? Object.fromEntries(Object.entries(v).reverse())
              : v,
          ),
        ) as unknown;
        return canonicalJson(shuffled) === text && canonicalJson(JSON.parse(text)) === text;
      }),
      { numRuns: 500 },
    ),
  );
});

test("a record's leaf text is the server's leaf bytes, whatever the record", (t) => {
  for (let i = 0; i < 50; i += 1) {
    const r = makeRecord(i);
    t.is(leafText(JSON.parse(JSON.stringify(r)) as typeof r), leafBytes(r).toString('utf8'), `record ${i}`);
  }
  fc.assert(
    fc.property(
      fc.record({
        data: fc.jsonValue(),
        metadata: fc.jsonValue(),
        id: fc.string(),
        stream: fc.string(),
        revision: fc.nat(),
        type: fc.string(),
      }),
      (r) => {
        // Integer-like keys are left out: see the failing test below.
        const noIndexKeys = JSON.parse(
          JSON.stringify(r, (_k, v: unknown) =>
            v !== null && typeof v === 'object' && !Array.isArray(v)
              ? Object.fromEntries(Object.entries(v).filter(([k]) => !/^(0|[1-9][0-9]*)$/.test(k)))
              : v,
          ),
        ) as typeof r;
        return leafText(noIndexKeys) === leafBytes(noIndexKeys).toString('utf8');
      },
    ),
    { numRuns: 300 },
  );
});

// Known disagreement: src/domain/canonical-json.ts sorts through a copied object, and objects
// enumerate integer-like keys first, so the server writes {"9":…,"10":…} and {"1":…,"\r":…},
// which RFC 8785 orders "10" < "9" and "\r" < "1". A record with such keys in its data would be
// reported as edited. This test passes (and ava then asks to drop `.failing`) once the server
// writes RFC 8785.
test("the server's leaf bytes follow RFC 8785 for integer-like keys too", (t) => {
  const r = {
    id: 'i',
    stream: 's',
    revision: 0,
    type: 'T',
    data: { 10: 'ten', 9: 'nine', '\r': 'cr', 1: 'one' },
    metadata: {},
  };
  t.is(leafBytes(r).toString('utf8'), leafText(r));
});
