/** What the tests of the built-in masking rules and of a project's own rules share: the secret
 *  names as SPEC and issue 11 spell them, what a card-number run is, and a walk over a masked value. */

/** SPEC 2.3's eight, spelt as SPEC spells them. */
export const SECRET_KEYS = [
  'password',
  'secret',
  'pwd',
  'token',
  'api_key',
  'access_token',
  'refresh_token',
  'authorization',
];
/** The common names of issue 11. */
export const COMMON_KEYS = [
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

/** A 13-19 digit run as the masking rule defines it (longer runs are not card numbers). */
export const cardRun = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/;

/** Values under secret keys, and every string, anywhere in a value. */
export const walk = (
  v: unknown,
  visit: (key: string | null, value: unknown) => void,
  key: string | null = null,
): void => {
  visit(key, v);
  if (Array.isArray(v)) for (const item of v) walk(item, visit, null);
  else if (v !== null && typeof v === 'object')
    for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k], visit, k);
};
