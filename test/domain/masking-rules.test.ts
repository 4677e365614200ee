import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { describeErrors } from '../../src/domain/decode-errors.ts';
import {
  MASKING_LIMITS,
  MaskingRulesBody,
  compileMaskingRules,
  maskingRulesProblems,
  withoutRepeats,
} from '../../src/domain/masking-rules.ts';

const problems = (keys: string[], patterns: string[]) => maskingRulesProblems({ keys, patterns });

test('the body: both lists, bounded, strings only; every faulty entry and unknown field named', (t) => {
  t.true(isRight(MaskingRulesBody.decode({ keys: ['session_id'], patterns: ['sk_live_[0-9a-z]+'] })));
  t.true(isRight(MaskingRulesBody.decode({ keys: [], patterns: [] })));
  const paths = (body: unknown) => {
    const decoded = MaskingRulesBody.decode(body);
    return isLeft(decoded)
      ? describeErrors(decoded.left)
          .map((d) => d.path)
          .sort()
      : [];
  };
  const rows: Array<[string, unknown, string[]]> = [
    ['both missing', {}, ['keys', 'patterns']],
    ['not arrays', { keys: 'a', patterns: { 0: 'x' } }, ['keys', 'patterns']],
    ['an empty key and a number', { keys: ['ok', '', 3], patterns: [] }, ['keys.1', 'keys.2']],
    ['a key too long', { keys: ['k'.repeat(MASKING_LIMITS.keyLength + 1)], patterns: [] }, ['keys.0']],
    ['a pattern too long', { keys: [], patterns: ['a', 'p'.repeat(MASKING_LIMITS.patternLength + 1)] }, ['patterns.1']],
    [
      'too many keys',
      { keys: Array.from({ length: MASKING_LIMITS.keys + 1 }, (_, i) => `k${i}`), patterns: [] },
      ['keys'],
    ],
    [
      'too many patterns',
      { keys: [], patterns: Array.from({ length: MASKING_LIMITS.patterns + 1 }, (_, i) => `p${i}`) },
      ['patterns'],
    ],
    ['an unknown field', { keys: [], patterns: [], key: ['x'] }, ['key']],
    ['null', null, ['(root)']],
    ['an array', [], ['(root)']],
  ];
  for (const [name, body, expected] of rows) t.deepEqual(paths(body), expected, name);
  t.true(
    isRight(
      MaskingRulesBody.decode({
        keys: Array.from({ length: MASKING_LIMITS.keys }, (_, i) => `k${i}`.padEnd(MASKING_LIMITS.keyLength, 'x')),
        patterns: Array.from({ length: MASKING_LIMITS.patterns }, (_, i) =>
          `p${i}`.padEnd(MASKING_LIMITS.patternLength, 'x'),
        ),
      }),
    ),
    'the limits themselves are allowed',
  );
});

test(
  'patterns: RE2 syntax that compiles, matches no empty string and stays small; ' + 'each refusal names its entry',
  (t) => {
    t.deepEqual(
      problems(
        ['x-session'],
        ['sk_live_[0-9a-zA-Z]{24,99}', '(?i)^bearer\\s+\\S+', '\\b[0-9]{3}-[0-9]{2}-[0-9]{4}\\b', 'AKIA[0-9A-Z]{16}'],
      ),
      [],
    );
    const rows: Array<[string, string, RegExp]> = [
      ['unbalanced', '(a', /^not a valid RE2 pattern: .*missing closing \)/],
      ['a backreference', '(a)\\1', /^not a valid RE2 pattern: .*invalid escape/],
      ['a lookahead', 'a(?=b)', /^not a valid RE2 pattern: .*(?:unsupported|invalid)/],
      ['a lookbehind', '(?<=a)b', /^not a valid RE2 pattern/],
      ['a repeat over 1000', 'a{1001}', /^not a valid RE2 pattern: .*invalid repeat count/],
      ['matches anything', '.*', /^matches the empty string, so it would mask every value$/],
      ['optional only', 'x?', /^matches the empty string/],
      ['an empty alternative', 'a|', /^matches the empty string/],
      ['too big', '[a-z]{300}', /^compiles to \d+ instructions, more than 200: use smaller repetition counts$/],
      ['nested repeats', '(?:(?:ab){10}c){10}', /^compiles to \d+ instructions, more than 200/],
    ];
    for (const [name, pattern, message] of rows) {
      const found = problems([], ['fine', pattern]);
      t.is(found.length, 1, name);
      t.is(found[0]!.path, 'patterns.1', name);
      t.regex(found[0]!.message, message, name);
    }
    // Each fits alone; together they are too much.
    const big = Array.from({ length: 4 }, (_, i) => `[a-z]{${150 + i}}`);
    t.deepEqual(problems([], big.slice(0, 1)), []);
    const together = problems([], big);
    t.deepEqual(
      together.map((p) => p.path),
      ['patterns'],
    );
    t.regex(together[0]!.message, /^compile to \d+ instructions together, more than 500$/);
  },
);

test('keys: one that is only - and _ is refused; several faults are all named', (t) => {
  t.deepEqual(problems(['-_-', 'ok', '__'], ['(b', 'fine']), [
    { path: 'keys.0', message: 'must have a character other than - and _' },
    { path: 'keys.2', message: 'must have a character other than - and _' },
    { path: 'patterns.0', message: 'not a valid RE2 pattern: error parsing regexp: missing closing ): `(b`' },
  ]);
});

test('repeats are dropped, first kept: keys that normalise alike, identical patterns', (t) => {
  t.deepEqual(
    withoutRepeats({ keys: ['Session-Id', 'session_id', 'SESSIONID', 'other'], patterns: ['a+b', 'A+B', 'a+b'] }),
    {
      keys: ['Session-Id', 'other'],
      patterns: ['a+b', 'A+B'],
    },
  );
});

test('compiled rules: normalised keys, one matcher for all patterns with its cost; nothing for no rules', (t) => {
  t.is(compileMaskingRules({ keys: [], patterns: [] }), null);
  const keysOnly = compileMaskingRules({ keys: ['Session-Id'], patterns: [] })!;
  t.deepEqual([...keysOnly.keys], ['sessionid']);
  t.is(keysOnly.values, null);
  const both = compileMaskingRules({ keys: [], patterns: ['(?i)^bearer ', 'sk_live_[0-9]+', 'q|z'] })!;
  for (const s of ['Bearer x', 'key sk_live_123', 'xxqxx']) t.true(both.values!.test(s), s);
  for (const s of ['x Bearer', 'sk_live_', 'ccc']) t.false(both.values!.test(s), s);
  t.true(both.values!.cost > 0);
  t.true(both.values!.cost <= MASKING_LIMITS.totalInstructions);
});
