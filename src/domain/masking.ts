/** SPEC 2.3, widened by issue 11: masking applied to bodies before anything is stored. Pure;
 *  never mutates its input.
 *
 *  - A value under a secret key becomes MASK, whatever it was. Keys are compared normalised:
 *    lower case, without `-` and `_` (`Client-Secret`, `CLIENTSECRET` and `client_secret` are one
 *    name). The secret names are SPEC 2.3's eight and the common ones below, plus a project's own.
 *  - In every string, each run of 13–19 digits (single spaces or dashes allowed between digits)
 *    keeps its last four digits; the other digits become `*`, separators stay.
 *  - With a project's value patterns, a string that one of them matches becomes MASK.
 *  - Objects are rebuilt with own data properties only, so a `__proto__` or `constructor` key
 *    stays plain data and never reaches a prototype. */

export const MASK = '********';

/** SPEC 2.3 rules 2 and 3. */
export const SPEC_SECRET_KEYS = ['password', 'secret', 'pwd', 'token', 'api_key', 'access_token', 'refresh_token', 'authorization'] as const;

/** Other names that commonly hold credentials or card and identity data. */
export const COMMON_SECRET_KEYS = [
  'apikey', 'api-key', 'x-api-key', 'client_secret', 'private_key', 'passwd',
  'cookie', 'set-cookie', 'cvv', 'cvc', 'pin', 'ssn',
] as const;

const SEPARATORS = /[-_]/g;

/** A key as secret names are compared: lower case, without `-` and `_`. */
export const normaliseKey = (key: string): string => {
  const lower = key.toLowerCase();
  return lower.includes('-') || lower.includes('_') ? lower.replace(SEPARATORS, '') : lower;
};

const SECRET_KEYS: ReadonlySet<string> = new Set([...SPEC_SECRET_KEYS, ...COMMON_SECRET_KEYS].map(normaliseKey));

export const isSecretKey = (key: string): boolean => SECRET_KEYS.has(normaliseKey(key));

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

/** A project's own rules, compiled (see masking-rules.ts): extra key names, normalised, and its
 *  value patterns as one matcher that runs in time linear in the text it reads. */
export interface ProjectMasking {
  readonly keys: ReadonlySet<string>;
  readonly values: {
    test(s: string): boolean;
    /** The work per character read, in the matcher's instructions; bounds its worst case. */
    readonly cost: number;
  } | null;
}

/** How much work value patterns may do for one event, in characters read × the matcher's cost
 *  (its instructions). re2js is linear in both, but its constant is large when a pattern's
 *  automaton explodes (`\b(?:[a-z]|.){0,20}x.{0,20}\b` on short random strings: 100–300 ns per
 *  character and instruction, as it builds a new state at nearly every character; unbounded, a
 *  1 MB event of such strings took 14 s). Within this budget that event takes 50–160 ms
 *  (`npm run bench masking`), whatever the patterns: the order of what the built-in rules already
 *  cost on a 1 MiB body of card-like digits (190 ms). Realistic patterns cost a few nanoseconds
 *  per character once their automaton is warm. */
export const SCAN_BUDGET = 512 * 1024;

/** How many characters of an event's strings a project's value patterns read. */
export const scanLimitChars = (cost: number): number => Math.floor(SCAN_BUDGET / Math.max(1, cost));

/** One event's masking with a project's rules: the built-in rules, the project's keys, and its
 *  value patterns within the event's SCAN_BUDGET. A string past the budget is not read but
 *  masked whole: what could not be checked is not stored. MASK itself costs nothing, so masking
 *  again changes nothing. */
class EventMasking {
  private budget = SCAN_BUDGET;

  constructor(private readonly project: ProjectMasking) {}

  value(value: unknown): unknown {
    if (typeof value === 'string') return this.string(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const name = normaliseKey(key);
        define(out, key, SECRET_KEYS.has(name) || this.project.keys.has(name) ? MASK : this.value((value as Record<string, unknown>)[key]));
      }
      return out;
    }
    return value;
  }

  private string(s: string): string {
    const carded = maskCardNumbers(s);
    const values = this.project.values;
    if (values === null || s.length === 0 || s === MASK) return carded;
    // The patterns see the string as sent and, when card digits were starred, as it will be
    // stored, so a string they pass is stored as one they would pass again.
    const cost = s.length * values.cost * (carded === s ? 1 : 2);
    if (cost > this.budget) return MASK;
    this.budget -= cost;
    return values.test(s) || (carded !== s && values.test(carded)) ? MASK : carded;
  }
}

/** Masks the bodies of one event: with no project rules exactly `maskObject`; with them, every
 *  body of the event shares one scan budget. */
export const eventMasker = (project: ProjectMasking | null): ((o: Record<string, unknown>) => Record<string, unknown>) => {
  if (project === null) return maskObject;
  const masking = new EventMasking(project);
  return (o) => masking.value(o) as Record<string, unknown>;
};
