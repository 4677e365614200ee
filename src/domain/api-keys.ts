import * as t from 'io-ts';
import { IsoTimestamp, intRange } from './codecs.ts';
import { withSchema } from './json-schema.ts';

/** What an API key may be restricted to: what it may do (its scopes), until when, the browser
 *  origins it may be used from, and its own ingest rate. A key used in a web page is public
 *  (anyone can read it from the page): these limit what someone who copies it can do with it. */

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

/** What a key may do: `ingest` (send events), `read` (its project's events: list, detail,
 *  export, stats, sessions), `stream` (the auditors' endpoints), `viewer:issue` (viewer tokens),
 *  `config` (read and change its project's configuration, as a member would: monitors,
 *  channels, status pages, maintenance, masking, anomaly settings; what `watchlog plan` and
 *  `apply` call, docs/config-file.md). */
export const KEY_SCOPES = ['ingest', 'read', 'stream', 'viewer:issue', 'config'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const KeyScope = t.keyof(
  Object.fromEntries(KEY_SCOPES.map((s) => [s, null])) as Record<KeyScope, null>,
  KEY_SCOPES.join(' | '),
);
/** Keys issued before keys had scopes could only ingest, and still can only ingest. */
export const DEFAULT_SCOPES: readonly KeyScope[] = ['ingest'];

/** In the catalogue's order, without repeats: two lists of the same scopes are the same list. */
const canonicalScopes = (scopes: readonly KeyScope[]): KeyScope[] => KEY_SCOPES.filter((s) => scopes.includes(s));

const Scopes = withSchema(
  new t.Type<KeyScope[], KeyScope[], unknown>(
    `a non-empty list of scopes (${KEY_SCOPES.join(', ')})`,
    (u): u is KeyScope[] => Array.isArray(u) && u.length > 0 && u.every((s) => KeyScope.is(s)),
    (u, c) => {
      if (!Array.isArray(u) || u.length === 0) return t.failure(u, c);
      const decoded = t.array(KeyScope).validate(u, c);
      return decoded._tag === 'Right' ? t.success(canonicalScopes(decoded.right)) : decoded;
    },
    t.identity,
  ),
  { minItems: 1, examples: [['read', 'stream']] },
  t.array(KeyScope),
);

/** When a key stops working; null: never. */
const ExpiresAt = t.union([t.null, IsoTimestamp], `null or ${IsoTimestamp.name}`);

/** Events per second, or null for the deployment's default (WATCHLOG_INGEST_RATE_LIMIT). */
export const RateLimit = t.union([t.null, intRange(1, MAX_RATE_LIMIT)], `null or ${intRange(1, MAX_RATE_LIMIT).name}`);

export const ApiKeyRestrictions = t.exact(
  t.partial({ scopes: Scopes, expires_at: ExpiresAt, allowed_origins: AllowedOrigins, rate_limit: RateLimit }),
);
export type ApiKeyRestrictions = t.TypeOf<typeof ApiKeyRestrictions>;

/** A key's restrictions as stored: no origins means any origin; a null rate the default; a null
 *  expiry never. */
export interface KeyRestrictions {
  readonly scopes: readonly KeyScope[];
  readonly expires_at: string | null;
  readonly allowed_origins: readonly string[];
  readonly rate_limit: number | null;
}

export const NO_RESTRICTIONS: KeyRestrictions = {
  scopes: DEFAULT_SCOPES,
  expires_at: null,
  allowed_origins: [],
  rate_limit: null,
};

/** The scopes an event carries, or those of a key from before scopes (ingest only). */
export const scopesOf = (stored: readonly KeyScope[] | undefined): KeyScope[] =>
  canonicalScopes(stored ?? DEFAULT_SCOPES);

export const hasScope = (key: Pick<KeyRestrictions, 'scopes'>, scope: KeyScope): boolean => key.scopes.includes(scope);

/** Whether a key with this expiry is past it at `now`. */
export const keyExpired = (key: Pick<KeyRestrictions, 'expires_at'>, now: Date): boolean =>
  key.expires_at !== null && Date.parse(key.expires_at) <= now.getTime();

/** Whether a request from `origin` (its Origin header; null when it sent none, as non-browser
 *  clients do) may use a key with these restrictions. A key without origins takes any; a key
 *  with origins refuses browsers elsewhere. A client outside a browser can send any Origin it
 *  likes: the list keeps other web sites from using a key copied from yours, nothing more. */
export const originAllowed = (restrictions: Pick<KeyRestrictions, 'allowed_origins'>, origin: string | null): boolean =>
  origin === null ||
  restrictions.allowed_origins.length === 0 ||
  restrictions.allowed_origins.includes(origin.toLowerCase());

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export const sameRestrictions = (a: KeyRestrictions, b: KeyRestrictions): boolean =>
  a.rate_limit === b.rate_limit &&
  a.expires_at === b.expires_at &&
  sameList(a.scopes, b.scopes) &&
  sameList(a.allowed_origins, b.allowed_origins);
