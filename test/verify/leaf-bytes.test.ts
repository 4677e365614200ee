import test from 'ava';
import fc from 'fast-check';
import { leafBytes, leafHash } from '../../src/domain/merkle.ts';
import { leafText } from '../../src/verify/canonical.ts';
import { LEAF, PROBLEM, checkBatch } from '../../src/verify/leaf.ts';
import { leafBytesOfLine } from '../../src/verify/leaf-bytes.ts';
import { buildLog, makeRecord, streamLine } from './fixtures.ts';

/** The fast path reads a line's leaf bytes from its bytes; whatever it reads must be what the
 *  slow way reads (JSON.parse, then canonical.ts), for any line at all, and it must read the
 *  server's lines. */

/** What the slow way reads from a line: its leaf index and leaf bytes, or null when it is not a
 *  record the fast path may accept (a missing one, one without a leaf_hash or index). */
const slowly = (line: Buffer): { index: number; bytes: Buffer } | null => {
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return null;
  if (
    !Number.isSafeInteger(r.leaf_index) ||
    (r.leaf_index as number) < 0 ||
    typeof r.leaf_hash !== 'string' ||
    'missing' in r
  )
    return null;
  return { index: r.leaf_index as number, bytes: Buffer.from(`\0${leafText(r)}`) };
};

/** The fast path reads nothing, or what the slow way reads. */
const agrees = (line: Buffer): boolean => {
  const fast = leafBytesOfLine(line);
  if (fast === null) return true;
  const slow = slowly(line);
  return slow !== null && slow.index === fast.index && slow.bytes.equals(fast.bytes);
};

const LOG = buildLog(60);

test("the server's lines are read by their bytes, and give the server's leaf bytes", (t) => {
  LOG.lines.forEach((line, i) => {
    const fast = leafBytesOfLine(Buffer.from(line));
    t.deepEqual(fast, { index: i, bytes: Buffer.concat([Buffer.from([0]), leafBytes(LOG.records[i]!)]) }, `line ${i}`);
  });
});

/** Strings with what JSON.stringify escapes, non-ASCII text (2, 3 and 4 bytes in UTF-8) and lone
 *  surrogates. */
const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', '\\', '/', '\b', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', 'é', '€', '😀'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  ),
});
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    text,
    fc.array(tie('value')),
    tie('object'),
  ),
  object: fc.dictionary(
    fc.oneof(fc.stringMatching(/^[a-z_A-Z0-9]{1,6}$/), fc.constantFrom('10', '9', '__proto__', '\r', 'é', 'a"b', '')),
    tie('value'),
  ),
})).value;
const record = fc.record({
  leaf_index: fc.nat(),
  position: fc.string(),
  stream: text,
  revision: fc.nat(),
  type: text,
  id: text,
  data: json,
  metadata: json,
  leaf_hash: fc.base64String({ minLength: 44, maxLength: 44 }),
});

test("property: a record written as JSON.stringify writes it is read the slow way's way, or not at all", (t) => {
  t.notThrows(() =>
    fc.assert(
      fc.property(record, (r) => agrees(Buffer.from(JSON.stringify(r)))),
      { numRuns: 2000 },
    ),
  );
  // And it is read, when its keys are ASCII without escapes and it has no lone surrogate.
  const plainText = fc.string({ unit: 'binary' });
  const plainJson = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      plainText,
      fc.array(tie('value')),
      tie('object'),
    ),
    object: fc.dictionary(fc.stringMatching(/^[ -!#-[\]-~]{0,6}$/), tie('value')),
  })).value;
  const plainRecord = fc.record({
    leaf_index: fc.nat(),
    position: fc.string(),
    stream: plainText,
    revision: fc.nat(),
    type: plainText,
    id: plainText,
    data: plainJson,
    metadata: plainJson,
    leaf_hash: fc.base64String({ minLength: 44, maxLength: 44 }),
  });
  t.notThrows(() =>
    fc.assert(
      fc.property(plainRecord, (r) => {
        const line = Buffer.from(JSON.stringify(r));
        return leafBytesOfLine(line) !== null && agrees(line);
      }),
      { numRuns: 1000 },
    ),
  );
});

/** JSON.stringify's output, written otherwise in places, as JSON allows: spaces, other escapes,
 *  other forms of the same number, keys twice. */
