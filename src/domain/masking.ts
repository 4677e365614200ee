/** SPEC 2.3: masking applied to bodies before anything is stored. Pure; never mutates its input.
 *
 *  - A value under a secret key (password, secret, pwd, token, api_key, access_token,
 *    refresh_token, authorization; case-insensitive, `-` read as `_`) becomes MASK, whatever it was.
 *  - In every string, each run of 13–19 digits (single spaces or dashes allowed between digits)
 *    keeps its last four digits; the other digits become `*`, separators stay.
 *  - Objects are rebuilt with own data properties only, so a `__proto__` or `constructor` key
 *    stays plain data and never reaches a prototype. */

export const MASK = '********';

const SECRET_KEYS = new Set([
  'password', 'secret', 'pwd',
  'token', 'api_key', 'access_token', 'refresh_token', 'authorization',
]);

export const isSecretKey = (key: string): boolean => SECRET_KEYS.has(key.toLowerCase().replaceAll('-', '_'));

const CARD_RUN = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;
const THIRTEEN_DIGITS = /[0-9](?:[ -]?[0-9]){12}/;

export const maskCardNumbers = (s: string): string =>
  !THIRTEEN_DIGITS.test(s) ? s : s.replace(CARD_RUN, (run) => {
    let digitsLeft = run.replace(/[^0-9]/g, '').length;
    let out = '';
    for (const ch of run) {
      if (ch >= '0' && ch <= '9') {
        out += digitsLeft > 4 ? '*' : ch;
        digitsLeft -= 1;
      } else out += ch;
    }
    return out;
  });

/** Sets an own data property; plain assignment to `__proto__` would change the prototype. */
const define = (o: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
};

export const maskValue = (value: unknown): unknown => {
  if (typeof value === 'string') return maskCardNumbers(value);
  if (Array.isArray(value)) return value.map(maskValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      define(out, key, isSecretKey(key) ? MASK : maskValue((value as Record<string, unknown>)[key]));
    }
    return out;
  }
  return value;
};

export const maskObject = (o: Record<string, unknown>): Record<string, unknown> =>
  maskValue(o) as Record<string, unknown>;
