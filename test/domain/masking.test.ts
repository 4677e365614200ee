import test from 'ava';
import fc from 'fast-check';
import {
  COMMON_SECRET_KEYS,
  MASK,
  SCAN_BUDGET,
  SPEC_SECRET_KEYS,
  eventMasker,
  isSecretKey,
  maskCardNumbers,
  maskObject,
  maskValue,
  normaliseKey,
  scanLimitChars,
  type ProjectMasking,
} from '../../src/domain/masking.ts';
import { compileMaskingRules } from '../../src/domain/masking-rules.ts';

/** SPEC 2.3's eight, spelt as SPEC spells them. */
const SECRET_KEYS = ['password', 'secret', 'pwd', 'token', 'api_key', 'access_token', 'refresh_token', 'authorization'];
/** The common names of issue 11. */
const COMMON_KEYS = [
  'apikey',
  'api-key',
  'x-api-key',
  'client_secret',
  'private_key',
  'passwd',
  'cookie',
  'set-cookie',
  'cvv',
  'cvc',
  'pin',
  'ssn',
];

const project = (keys: string[], patterns: string[]): ProjectMasking => compileMaskingRules({ keys, patterns })!;

test('card runs of 13-19 digits keep their last four digits and their separators', (t) => {
  t.is(maskCardNumbers('4111111111111111'), '************1111');
  t.is(maskCardNumbers('4111 1111 1111 1111'), '**** **** **** 1111');
  t.is(maskCardNumbers('4111-1111-1111-1111'), '****-****-****-1111');
  t.is(maskCardNumbers('1234567890123'), '*********0123');
  t.is(maskCardNumbers('1234567890123456789'), '***************6789');
  t.is(
    maskCardNumbers('paid with 5500 0000 0000 0004 and 4111111111111111.'),
    'paid with **** **** **** 0004 and ************1111.',
  );
});

test('runs shorter than 13 or longer than 19 digits are left alone', (t) => {
  t.is(maskCardNumbers('123456789012'), '123456789012');
  t.is(maskCardNumbers('12345678901234567890'), '12345678901234567890');
  t.is(maskCardNumbers('order 42, phone 555-0100'), 'order 42, phone 555-0100');
  t.is(maskCardNumbers('4111  1111 1111 1111'), '4111  1111 1111 1111', 'a double space breaks the run');
});

test("the built-in names are SPEC 2.3's eight and the twelve common ones", (t) => {
  t.deepEqual([...SPEC_SECRET_KEYS], SECRET_KEYS);
  t.deepEqual([...COMMON_SECRET_KEYS], COMMON_KEYS);
});

test('secret keys are matched case-insensitively, ignoring - and _', (t) => {
  for (const key of [...SECRET_KEYS, ...COMMON_KEYS]) {
    t.true(isSecretKey(key), key);
    t.true(isSecretKey(key.toUpperCase()), key);
    t.true(isSecretKey(key.replaceAll('_', '-')), key);
    t.true(isSecretKey(key.replace(/[-_]/g, '')), key);
  }
  // Each row: spellings of one name.
  const spellings: string[][] = [
    ['client_secret', 'Client-Secret', 'CLIENTSECRET', 'clientSecret', 'client-secret', 'CLIENT__SECRET'],
    ['x-api-key', 'X-API-Key', 'x_api_key', 'XApiKey', 'X-Api_Key'],
    ['api_key', 'Api-Key', 'apiKey', 'APIKEY', 'api-key'],
    ['set-cookie', 'Set-Cookie', 'SETCOOKIE', 'set_cookie'],
    ['access_token', 'Access-Token', 'accessToken'],
    ['private_key', 'PrivateKey', 'private-key'],
    ['ssn', 'SSN', 'S_S_N'],
    ['pin', 'PIN', 'Pin'],
    ['cvv', 'CVV'],
    ['cvc', 'Cvc'],
    ['passwd', 'PASSWD'],
  ];
  for (const names of spellings) {
    for (const name of names) t.true(isSecretKey(name), name);
    t.is(new Set(names.map(normaliseKey)).size, 1, names[0]);
  }
  for (const key of [
    'password_hint',
    'tokens',
    'user',
    'pinned',
    'cookies',
    'ssn_last4',
    'secretary',
    'api',
    'key',
    '',
    '-',
    'pwd2',
  ]) {
    t.false(isSecretKey(key), key);
  }
});

test('SPEC 2.3: the eight names get exactly eight asterisks, card numbers keep their last four digits', (t) => {
  t.is(MASK, '********');
  for (const key of SECRET_KEYS) {
    t.deepEqual(
      maskObject({ [key]: 'x'.repeat(40), card: '4111111111111111' }),
      { [key]: '********', card: '************1111' },
      key,
    );
  }
  t.deepEqual(
    maskObject({ Cookie: 'sid=abc', 'Set-Cookie': ['a=1', 'b=2'], CVV: 123, pin: '0000', ssn: '078-05-1120' }),
    { Cookie: MASK, 'Set-Cookie': MASK, CVV: MASK, pin: MASK, ssn: MASK },
  );
});

