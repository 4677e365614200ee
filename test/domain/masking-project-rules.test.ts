import test from 'ava';
import fc from 'fast-check';
import {
  MASK,
  SCAN_BUDGET,
  eventMasker,
  isSecretKey,
  maskObject,
  normaliseKey,
  scanLimitChars,
  type ProjectMasking,
} from '../../src/domain/masking.ts';
import { compileMaskingRules } from '../../src/domain/masking-rules.ts';
import { COMMON_KEYS, SECRET_KEYS, cardRun, walk } from '../helpers/masking.ts';

/** A project's own masking rules on top of the built-in ones: its secret names, normalised like
 *  the built-in ones, and its value patterns, which mask a whole string, read at most the event's
 *  budget of characters and run in linear time; examples, then properties. The built-in rules
 *  alone are in masking.test.ts. */

// ---- a project's own rules ----

const project = (keys: string[], patterns: string[]): ProjectMasking => compileMaskingRules({ keys, patterns })!;

test("a project's keys are normalised like the built-in ones and add to them", (t) => {
  const mask = eventMasker(project(['Session-Id', 'internal_ref'], []));
  t.deepEqual(
    mask({
      session_id: 's1',
      SESSIONID: 's2',
      'internal-ref': 'r',
      InternalRef: { deep: 1 },
      password: 'p',
      other: 'o',
    }),
    {
      session_id: MASK,
      SESSIONID: MASK,
      'internal-ref': MASK,
      InternalRef: MASK,
      password: MASK,
      other: 'o',
    },
  );
  t.deepEqual(eventMasker(null)({ session_id: 's1' }), { session_id: 's1' }, 'not for other projects');
});

test('a value pattern masks the whole of any string it matches, at any depth and in arrays, never keys', (t) => {
  const mask = eventMasker(project([], ['sk_live_[0-9a-zA-Z]{8,}', '(?i)^bearer ']));
  t.deepEqual(
    mask({
      note: 'key sk_live_abcdEFGH1234 in text',
      auth: 'Bearer abc',
      later: 'not bearer here',
      items: [{ v: 'sk_live_12345678' }, 'ok', 42],
      sk_live_abcdefghijk: 'the key is not a value',
      card: '4111 1111 1111 1111',
    }),
    {
      note: MASK,
      auth: MASK,
      later: 'not bearer here',
      items: [{ v: MASK }, 'ok', 42],
      sk_live_abcdefghijk: 'the key is not a value',
      card: '**** **** **** 1111',
    },
  );
});

test('patterns see a string as sent and as stored: card digits starred either way', (t) => {
  const raw = eventMasker(project([], ['card 4111']));
  t.is(raw({ v: 'card 4111111111111111' }).v, MASK, 'matches the digits as sent');
  const stored = eventMasker(project([], ['\\*{12}1111']));
  t.is(stored({ v: 'card 4111111111111111' }).v, MASK, 'matches the string as it would be stored');
  t.is(stored({ v: 'card 5500000000000004' }).v, 'card ************0004');
});

test('no project rules: eventMasker(null) is maskObject itself; rules with nothing in them compile to null', (t) => {
  t.is(eventMasker(null), maskObject);
  t.is(compileMaskingRules({ keys: [], patterns: [] }), null);
});

test(
  "value patterns read at most the event's budget of characters; " +
    'a string past it is masked whole, MASK costs nothing',
  (t) => {
    const rules = project([], ['sk_live_[0-9a-z]{8}']);
    const limit = scanLimitChars(rules.values!.cost);
    t.is(limit, Math.floor(SCAN_BUDGET / rules.values!.cost));
    const chunk = 'a'.repeat(Math.floor(limit * 0.3));
    // Three chunks fit in the budget, the fourth does not, a short one after it still does.
    const mask = eventMasker(rules);
    t.deepEqual(mask({ a: chunk, b: chunk, c: [chunk, chunk, 'short', MASK] }), {
      a: chunk,
      b: chunk,
      c: [chunk, MASK, 'short', MASK],
    });
    // The budget is the event's: shared by its bodies, fresh for the next event.
    const event = eventMasker(rules);
    t.deepEqual(event({ a: chunk, b: chunk }), { a: chunk, b: chunk });
    t.deepEqual(event({ c: chunk, d: chunk }), { c: chunk, d: MASK });
    t.deepEqual(eventMasker(rules)({ c: chunk, d: chunk }), { c: chunk, d: chunk });
    // Secrets under keys are not read, so they cost nothing.
    t.deepEqual(eventMasker(rules)({ password: chunk.repeat(10), a: chunk }), { password: MASK, a: chunk });
  },
);

