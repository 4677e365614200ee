import test from 'ava';
import fc from 'fast-check';
import { MASK, isSecretKey, maskCardNumbers, maskObject, maskValue } from '../../src/domain/masking.ts';

const SECRET_KEYS = ['password', 'secret', 'pwd', 'token', 'api_key', 'access_token', 'refresh_token', 'authorization'];

test('card runs of 13-19 digits keep their last four digits and their separators', (t) => {
  t.is(maskCardNumbers('4111111111111111'), '************1111');
  t.is(maskCardNumbers('4111 1111 1111 1111'), '**** **** **** 1111');
  t.is(maskCardNumbers('4111-1111-1111-1111'), '****-****-****-1111');
  t.is(maskCardNumbers('1234567890123'), '*********0123');
  t.is(maskCardNumbers('1234567890123456789'), '***************6789');
  t.is(maskCardNumbers('paid with 5500 0000 0000 0004 and 4111111111111111.'), 'paid with **** **** **** 0004 and ************1111.');
});

test('runs shorter than 13 or longer than 19 digits are left alone', (t) => {
  t.is(maskCardNumbers('123456789012'), '123456789012');
  t.is(maskCardNumbers('12345678901234567890'), '12345678901234567890');
  t.is(maskCardNumbers('order 42, phone 555-0100'), 'order 42, phone 555-0100');
  t.is(maskCardNumbers('4111  1111 1111 1111'), '4111  1111 1111 1111', 'a double space breaks the run');
});

test('secret keys are matched case-insensitively, with - read as _', (t) => {
  for (const key of SECRET_KEYS) {
    t.true(isSecretKey(key), key);
    t.true(isSecretKey(key.toUpperCase()), key);
  }
  t.true(isSecretKey('Api-Key'));
  t.true(isSecretKey('Access-Token'));
  t.false(isSecretKey('password_hint'));
  t.false(isSecretKey('tokens'));
  t.false(isSecretKey('user'));
});

test('a secret key masks its whole value, whatever its type, at any depth and inside arrays', (t) => {
  const masked = maskObject({
    password: { nested: 'x' }, token: ['a', 'b'], secret: 42, pwd: null, user: 'ann',
    items: [{ Authorization: 'Bearer x', ok: true }, 'plain', ['4111111111111111']],
    deep: { deeper: { refresh_token: 'r', card: '4111 1111 1111 1111' } },
  });
  t.deepEqual(masked, {
    password: MASK, token: MASK, secret: MASK, pwd: MASK, user: 'ann',
    items: [{ Authorization: MASK, ok: true }, 'plain', ['************1111']],
    deep: { deeper: { refresh_token: MASK, card: '**** **** **** 1111' } },
  });
});

test('__proto__ and constructor keys stay own data properties and pollute nothing', (t) => {
  const input = JSON.parse('{"__proto__":{"polluted":true,"password":"p"},"constructor":{"prototype":{"x":1}}}') as Record<string, unknown>;
  const out = maskObject(input);
  t.true(Object.hasOwn(out, '__proto__'));
  t.true(Object.hasOwn(out, 'constructor'));
  t.is(Object.getPrototypeOf(out), Object.prototype);
  t.deepEqual(JSON.parse(JSON.stringify(out)), JSON.parse('{"__proto__":{"polluted":true,"password":"********"},"constructor":{"prototype":{"x":1}}}'));
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
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom(...SECRET_KEYS, 'Password', 'API-KEY', '__proto__', 'constructor')), tie('value'), { maxKeys: 5 }),
})).object;

/** A 13-19 digit run as the masking rule defines it (longer runs are not card numbers). */
const cardRun = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/;

/** Values under secret keys, and every string, anywhere in a value. */
const walk = (v: unknown, visit: (key: string | null, value: unknown) => void, key: string | null = null): void => {
  visit(key, v);
  if (Array.isArray(v)) v.forEach((item) => walk(item, visit, null));
  else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], visit, k);
};

test('property: masking never mutates its input', (t) => {
  fc.assert(fc.property(jsonValue, (input) => {
    const before = JSON.stringify(input);
    maskObject(input);
    return JSON.stringify(input) === before;
  }));
  t.pass();
});

test('property: masking is idempotent', (t) => {
  fc.assert(fc.property(jsonValue, (input) => {
    const once = maskObject(input);
    t.deepEqual(maskObject(once), once);
  }));
});

test('property: no card-number run and no value under a secret key survives', (t) => {
  fc.assert(fc.property(jsonValue, (input) => {
    let ok = true;
    walk(maskObject(input), (key, value) => {
      if (key !== null && isSecretKey(key) && value !== MASK) ok = false;
      if (typeof value === 'string' && cardRun.test(value)) ok = false;
    });
    return ok;
  }));
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
  fc.assert(fc.property(jsonValue, (input) => {
    t.deepEqual(shape(maskObject(input)), shape(input));
  }));
});

test('property: a card number anywhere in a string keeps only its last four digits', (t) => {
  fc.assert(fc.property(
    fc.stringMatching(/^[0-9]{13,19}$/), fc.constantFrom('', ' ', '-'), fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }),
    (digits, sep, before, after) => {
      const card = digits.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
      const text = `${before.replace(/[0-9 |-]/g, 'a')}|${card}|${after.replace(/[0-9 |-]/g, 'a')}`;
      const masked = maskValue(text) as string;
      const visible = masked.split('|')[1]!;
      t.is(visible.replace(/[^0-9]/g, ''), digits.slice(-4));
      t.is(visible.length, card.length);
    },
  ));
});
