/** watchlog's built-in masking rules (SPEC 2.3, widened): what every project gets, applied by the
 *  server before anything is stored and by the SDKs before anything is sent (defence in depth:
 *  the server masks anyway). Pure, dependency-free, and never mutates its input.
 *
 *  - A value under a secret key becomes MASK, whatever it was. Keys are compared normalised:
 *    lower case, without `-` and `_` (`Client-Secret`, `CLIENTSECRET` and `client_secret` are one
 *    name). The secret names are SPEC 2.3's eight and the common ones below.
 *  - In every string, each run of 13–19 digits (single spaces or dashes allowed between digits)
 *    keeps its last four digits; the other digits become `*`, separators stay.
 *  - Objects are rebuilt with own data properties only, so a `__proto__` or `constructor` key
 *    stays plain data and never reaches a prototype. */

export const MASK = '********';

/** SPEC 2.3 rules 2 and 3. */
export const SPEC_SECRET_KEYS = [
  'password',
  'secret',
  'pwd',
  'token',
  'api_key',
  'access_token',
  'refresh_token',
  'authorization',
] as const;

/** Other names that commonly hold credentials or card and identity data. */
export const COMMON_SECRET_KEYS = [
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
] as const;

const SEPARATORS = /[-_]/g;

/** A key as secret names are compared: lower case, without `-` and `_`. */
export const normaliseKey = (key: string): string => {
  const lower = key.toLowerCase();
  return lower.includes('-') || lower.includes('_') ? lower.replace(SEPARATORS, '') : lower;
};

/** Every built-in secret name, normalised. */
export const SECRET_KEYS: ReadonlySet<string> = new Set([...SPEC_SECRET_KEYS, ...COMMON_SECRET_KEYS].map(normaliseKey));

export const isSecretKey = (key: string): boolean => SECRET_KEYS.has(normaliseKey(key));

const CARD_RUN = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;
const THIRTEEN_DIGITS = /[0-9](?:[ -]?[0-9]){12}/;

export const maskCardNumbers = (s: string): string =>
  !THIRTEEN_DIGITS.test(s)
    ? s
    : s.replace(CARD_RUN, (run) => {
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
export const define = (o: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
};

/** The built-in rules only: what every project gets. */
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