test('a secret key masks its whole value, whatever its type, at any depth and inside arrays', (t) => {
  const masked = maskObject({
    password: { nested: 'x' },
    token: ['a', 'b'],
    secret: 42,
    pwd: null,
    user: 'ann',
    items: [{ Authorization: 'Bearer x', ok: true }, 'plain', ['4111111111111111']],
    deep: { deeper: { refresh_token: 'r', card: '4111 1111 1111 1111' } },
  });
  t.deepEqual(masked, {
    password: MASK,
    token: MASK,
    secret: MASK,
    pwd: MASK,
    user: 'ann',
    items: [{ Authorization: MASK, ok: true }, 'plain', ['************1111']],
    deep: { deeper: { refresh_token: MASK, card: '**** **** **** 1111' } },
  });
});

test('__proto__ and constructor keys stay own data properties and pollute nothing', (t) => {
  const input = JSON.parse(
    '{"__proto__":{"polluted":true,"password":"p"},"constructor":{"prototype":{"x":1}}}',
  ) as Record<string, unknown>;
  const out = maskObject(input);
  t.true(Object.hasOwn(out, '__proto__'));
  t.true(Object.hasOwn(out, 'constructor'));
  t.is(Object.getPrototypeOf(out), Object.prototype);
  t.deepEqual(
    JSON.parse(JSON.stringify(out)),
    JSON.parse('{"__proto__":{"polluted":true,"password":"********"},"constructor":{"prototype":{"x":1}}}'),
  );
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is((out as { polluted?: unknown }).polluted, undefined);
});

// ---- properties ----

const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string(),
    fc.stringMatching(/^[0-9 -]{10,25}$/),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    tie('object'),
  ),
  object: fc.dictionary(
    fc.oneof(
      fc.string(),
      fc.constantFrom(
        ...SECRET_KEYS,
        ...COMMON_KEYS,
        'Password',
        'API-KEY',
        'Client-Secret',
        'SETCOOKIE',
        '__proto__',
        'constructor',
      ),
    ),
    tie('value'),
    { maxKeys: 5 },
  ),
})).object;

/** A 13-19 digit run as the masking rule defines it (longer runs are not card numbers). */
const cardRun = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/;

/** Values under secret keys, and every string, anywhere in a value. */
const walk = (v: unknown, visit: (key: string | null, value: unknown) => void, key: string | null = null): void => {
  visit(key, v);
  if (Array.isArray(v)) for (const item of v) walk(item, visit, null);
  else if (v !== null && typeof v === 'object')
    for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], visit, k);
};

test('property: masking never mutates its input', (t) => {
  fc.assert(
    fc.property(jsonValue, (input) => {
      const before = JSON.stringify(input);
      maskObject(input);
      return JSON.stringify(input) === before;
    }),
  );
  t.pass();
});

test('property: masking is idempotent', (t) => {
  fc.assert(
    fc.property(jsonValue, (input) => {
      const once = maskObject(input);
      t.deepEqual(maskObject(once), once);
    }),
  );
});

test('property: no card-number run and no value under a secret key survives', (t) => {
  fc.assert(
    fc.property(jsonValue, (input) => {
      let ok = true;
      walk(maskObject(input), (key, value) => {
        if (key !== null && isSecretKey(key) && value !== MASK) ok = false;
        if (typeof value === 'string' && cardRun.test(value)) ok = false;
      });
      return ok;
    }),
  );
  t.pass();
});

test('property: structure is preserved and non-string values outside secret keys are unchanged', (t) => {
  const shape = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(shape);
    if (v !== null && typeof v === 'object') {
      return Object.keys(v).map((k) => [k, isSecretKey(k) ? 'secret' : shape((v as Record<string, unknown>)[k])]);
    }
    return typeof v === 'string' ? `string:${v.length}` : v;
  };
  fc.assert(
    fc.property(jsonValue, (input) => {
      t.deepEqual(shape(maskObject(input)), shape(input));
    }),
  );
});

test('property: a card number anywhere in a string keeps only its last four digits', (t) => {
  fc.assert(
    fc.property(
      fc.stringMatching(/^[0-9]{13,19}$/),
      fc.constantFrom('', ' ', '-'),
      fc.string({ maxLength: 10 }),
      fc.string({ maxLength: 10 }),
      (digits, sep, before, after) => {
        const card = digits.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
        const text = `${before.replace(/[0-9 |-]/g, 'a')}|${card}|${after.replace(/[0-9 |-]/g, 'a')}`;
        const masked = maskValue(text) as string;
        const visible = masked.split('|')[1]!;
        t.is(visible.replace(/[^0-9]/g, ''), digits.slice(-4));
        t.is(visible.length, card.length);
      },
    ),
  );
});

// ---- a project's own rules ----

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
