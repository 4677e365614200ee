import * as t from 'io-ts';

/** Codecs shared by payloads and events. Each keeps its plain TypeScript type (string, number)
 *  so callers are not burdened with brands; the rule lives in `validate`. */

export const boundedString = (name: string, min: number, max: number): t.Type<string, string, unknown> =>
  new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && u.length >= min && u.length <= max,
    (u, c) => (typeof u === 'string' && u.length >= min && u.length <= max ? t.success(u) : t.failure(u, c)),
    t.identity,
  );

export const intRange = (name: string, min: number, max: number): t.Type<number, number, unknown> =>
  new t.Type<number, number, unknown>(
    name,
    (u): u is number => Number.isInteger(u) && (u as number) >= min && (u as number) <= max,
    (u, c) => (Number.isInteger(u) && (u as number) >= min && (u as number) <= max ? t.success(u as number) : t.failure(u, c)),
    t.identity,
  );

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);

export const Uuid = new t.Type<string, string, unknown>(
  'uuid',
  (u): u is string => typeof u === 'string' && UUID_RE.test(u),
  (u, c) => (typeof u === 'string' && UUID_RE.test(u) ? t.success(u.toLowerCase()) : t.failure(u, c)),
  t.identity,
);

/** An ISO 8601 date-time (or date) that `Date.parse` understands; normalised to UTC with milliseconds. */
export const IsoTimestamp = new t.Type<string, string, unknown>(
  'ISO 8601 timestamp',
  (u): u is string => typeof u === 'string' && !Number.isNaN(Date.parse(u)),
  (u, c) => {
    if (typeof u !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(u)) return t.failure(u, c);
    const ms = Date.parse(u);
    return Number.isNaN(ms) ? t.failure(u, c) : t.success(new Date(ms).toISOString());
  },
  t.identity,
);

/** A plain JSON object (not an array, not null). */
export const JsonObject = new t.Type<Record<string, unknown>, Record<string, unknown>, unknown>(
  'object',
  (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u, c) => (typeof u === 'object' && u !== null && !Array.isArray(u) ? t.success(u as Record<string, unknown>) : t.failure(u, c)),
  t.identity,
);

export const Email = new t.Type<string, string, unknown>(
  'e-mail address',
  (u): u is string => typeof u === 'string' && /^[^\s@]+@[^\s@]+$/.test(u) && u.length <= 320,
  (u, c) => (typeof u === 'string' && /^[^\s@]+@[^\s@]+$/.test(u) && u.length <= 320 ? t.success(u.trim().toLowerCase()) : t.failure(u, c)),
  t.identity,
);

export const Role = t.keyof({ admin: null, member: null, auditor: null }, 'admin | member | auditor');
export type Role = t.TypeOf<typeof Role>;

/** An optional ISO 8601 timestamp (already decoded) as epoch milliseconds. */
export const epochMsOf = (iso: string | undefined): number | undefined => (iso === undefined ? undefined : Date.parse(iso));
