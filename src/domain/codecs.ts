import * as t from 'io-ts';
import { withSchema } from './json-schema.ts';

/** Codecs shared by payloads and events. Each keeps its plain TypeScript type (string, number)
 *  so callers are not burdened with brands; the rule lives in `validate`. A codec's name is its
 *  rule in words ("an integer from 100 to 599"): validation messages say "must be <name>". */

const lengthRule = (min: number, max: number) =>
  min > 0 ? `a string of ${min} to ${max} characters` : `a string of at most ${max} characters`;

export const boundedString = (min: number, max: number): t.Type<string, string, unknown> =>
  withSchema(
    new t.Type<string, string, unknown>(
      lengthRule(min, max),
      (u): u is string => typeof u === 'string' && u.length >= min && u.length <= max,
      (u, c) => (typeof u === 'string' && u.length >= min && u.length <= max ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', ...(min > 0 ? { minLength: min } : {}), maxLength: max },
  );

/** Who keeps a monitor, channel, status page or maintenance window: `watchlog apply` writes
 *  `config-file` (with a fingerprint of the secrets it set, which answers never show), so
 *  `apply --prune` deletes only what the file made, never what was made by hand. */
export const ManagedBy = boundedString(1, 200);

/** "an integer from 1 to 100", or "an integer of at least 0" when there is no real maximum. */
export const integerRule = (min: number, max: number): string =>
  max >= Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;

/** The JSON Schema of an integer from `min` to `max` (no maximum when there is no real one). */
export const integerSchema = (min: number, max: number) => ({
  type: 'integer' as const,
  minimum: min,
  ...(max >= Number.MAX_SAFE_INTEGER ? {} : { maximum: max }),
});

export const intRange = (min: number, max: number): t.Type<number, number, unknown> =>
  withSchema(
    new t.Type<number, number, unknown>(
      integerRule(min, max),
      (u): u is number => Number.isInteger(u) && (u as number) >= min && (u as number) <= max,
      (u, c) =>
        Number.isInteger(u) && (u as number) >= min && (u as number) <= max ? t.success(u as number) : t.failure(u, c),
      t.identity,
    ),
    integerSchema(min, max),
  );

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);

export const Uuid = withSchema(
  new t.Type<string, string, unknown>(
    'a UUID',
    (u): u is string => typeof u === 'string' && UUID_RE.test(u),
    (u, c) => (typeof u === 'string' && UUID_RE.test(u) ? t.success(u.toLowerCase()) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', format: 'uuid' },
);

/** An ISO 8601 date-time (or date) that `Date.parse` understands; normalised to UTC with milliseconds.
 *  A date alone is taken too: its schema is a pattern, since `format: date-time` would refuse it. */
export const IsoTimestamp = withSchema(
  new t.Type<string, string, unknown>(
    'an ISO 8601 date or date-time',
    (u): u is string => typeof u === 'string' && !Number.isNaN(Date.parse(u)),
    (u, c) => {
      if (typeof u !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(u)) return t.failure(u, c);
      const ms = Date.parse(u);
      return Number.isNaN(ms) ? t.failure(u, c) : t.success(new Date(ms).toISOString());
    },
    t.identity,
  ),
  { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}', examples: ['2026-09-01', '2026-09-01T10:00:00Z'] },
);

const isJsonObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u);

/** A codec of plain JSON objects (not arrays, not null), named for what the object stands for. */
export const jsonObjectCodec = (name: string) =>
  new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
    name,
    isJsonObject,
    (u, c) => (isJsonObject(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

/** A plain JSON object (not an array, not null). */
export const JsonObject = withSchema(jsonObjectCodec('a JSON object'), { type: 'object' });

export const Email = withSchema(
  new t.Type<string, string, unknown>(
    'an e-mail address',
    (u): u is string => typeof u === 'string' && /^[^\s@]+@[^\s@]+$/.test(u) && u.length <= 320,
    (u, c) =>
      typeof u === 'string' && /^[^\s@]+@[^\s@]+$/.test(u) && u.length <= 320
        ? t.success(u.trim().toLowerCase())
        : t.failure(u, c),
    t.identity,
  ),
  { type: 'string', pattern: '^[^\\s@]+@[^\\s@]+$', maxLength: 320 },
);

export const Role = t.keyof({ admin: null, member: null, auditor: null }, 'admin | member | auditor');
export type Role = t.TypeOf<typeof Role>;

/** An optional ISO 8601 timestamp (already decoded) as epoch milliseconds. */
export const epochMsOf = (iso: string | undefined): number | undefined =>
  iso === undefined ? undefined : Date.parse(iso);

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

type Described = { _tag?: string; type?: t.Mixed; types?: t.Mixed[]; props?: t.Props };

/** The keys an object codec defines, through exact, closed and intersection codecs; null for a
 *  codec without a fixed set of keys. */
export const keysOf = (codec: t.Mixed): string[] | null => {
  const c = codec as unknown as Described;
  switch (c._tag) {
    case 'InterfaceType':
    case 'PartialType':
    case 'StrictType':
      return Object.keys(c.props ?? {});
    case 'ExactType':
    case 'ReadonlyType':
    case 'ClosedType':
      return c.type ? keysOf(c.type) : null;
    case 'IntersectionType':
    case 'UnionType': {
      const keys = (c.types ?? []).map(keysOf);
      return keys.some((k) => k === null) ? null : [...new Set(keys.flat() as string[])];
    }
    default:
      return null;
  }
};

/** The keys `u` may carry under `codec`: as `keysOf`, but a union contributes only the variants
 *  `u` matches (all of them when it matches none), so `{ kind: "a", n: 2 }` is refused its `n`
 *  when only variant "b" defines it. */
const keysFor = (codec: t.Mixed, u: unknown): string[] => {
  const c = codec as unknown as Described;
  switch (c._tag) {
    case 'ExactType':
    case 'ReadonlyType':
    case 'ClosedType':
      return c.type ? keysFor(c.type, u) : [];
    case 'IntersectionType':
      return (c.types ?? []).flatMap((m) => keysFor(m, u));
    case 'UnionType': {
      const variants = c.types ?? [];
      const matching = variants.filter((v) => v.validate(u, [])._tag === 'Right');
      return (matching.length > 0 ? matching : variants).flatMap((v) => keysFor(v, u));
    }
    default:
      return keysOf(codec) ?? [];
  }
};

const normalised = (s: string) => s.toLowerCase().replace(/[-_\s.]/g, '');

/** Levenshtein distance, for "did you mean" hints on short names. */
const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
};

/** The known name `key` was probably meant to be (`projectid`, `projectId` → `project_id`;
 *  `interval` → `interval_seconds`; `enviroment` → `environment`). */
export const closestName = (key: string, known: readonly string[]): string | undefined => {
  const k = normalised(key);
  const prefixOf = k.length >= 4 ? known.filter((name) => normalised(name).startsWith(k)) : [];
  return (
    known.find((name) => normalised(name) === k) ??
    (prefixOf.length === 1 ? prefixOf[0] : undefined) ??
    known
      .map((name) => [name, distance(k, normalised(name))] as const)
      .filter(([, d]) => d <= 2 && d < k.length / 2)
      .sort((a, b) => a[1] - b[1])[0]?.[0]
  );
};

/** An object codec that refuses keys it does not define (each reported under its own path, with
 *  a hint when it looks like a misspelt known one), where `t.exact` would silently drop them: a
 *  misspelt filter or field is a 400, not a request that quietly does something else. */
export interface ClosedType<C extends t.Mixed> extends t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown> {
  readonly _tag: 'ClosedType';
  readonly type: C;
}

export const closed = <C extends t.Mixed>(
  codec: C,
  noun: 'field' | 'parameter' = 'field',
  name = codec.name,
): ClosedType<C> => {
  const known = keysOf(codec);
  if (known === null) throw new Error(`closed(): ${codec.name} has no fixed set of keys`);
  const type = new t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown>(
    name,
    codec.is,
    (u, c) => {
      const result = codec.validate(u, c);
      if (!isRecord(u)) return result;
      const allowed = keysFor(codec, u);
      const extra = Object.keys(u).filter((key) => !allowed.includes(key));
      if (extra.length === 0) return result;
      const errors: t.Errors = extra.map((key) => {
        const hint = closestName(key, known);
        return {
          value: u[key],
          context: [...c, { key, type: t.unknown, actual: u[key] }],
          message: `is not a known ${noun}${hint === undefined ? '' : ` (did you mean ${hint}?)`}`,
        };
      });
      return t.failures(result._tag === 'Left' ? [...errors, ...result.left] : errors);
    },
    codec.encode,
  );
  return Object.assign(type, { _tag: 'ClosedType' as const, type: codec });
};

/** One of several object codecs, chosen by the string in `key` (`type: "webhook"`): a missing or
 *  unknown tag is one error on `key` naming the choices, and a known tag's errors are its
 *  variant's alone (a plain union would report every variant's). */
export const discriminated = <V extends Record<string, t.Mixed>>(key: string, variants: V, name: string) => {
  const tags = t.keyof(Object.fromEntries(Object.keys(variants).map((tag) => [tag, null])) as Record<string, null>);
  const all = Object.values(variants);
  const type = new t.Type<t.TypeOf<V[keyof V]>, t.OutputOf<V[keyof V]>, unknown>(
    name,
    (u): u is t.TypeOf<V[keyof V]> => all.some((v) => v.is(u)),
    (u, c) => {
      if (!isRecord(u)) return t.failure(u, c, 'must be a JSON object');
      const tag = u[key];
      const variant = typeof tag === 'string' && Object.hasOwn(variants, tag) ? variants[tag] : undefined;
      if (!variant) return t.failure(tag, [...c, { key, type: tags, actual: tag }]);
      // The variant stands where this codec stood, so its errors read as if it had been asked directly.
      const last = c[c.length - 1]!;
      return variant.validate(u, [...c.slice(0, -1), { ...last, type: variant }]) as t.Validation<t.TypeOf<V[keyof V]>>;
    },
    (a) => {
      const variant = variants[(a as Record<string, string>)[key]!];
      return variant ? (variant.encode(a) as t.OutputOf<V[keyof V]>) : (a as t.OutputOf<V[keyof V]>);
    },
  );
  return Object.assign(type, { _tag: 'DiscriminatedType' as const, key, variants });
};

/** A string matching `re` (anchored by the caller), named by its rule in words. */
export const matching = (name: string, re: RegExp, schema: Record<string, unknown> = {}) =>
  withSchema(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string' && re.test(u),
      (u, c) => (typeof u === 'string' && re.test(u) ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', pattern: re.source, ...schema },
  );

/** A list of `min` to `max` items of `item`; each item's faults are reported under its index. */
export const boundedArray = <C extends t.Mixed>(item: C, min: number, max: number, name: string) =>
  withSchema(
    new t.Type<Array<t.TypeOf<C>>, Array<t.OutputOf<C>>, unknown>(
      name,
      (u): u is Array<t.TypeOf<C>> => Array.isArray(u) && u.length >= min && u.length <= max && u.every(item.is),
      (u, c) => {
        if (!Array.isArray(u) || u.length < min || u.length > max) return t.failure(u, c);
        return t.array(item).validate(u, c);
      },
      (a) => a.map((x) => item.encode(x)),
    ),
    { ...(min > 0 ? { minItems: min } : {}), maxItems: max },
    t.array(item),
  );