test('ReDoS: patterns that backtrack catastrophically in a JavaScript RegExp run in linear time here', (t) => {
  const mask = eventMasker(project([], ['^(a+)+$', '(x|xx)+y', '^(\\w+\\s?)+\\.$']));
  // A RegExp takes longer than the age of the universe on any of these (from about 40 characters).
  const evil = { a: `${'a'.repeat(1000)}!`, x: 'x'.repeat(1000), w: `${'word '.repeat(200)}!` };
  const started = performance.now();
  t.deepEqual(mask(evil), evil);
  t.true(performance.now() - started < 2000, `${Math.round(performance.now() - started)} ms`);
});

test('ReDoS: even a pattern whose automaton explodes costs an event little, whatever the event', (t) => {
  const rules = project([], ['\\b(?:[a-z]|.){0,20}x.{0,20}\\b', '.{0,25}1.{0,25}y']);
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return String.fromCharCode(33 + (seed % 90));
  };
  const strings = Array.from(
    { length: 4000 },
    () => `${Array.from({ length: 254 }, random).join('').replace(/[xy]/g, 'w')}x0`,
  );
  const started = performance.now();
  const masked = eventMasker(rules)({ strings }) as { strings: string[] };
  const ms = performance.now() - started;
  t.true(
    masked.strings.every((s) => s === MASK),
    'matched or past the budget: masked either way',
  );
  t.true(ms < 2000, `${Math.round(ms)} ms for 1 MB of adversarial strings (unbounded, this is tens of seconds)`);
});

// ---- properties with a project's rules ----

const PROJECT_KEYS = ['Session-Id', 'internal_ref'];
const PROJECT_PATTERNS = ['sk_live_[0-9a-z]{4,}', '(?i)secret-[0-9]+', '[*]{4} 1111'];
const rules = project(PROJECT_KEYS, PROJECT_PATTERNS);
const patternsMatch = (s: string) => rules.values!.test(s);

/** A secret name spelt any way: any case, any `-` and `_` put between its letters. */
const spelt = fc
  .tuple(
    fc.constantFrom(...SECRET_KEYS, ...COMMON_KEYS, ...PROJECT_KEYS),
    fc.infiniteStream(fc.constantFrom('', '', '', '-', '_')),
    fc.infiniteStream(fc.boolean()),
  )
  .map(([name, seps, upper]) =>
    [...name.replace(/[-_]/g, '')]
      .map((ch) => {
        const c = upper.next().value ? ch.toUpperCase() : ch;
        return `${c}${seps.next().value}`;
      })
      .join(''),
  );

const withRulesValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.constantFrom('sk_live_ab12cd', 'my Secret-42 here', '4111 1111 1111 1111', 'plain', MASK),
    fc.stringMatching(/^[0-9 -]{10,25}$/),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc.dictionary(fc.oneof(fc.string(), spelt, fc.constantFrom('__proto__', 'note')), tie('value'), {
    maxKeys: 5,
  }),
})).object;

const isProjectSecret = (key: string) => isSecretKey(key) || rules.keys.has(normaliseKey(key));

test('property: any spelling of a secret name is masked', (t) => {
  fc.assert(
    fc.property(spelt, fc.string(), (key, value) => {
      t.is(eventMasker(rules)({ [key]: value })[key], MASK);
      if (!PROJECT_KEYS.map(normaliseKey).includes(normaliseKey(key))) t.true(isSecretKey(key), key);
    }),
  );
});

test("property: with a project's rules no secret value, no card run and no string a pattern matches survives", (t) => {
  fc.assert(
    fc.property(withRulesValue, (input) => {
      let ok = true;
      walk(eventMasker(rules)(input), (key, value) => {
        if (key !== null && isProjectSecret(key) && value !== MASK) ok = false;
        if (typeof value === 'string' && (cardRun.test(value) || (value !== MASK && patternsMatch(value)))) ok = false;
      });
      return ok;
    }),
  );
  t.pass();
});

test("property: with a project's rules masking is idempotent and never mutates its input", (t) => {
  fc.assert(
    fc.property(withRulesValue, (input) => {
      const before = JSON.stringify(input);
      const once = eventMasker(rules)(input);
      t.is(JSON.stringify(input), before);
      t.deepEqual(eventMasker(rules)(once), once);
    }),
  );
});

test(
  "property: with a project's rules, " +
    'what the built-in rules mask is masked alike, and only strings change further',
  (t) => {
    fc.assert(
      fc.property(withRulesValue, (input) => {
        const builtIn = maskObject(input);
        const own = eventMasker(rules)(input);
        const compare = (a: unknown, b: unknown, key: string | null): void => {
          if (key !== null && isProjectSecret(key)) t.is(b, MASK);
          else if (typeof a === 'string') t.true(b === a || b === MASK);
          else if (Array.isArray(a)) for (const [i, item] of a.entries()) compare(item, (b as unknown[])[i], null);
          else if (a !== null && typeof a === 'object') {
            t.deepEqual(Object.keys(b as object), Object.keys(a));
            for (const k of Object.keys(a))
              compare((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], k);
          } else t.is(b, a);
        };
        compare(builtIn, own, null);
      }),
    );
  },
);
