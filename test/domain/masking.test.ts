import test from 'ava';
import fc from 'fast-check';
import {
  COMMON_SECRET_KEYS,
  MASK,
  SPEC_SECRET_KEYS,
  isSecretKey,
  maskCardNumbers,
  maskObject,
  maskValue,
  normaliseKey,
} from '../../src/domain/masking.ts';
import { COMMON_KEYS, SECRET_KEYS, cardRun, walk } from '../helpers/masking.ts';

/** The built-in masking rules, the same for every project: the secret names (SPEC 2.3's eight and
 *  the common ones, in any spelling) mask their whole value, card numbers keep their last four
 *  digits; examples, then properties over any JSON value. A project's own rules are in
 *  masking-project-rules.test.ts. */

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
