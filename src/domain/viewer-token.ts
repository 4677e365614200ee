import * as t from 'io-ts';
import { boundedArray, boundedString, closed, intRange } from './codecs.ts';

/** Viewer tokens: what a SaaS's backend asks for so that one of its customers reads their own
 *  organisation's trail (`<watchlog-audit-log>`, `/embed`). A token names one project and one
 *  tenant (and may narrow to one identifier), hides the fields it lists, and lives at most a day.
 *  It reads that tenant's events (list, search, detail, export, statistics) and nothing else. */

export const VIEWER_TTL_SECONDS = { min: 60, default: 3600, max: 86_400 } as const;

/** The fields a token may hide: who did it and what was sent. Those that say what happened (time,
 *  type, method, path, status, service) stay, since the viewer's table is made of them. */
export const HIDEABLE_FIELDS = [
  'user_email',
  'user_name',
  'user_roles',
  'user_type',
  'ip',
  'user_agent',
  'query_params',
  'path_params',
  'request_body',
  'response_body',
  'error_message',
  'request_id',
  'session_id',
  'response_time',
] as const;
export type HideableField = (typeof HIDEABLE_FIELDS)[number];
const HideableField = t.keyof(
  Object.fromEntries(HIDEABLE_FIELDS.map((f) => [f, null])) as Record<HideableField, null>,
  HIDEABLE_FIELDS.join(' | '),
);

export const ViewerTokenRequest = closed(
  t.intersection([
    t.type({ tenant_id: boundedString(1, 255) }),
    t.partial({
      identifier: boundedString(1, 100),
      expires_in: intRange(VIEWER_TTL_SECONDS.min, VIEWER_TTL_SECONDS.max),
      fields: boundedArray(HideableField, 0, HIDEABLE_FIELDS.length, 'a list of fields to hide'),
    }),
  ]),
  'field',
  'a viewer token request',
);
export type ViewerTokenRequest = t.TypeOf<typeof ViewerTokenRequest>;

/** The token's claims (a JWT signed with a key of its own: a viewer token is never a user's). */
export const ViewerClaims = t.type({
  typ: t.literal('viewer'),
  /** The project, the tenant, and the identifier it narrows to (null: every one of the tenant). */
  pid: t.string,
  tid: t.string,
  idf: t.union([t.string, t.null]),
  hide: t.array(HideableField),
  /** The browser origins that may read with it and frame `/embed` (the project's keys' origins
   *  when it was issued; empty: none but watchlog's own). */
  orig: t.array(t.string),
  iat: t.number,
  exp: t.number,
  jti: t.string,
});
export type ViewerClaims = t.TypeOf<typeof ViewerClaims>;

/** What a request made with a viewer token may see. */
export interface ViewerGrant {
  readonly tokenId: string;
  readonly projectId: string;
  readonly tenantId: string;
  readonly identifier: string | null;
  readonly hide: readonly HideableField[];
  readonly origins: readonly string[];
}

export const grantOf = (claims: ViewerClaims): ViewerGrant => ({
  tokenId: claims.jti,
  projectId: claims.pid,
  tenantId: claims.tid,
  identifier: claims.idf,
  hide: [...new Set(claims.hide)],
  origins: claims.orig,
});

/** The claims of a new token for `request`, issued at `now` for the project's `origins`. */
export const viewerClaims = (
  projectId: string,
  request: ViewerTokenRequest,
  origins: readonly string[],
  now: Date,
  tokenId: string,
): ViewerClaims => {
  const iat = Math.floor(now.getTime() / 1000);
  return {
    typ: 'viewer',
    pid: projectId,
    tid: request.tenant_id,
    idf: request.identifier ?? null,
    hide: [...new Set(request.fields ?? [])],
    orig: [...new Set(origins)].sort(),
    iat,
    exp: iat + (request.expires_in ?? VIEWER_TTL_SECONDS.default),
    jti: tokenId,
  };
};

/** The filters a viewer's read takes: its tenant and identifier in place of the caller's. A filter
 *  naming another tenant or identifier is refused (null), never widened and never answered. */
export const viewerFilter = <F extends { tenant_id?: string | undefined; identifier?: string | undefined }>(
  grant: ViewerGrant,
  filter: F,
): F | null => {
  if (filter.tenant_id !== undefined && filter.tenant_id !== grant.tenantId) return null;
  if (grant.identifier !== null && filter.identifier !== undefined && filter.identifier !== grant.identifier)
    return null;
  return {
    ...filter,
    tenant_id: grant.tenantId,
    ...(grant.identifier === null ? {} : { identifier: grant.identifier }),
  };
};

/** Whether an event is one the grant reads. */
export const viewerSees = (grant: ViewerGrant, event: { project_id: string; tenant_id?: string; identifier: string }) =>
  event.project_id === grant.projectId &&
  event.tenant_id === grant.tenantId &&
  (grant.identifier === null || event.identifier === grant.identifier);

/** A copy of `record` without the grant's hidden fields; list items (whose shape is fixed) get
 *  null in their place. */
export const withoutHidden = <R extends object>(grant: ViewerGrant, record: R, keepShape = false): R => {
  if (grant.hide.length === 0) return record;
  const copy = { ...record } as Record<string, unknown>;
  for (const field of grant.hide) {
    if (!(field in copy)) continue;
    if (keepShape) copy[field] = null;
    else delete copy[field];
  }
  return copy as R;
};

/** Fields whose words a search finds (docs/search.md): a token that hides one must not let its
 *  holder search them, or a search would tell which events hold a word it cannot see. */
const SEARCHED_FIELDS: ReadonlySet<string> = new Set([
  'user_email',
  'user_name',
  'error_message',
  'user_agent',
  'request_body',
  'response_body',
]);

/** Why a viewer may not run this search or order (null: it may): words when the token hides a
 *  field words are found in, a field term or an order on a hidden field. */
export const viewerQueryProblem = (
  grant: ViewerGrant,
  terms: readonly { kind: string; field?: string }[],
  sortBy?: string,
): { path: 'q' | 'sort_by'; message: string } | null => {
  const hidden = new Set<string>(grant.hide);
  if (sortBy !== undefined && hidden.has(sortBy))
    return { path: 'sort_by', message: `cannot be ${sortBy}: this view hides it` };
  const hiddenSearched = [...hidden].filter((field) => SEARCHED_FIELDS.has(field));
  for (const term of terms) {
    if (term.kind === 'text' && hiddenSearched.length > 0)
      return {
        path: 'q',
        message: `may hold field terms only (path:, method:, status:, …): this view hides ${hiddenSearched.join(', ')}`,
      };
    if (term.field !== undefined && hidden.has(term.field))
      return { path: 'q', message: `cannot search ${term.field}: this view hides it` };
  }
  return null;
};