const otherwise = (value: unknown, choices: readonly number[]): string => {
  let n = 0;
  const choose = () => choices[n++ % choices.length]!;
  const space = () => (choose() < 3 ? ' ' : '');
  const string = (s: string) =>
    [...s]
      .map((c) => {
        const k = choose();
        if (k < 2) return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
        if (k < 3) return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0').toUpperCase()}`;
        if (k < 4 && c === '/') return '\\/';
        return JSON.stringify(c).slice(1, -1);
      })
      .join('');
  const write = (v: unknown): string => {
    if (typeof v === 'string') return `"${string(v)}"`;
    if (typeof v === 'number') {
      const k = choose();
      const plain = JSON.stringify(v);
      if (k < 2 && Number.isInteger(v)) return `${plain}.0`;
      if (k < 4) return `${plain}${plain.includes('e') ? '' : 'e0'}`;
      if (k < 5 && Object.is(v, 0)) return '-0';
      return plain;
    }
    if (Array.isArray(v)) return `[${space()}${v.map((item) => write(item)).join(`${space()},${space()}`)}${space()}]`;
    if (v !== null && typeof v === 'object') {
      const members = Object.entries(v).map(([key, item]) => {
        const k = choose();
        const again = k < 2 ? `"${string(key)}":${write(choose())},` : '';
        const member = `${again}"${string(key)}"${space()}:${space()}${write(item)}`;
        // The repeat is written after the member: the choices are taken in the order of the text.
        return k >= 2 && k < 3 ? `${member},"${string(key)}":${write(item)}` : member;
      });
      return `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
    }
    return JSON.stringify(v);
  };
  return write(value);
};

test(
  'property: ' + "a record written otherwise than JSON.stringify writes it is read the slow way's way, or not at all",
  (t) => {
    // Choices of 0 to 4 write a token otherwise: one in 40 or one in 400 of them.
    for (const rarely of [40, 400]) {
      t.notThrows(() =>
        fc.assert(
          fc.property(record, fc.array(fc.nat(rarely), { minLength: 1, maxLength: 64 }), (r, choices) =>
            agrees(Buffer.from(otherwise(r, choices))),
          ),
          { numRuns: 2000 },
        ),
      );
    }
  },
);

/** Bytes that change how a line reads. */
const edit = fc.record({
  at: fc.nat(),
  remove: fc.nat(2),
  insert: fc.array(
    fc.constantFrom(
      ...Buffer.from('"\\{}[],: \t0-.eE+u/aZ'),
      0x00,
      0x1f,
      0x7f,
      0x80,
      0xbf,
      0xc0,
      0xc3,
      0xe2,
      0xed,
      0xf0,
      0xf4,
      0xf5,
      0xff,
    ),
    { maxLength: 3 },
  ),
});

test("property: the server's lines with bytes changed anywhere are read the slow way's way, or not at all", (t) => {
  t.notThrows(() =>
    fc.assert(
      fc.property(fc.nat(LOG.lines.length - 1), fc.array(edit, { minLength: 1, maxLength: 4 }), (i, edits) => {
        let line = Buffer.from(LOG.lines[i]!);
        for (const { at, remove, insert } of edits) {
          const p = at % (line.length + 1);
          line = Buffer.concat([line.subarray(0, p), Buffer.from(insert), line.subarray(p + remove)]);
        }
        return agrees(line);
      }),
      { numRuns: 5000 },
    ),
  );
});

/** checkBatch of one line: its code and hash. */
const checkLine = (line: string | Buffer) => {
  const result = checkBatch(Buffer.from(line), false);
  return { code: result.codes[0], hash: Buffer.from(result.hashes.subarray(0, 32)), problem: result.problem };
};

test('what the fast path does not read, the slow way does: the same record, or an edited one', (t) => {
  const r = makeRecord(5);
  const leaf = leafHash(leafBytes(r));
  const line = streamLine(5, r, leaf);
  /** The line with the leaf hash of `changed` instead. */
  const hashOf = (variant: string, changed: typeof r) =>
    variant.replace(/"leaf_hash":"[^"]*"/, `"leaf_hash":"${leafHash(leafBytes(changed)).toString('base64')}"`);
  const data = r.data as { request_body: object };
  const same = [
    ['spaces', line.replace('"data":{', '"data": {')],
    ['an escaped slash', line.replace('/api/orders/5', '\\/api\\/orders\\/5')],
    ['an escaped letter', line.replace('"checkout-api"', '"\\u0063heckout-api"')],
    ['a fraction for an integer', line.replace('"revision":5', '"revision":5.0')],
    ['an exponent', line.replace('"revision":5', '"revision":5e0')],
    ['a leaf index with an exponent', line.replace('"leaf_index":5', '"leaf_index":0.5e1')],
    ["a key twice, the last the record's", line.replace('"data":{', '"data":{"method":"GET",')],
    ["a leaf field twice, the last the record's", line.replace('"stream":', '"stream":"other","stream":')],
    ['missing: false', line.replace('"position"', '"missing":false,"position"')],
    [
      'a key twice in an object in order',
      hashOf(line.replace('"Beta":{}', '"Beta":{"k":1,"k":2}'), {
        ...r,
        data: { ...data, request_body: { ...data.request_body, Beta: { k: 2 } } },
      }),
    ],
    ['-0', hashOf(line.replace('"revision":5', '"revision":-0'), { ...r, revision: 0 })],
    [
      '\\u0008 for \\b',
      hashOf(line.replace('"checkout-api"', '"\\u0008checkout-api"'), {
        ...r,
        data: { ...data, service_name: '\bcheckout-api' },
      }),
    ],
    [
      'a key out of ASCII',
      hashOf(line.replace('"data":{', '"data":{"\u00e9":1,'), { ...r, data: { '\u00e9': 1, ...data } }),
    ],
  ] as const;
  for (const [what, variant] of same) {
    t.is(leafBytesOfLine(Buffer.from(variant)), null, what);
    const checked = checkLine(variant);
    t.is(checked.code, LEAF, what);
    t.deepEqual(checked.hash, Buffer.from(/"leaf_hash":"([^"]*)"/.exec(variant)![1]!, 'base64'), what);
  }
  const edited = [
    ["a key twice, the last not the record's", line.replace('"method":"POST"', '"method":"POST","method":"GET"')],
    [
      "a leaf field twice, the last not the record's",
      line.replace(/"stream":("[^"]*")/, '"stream":$1,"stream":"other"'),
    ],
    [
      'a byte that is not UTF-8 in a string',
      Buffer.concat([
        Buffer.from(line.slice(0, line.indexOf('checkout-api'))),
        Buffer.from([0xff]),
        Buffer.from(line.slice(line.indexOf('checkout-api') + 1)),
      ]),
    ],
  ] as const;
  for (const [what, variant] of edited) {
    t.is(leafBytesOfLine(Buffer.from(variant)), null, what);
    t.like(checkLine(variant), { code: PROBLEM, problem: { kind: 'edited' } }, what);
  }
});

test('lines the fast path leaves to the slow way: deep nesting, and lines that are not records', (t) => {
  const r = { ...makeRecord(3), data: JSON.parse(`${'['.repeat(100)}1${']'.repeat(100)}`) as unknown };
  const line = streamLine(3, r, leafHash(leafBytes(r)));
  t.is(leafBytesOfLine(Buffer.from(line)), null);
  t.is(checkLine(line).code, LEAF);
  for (const notARecord of [
    '{}',
    '[]',
    '{"leaf_index":1}',
    '{"leaf_index":-1,"leaf_hash":""}',
    '{"leaf_index":1,"leaf_hash":""} ',
    'null',
    '{',
  ]) {
    t.is(leafBytesOfLine(Buffer.from(notARecord)), null, notARecord);
    t.is(checkLine(notARecord).code, PROBLEM, notARecord);
  }
});

test('UTF-8 is read only when well formed, numbers only as JSON.stringify writes them', (t) => {
  const line = (value: Buffer | string, index = '7') =>
    Buffer.concat([
      Buffer.from(`{"leaf_index":${index},"stream":"s","revision":1,"type":"T","id":"i","data":{"v":`),
      Buffer.from(value),
      Buffer.from('},"metadata":{},"leaf_hash":"x"}'),
    ]);
  const quoted = (bytes: number[]) => Buffer.from([0x22, ...bytes, 0x22]);
  const wellFormed = [
    [0xc2, 0x80],
    [0xdf, 0xbf],
    [0xe0, 0xa0, 0x80],
    [0xed, 0x9f, 0xbf],
    [0xee, 0x80, 0x80],
    [0xef, 0xbf, 0xbf],
    [0xf0, 0x90, 0x80, 0x80],
    [0xf4, 0x8f, 0xbf, 0xbf],
  ];
  for (const bytes of wellFormed) {
    t.not(leafBytesOfLine(line(quoted(bytes))), null, Buffer.from(bytes).toString('hex'));
    t.true(agrees(line(quoted(bytes))));
  }
  // Overlong, surrogates, past U+10FFFF, bytes that never begin a character, cut short.
  const illFormed = [
    [0xc0, 0xaf],
    [0xc1, 0xbf],
    [0xe0, 0x80, 0xaf],
    [0xe0, 0x9f, 0xbf],
    [0xed, 0xa0, 0x80],
    [0xed, 0xbf, 0xbf],
    [0xf0, 0x8f, 0xbf, 0xbf],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf5, 0x80, 0x80, 0x80],
    [0x80],
    [0xbf],
    [0xff],
    [0xe2, 0x82],
    [0xf0, 0x90, 0x80],
  ];
  for (const bytes of illFormed) t.is(leafBytesOfLine(line(quoted(bytes))), null, Buffer.from(bytes).toString('hex'));
  for (const number of [
    '0',
    '-1',
    '123456789012345',
    '-12345678901234',
    '1234567890123456',
    '0.5',
    '1e+21',
    '1.5e-7',
    '5e-324',
    '123456789012345680000',
  ]) {
    t.not(leafBytesOfLine(line(number)), null, number);
    t.true(agrees(line(number)), number);
  }
  for (const number of [
    '-0',
    '1.0',
    '1e21',
    '1E+21',
    '0.50',
    '12345678901234567',
    '9007199254740993',
    '1e400',
    '01',
    '.5',
    '+1',
    '1.',
    '-',
  ]) {
    t.is(leafBytesOfLine(line(number)), null, number);
    t.true(agrees(line(number)), number);
  }
  t.deepEqual(leafBytesOfLine(line('1', '123456789012345'))?.index, 123456789012345);
  for (const index of ['1234567890123456', '9007199254740993', '1.0', '-1', '"1"'])
    t.is(leafBytesOfLine(line('1', index)), null, index);
});
