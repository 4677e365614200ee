import test from 'ava';
import fc from 'fast-check';
import { MASK, isSecretKey, maskCardNumbers, maskObject, maskValue } from '../src/index.ts';

test('SPEC 2.3: secret keys become eight asterisks, whatever their case and separators, at any depth', (t) => {
  const masked = maskObject({
    password: 'p',
    Secret: { nested: 1 },
    PWD: 7,
    token: null,
    'API-KEY': 'k',
    access_token: 'a',
    refresh_token: 'r',
    Authorization: 'Bearer x',
    user: { Client_Secret: 's', list: [{ cookie: 'c' }] },
    name: 'kept',
  });
  t.deepEqual(masked, {
    password: MASK,
    Secret: MASK,
    PWD: MASK,
    token: MASK,
    'API-KEY': MASK,
    access_token: MASK,
    refresh_token: MASK,
    Authorization: MASK,
    user: { Client_Secret: MASK, list: [{ cookie: MASK }] },
    name: 'kept',
  });
  t.true(isSecretKey('X_Api_Key'));
  t.false(isSecretKey('passport'));
});

test('card numbers keep their last four digits, separators stay; shorter and longer runs are left', (t) => {
  t.is(maskCardNumbers('card 4111 1111 1111 1111 ok'), 'card **** **** **** 1111 ok');
  t.is(maskCardNumbers('4111-1111-1111-1111'), '****-****-****-1111');
  t.is(maskCardNumbers('123456789012'), '123456789012');
  t.is(maskCardNumbers('12345678901234567890'), '12345678901234567890');
  t.deepEqual(maskValue(['4111111111111111', 5]), ['************1111', 5]);
});

test('never mutates its input; __proto__ stays plain data', (t) => {
  const input = JSON.parse(
    '{"__proto__": {"polluted": true}, "password": "x", "a": {"b": "4111111111111111"}}',
  ) as Record<string, unknown>;
  const copy = structuredClone(input);
  const masked = maskObject(input);
  t.deepEqual(input, copy);
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is(Object.getPrototypeOf(masked), Object.prototype);
  t.deepEqual(Object.keys(masked), ['__proto__', 'password', 'a']);
});

test('masking twice is masking once', (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      const once = maskValue(value);
      t.deepEqual(maskValue(once), once);
    }),
  );
});
