import * as t from 'io-ts';
import { intRange } from './codecs.ts';
import { withSchema } from './json-schema.ts';

/** What an API key may be restricted to: the browser origins it may be used from, and its own
 *  ingest rate. A key used in a web page is public (anyone can read it from the page): these
 *  limit what someone who copies it can do with it. */

export const MAX_ALLOWED_ORIGINS = 20;
export const MAX_RATE_LIMIT = 10_000_000;

/** `scheme://host[:port]` as browsers send it in `Origin`: http or https, no path, no credentials,
 *  lower case (a default port is dropped, as the URL parser drops it). */
const originOf = (s: string): string | null => {
  if (!/^https?:\/\/[^/?#\s@]+$/i.test(s)) return null;
  try {
    const url = new URL(s);
    return url.origin === 'null' ? null : url.origin;
  } catch {
    return null;
  }
};

export const AllowedOrigin = withSchema(
  new t.Type<string, string, unknown>(
    'an origin such as https://app.example.com (scheme, host and optional port; no path)',
    (u): u is string => typeof u === 'string' && originOf(u) === u,
    (u, c) => {
      const origin = typeof u === 'string' ? originOf(u) : null;
      return origin === null ? t.failure(u, c) : t.success(origin);
    },
    t.identity,
  ),
  { type: 'string', pattern: '^[hH][tT][tT][pP][sS]?://[^/?#\\s@]+$', examples: ['https://app.example.com'] },
);

const AllowedOrigins = withSchema(
  new t.Type<string[], string[], unknown>(
    `a list of at most ${MAX_ALLOWED_ORIGINS} origins`,
    (u): u is string[] => Array.isArray(u) && u.length <= MAX_ALLOWED_ORIGINS && u.every((o) => AllowedOrigin.is(o)),
    (u, c) => {
      if (!Array.isArray(u) || u.length > MAX_ALLOWED_ORIGINS) return t.failure(u, c);
      const decoded = t.array(AllowedOrigin).validate(u, c);
      // Repeats (the same origin written twice, or twice once lower-cased) are dropped.
      return decoded._tag === 'Right' ? t.success([...new Set(decoded.right)]) : decoded;
    },
    t.identity,
  ),
  { maxItems: MAX_ALLOWED_ORIGINS },
  t.array(AllowedOrigin),
);

/** Events per second, or null for the deployment's default (WATCHLOG_INGEST_RATE_LIMIT). */
export const RateLimit = t.union([t.null, intRange(1, MAX_RATE_LIMIT)], `null or ${intRange(1, MAX_RATE_LIMIT).name}`);

export const ApiKeyRestrictions = t.exact(t.partial({ allowed_origins: AllowedOrigins, rate_limit: RateLimit }));
export type ApiKeyRestrictions = t.TypeOf<typeof ApiKeyRestrictions>;

/** A key's restrictions as stored: no origins means any origin; a null rate the default. */
export interface KeyRestrictions {
  readonly allowed_origins: readonly string[];
  readonly rate_limit: number | null;
}

export const NO_RESTRICTIONS: KeyRestrictions = { allowed_origins: [], rate_limit: null };

/** Whether a request from `origin` (its Origin header; null when it sent none, as non-browser
 *  clients do) may use a key with these restrictions. A key without origins takes any; a key
 *  with origins refuses browsers elsewhere. A client outside a browser can send any Origin it
 *  likes: the list keeps other web sites from using a key copied from yours, nothing more. */
export const originAllowed = (restrictions: KeyRestrictions, origin: string | null): boolean =>
  origin === null ||
  restrictions.allowed_origins.length === 0 ||
  restrictions.allowed_origins.includes(origin.toLowerCase());

export const sameRestrictions = (a: KeyRestrictions, b: KeyRestrictions): boolean =>
  a.rate_limit === b.rate_limit &&
  a.allowed_origins.length === b.allowed_origins.length &&
  a.allowed_origins.every((o, i) => o === b.allowed_origins[i]);
