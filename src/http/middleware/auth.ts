import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import jwt from 'jsonwebtoken';
import koaJwt from 'koa-jwt';
import type { Context, Middleware } from 'koa';
import { type KeyScope, hasScope, keyExpired, originAllowed } from '../../domain/api-keys.ts';
import { Role, isUuid } from '../../domain/codecs.ts';
import { notFound } from '../../domain/errors.ts';
import type { CommandContext } from '../../commands/handle.ts';
import type { Scope } from '../../domain/scope.ts';
import type { ViewerGrant } from '../../domain/viewer-token.ts';
import { WATCHLOG_PROJECT_ID } from '../../domain/self-audit.ts';
import type { ActiveKey, UserView } from '../../views/access/port.ts';
import { HttpError, MissingScopeError } from './errors.ts';
import type { AppState } from '../state.ts';

/** JWT claims: `sub`, `role`, `projects` (ids, or "*" for admins), `iat` (seconds, with
 *  milliseconds as a fraction, which RFC 7519 NumericDate allows), `exp` and `sid`, the session
 *  the token belongs to (absent on tokens issued before sessions were: they last until `exp`). */
export const Claims = t.intersection([
  t.type({
    sub: t.string,
    role: Role,
    projects: t.union([t.literal('*'), t.array(t.string)]),
    iat: t.number,
    exp: t.number,
  }),
  t.partial({ sid: t.string }),
]);
export type Claims = t.TypeOf<typeof Claims>;

/** Who makes a request: a signed-in user, or an API key with a scope the operation takes (its
 *  `userId` is then the key's id, its role `auditor`, the role that only reads, and its scope its
 *  own project). `actor` names either in what they record: `user:<id>` or `key:<id>`. */
export interface Principal {
  readonly userId: string;
  readonly role: Role;
  readonly scope: Scope;
  readonly actor: string;
  /** A viewer token's grant (one tenant of one project, fields hidden): the handlers of the
   *  operations that take viewer tokens narrow their reads to it. */
  readonly viewer?: ViewerGrant;
  /** Signed in by an enrolment token (factor-tokens.ts): the password was right, and the policy
   *  wants a second factor first. Only the enrolment operations take it. */
  readonly enrolling?: { readonly cookie: boolean };
  /** The sign-in session of a user's token (src/domain/session.ts). */
  readonly sessionId?: string;
}

/** A key stands in for a reader of its own project; for a `config` operation, for a member of
 *  it (who may change its configuration, never its keys, users or other projects). */
export const keyPrincipal = (key: Pick<ActiveKey, 'id' | 'project_id'>, scope?: KeyScope): Principal => ({
  userId: key.id,
  role: scope === 'config' ? 'member' : 'auditor',
  scope: { all: false, projectIds: [key.project_id] },
  actor: `key:${key.id}`,
});

/** `iat` keeps milliseconds: a token issued just after a password or access change (in the same
 *  second) is still after the user's `tokens_valid_after`. */
export const signToken = (user: UserView, secret: string, ttlSeconds: number, now: Date, sessionId?: string) => {
  const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const iat = now.getTime() / 1000;
  const claims: Claims = {
    sub: user.id,
    role: user.role,
    projects: user.role === 'admin' ? '*' : user.project_ids,
    iat,
    exp,
    ...(sessionId === undefined ? {} : { sid: sessionId }),
  };
  return { token: jwt.sign(claims, secret, { algorithm: 'HS256' }), expires_at: new Date(exp * 1000).toISOString() };
};

/** Whether a token issued at `iat` (JWT seconds) is still good for `user`: not disabled, and
 *  not issued before the last change of password, role or projects. */
export const tokenStillValid = (user: Pick<UserView, 'disabled' | 'tokens_valid_after'> | null, iat: number): boolean =>
  user !== null &&
  !user.disabled &&
  (user.tokens_valid_after === null || Math.round(iat * 1000) >= Date.parse(user.tokens_valid_after));

/** A 401 with RFC 6750's challenge, so a client can tell "send a token" from "this token is bad". */
const unauthorized = (ctx: Context, message: string, error?: 'invalid_request' | 'invalid_token'): HttpError => {
  ctx.set(
    'WWW-Authenticate',
    error
      ? `Bearer realm="watchlog", error="${error}", error_description="${message.replace(/["\\]/g, "'")}"`
      : 'Bearer realm="watchlog"',
  );
  return new HttpError(401, 'unauthorized', message);
};

const BEARER = /^Bearer\s+\S+$/i;

/** koa-jwt verifies signature and expiry; it passes its verdict through so the answer can say
 *  what is wrong: no token, an Authorization header that is not `Bearer <token>`, an expired
 *  token, or one that is malformed or not signed by this service (all 401). The claims are then
 *  decoded into a principal, once the user's current state (`users`, a short cache of the access
 *  read model) says the token is still good. */
export const requireJwt = (
  secret: string,
  users: { get(id: string): Promise<UserView | null> },
  sessions: { open(id: string, userId: string): Promise<boolean> },
): Middleware<AppState>[] => [
  koaJwt({ secret, algorithms: ['HS256'], key: 'claims', passthrough: true }) as unknown as Middleware<AppState>,
  async (ctx, next) => {
    const header = ctx.get('authorization').trim();
    if (header === '') throw unauthorized(ctx, 'missing token: send the header "Authorization: Bearer <token>"');
    if (!BEARER.test(header))
      throw unauthorized(ctx, 'malformed Authorization header: expected "Bearer <token>"', 'invalid_request');
    const failure = (ctx.state as { jwtOriginalError?: unknown }).jwtOriginalError;
    // By name: koa-jwt may verify with its own copy of jsonwebtoken.
    if ((failure as { name?: unknown } | undefined)?.name === 'TokenExpiredError')
      throw unauthorized(ctx, 'token expired: log in again', 'invalid_token');
    if (failure !== undefined || ctx.state.claims === undefined) {
      throw unauthorized(ctx, 'invalid token: malformed, or not signed by this service', 'invalid_token');
    }
    const claims = Claims.decode(ctx.state.claims);
    if (isLeft(claims))
      throw unauthorized(ctx, 'invalid token: its claims are not those of a watchlog token', 'invalid_token');
    const { sub, role, projects, iat, sid } = claims.right;
    if (!tokenStillValid(await users.get(sub), iat)) {
      throw unauthorized(
        ctx,
        'token is no longer valid (account disabled, or password, role or projects changed): log in again',
        'invalid_token',
      );
    }
    if (sid !== undefined && !(await sessions.open(sid, sub)))
      throw unauthorized(ctx, 'this session has ended: log in again', 'invalid_token');
    ctx.state.principal = {
      userId: sub,
      role,
      actor: `user:${sub}`,
      ...(sid === undefined ? {} : { sessionId: sid }),
      // Auditors also see the built-in project, where watchlog audits itself.
      scope:
        projects === '*'
          ? { all: true }
          : { all: false, projectIds: role === 'auditor' ? [...projects, WATCHLOG_PROJECT_ID] : projects },
    };
    await next();
  },
];

export const principalOf = (state: AppState): Principal => {
  if (!state.principal) throw new HttpError(401, 'unauthorized', 'authentication required');
  return state.principal;
};

export const requireRole = (principal: Principal, ...roles: Role[]): void => {
  if (!roles.includes(principal.role)) throw new HttpError(403, 'forbidden', `requires role ${roles.join(' or ')}`);
};

/** The command context of a request made by `principal`. */
export const commandContext = (principal: Principal, correlationId: string, now: () => Date): CommandContext => ({
  actor: principal.actor,
  correlationId,
  now,
});

/** The resource `id` names, when it is a uuid the caller may see; else 404, never a hint that it
 *  exists in another project. */
export const visibleOr404 = async <T>(
  id: string | undefined,
  what: string,
  get: (id: string) => Promise<T | null>,
): Promise<T> => {
  const found = id && isUuid(id) ? await get(id.toLowerCase()) : null;
  if (!found) throw notFound(what);
  return found;
};

/** The request's API key (the `X-API-Key` header, or `fromQuery` where a parameter may carry
 *  it), active, not expired (401 otherwise), and allowed from the page that sent it (403). */
export const apiKeyOf = async (
  ctx: Context,
  activeKey: (key: string) => Promise<ActiveKey | null>,
  fromQuery: string | undefined,
  now: Date,
): Promise<ActiveKey> => {
  const given = ctx.get('x-api-key') || fromQuery;
  const key = given ? await activeKey(given) : null;
  if (!key) throw new HttpError(401, 'unauthorized', given ? 'invalid or revoked API key' : 'missing X-API-Key header');
  if (keyExpired(key, now))
    throw new HttpError(
      401,
      'unauthorized',
      `API key expired at ${key.expires_at}: extend its expires_at or issue a new one`,
    );
  const origin = ctx.get('Origin') || null;
  if (!originAllowed(key, origin)) {
    throw new HttpError(
      403,
      'forbidden',
      `this API key may not be used from ${origin}: it is restricted to ${key.allowed_origins.join(', ')}`,
    );
  }
  return key;
};

/** A key used where its scopes do not reach: 403 naming the scope the operation takes, or,
 *  where no scope reaches (`null`), saying that a sign-in is needed. */
export const requireKeyScope = (key: ActiveKey, scope: KeyScope | null, operation: string): void => {
  if (scope === null)
    throw new HttpError(
      403,
      'forbidden',
      `${operation} does not take API keys: sign in and send "Authorization: Bearer <token>"`,
    );
  if (!hasScope(key, scope))
    throw new MissingScopeError(
      scope,
      `this API key may not be used for ${operation}: it needs the scope "${scope}" (it has ${key.scopes.join(', ')})`,
    );
};

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Checks `Authorization: Bearer <token>` against the metrics token, in constant time (over
 *  digests, so the length of the token does not show either); 401 otherwise. */
export const metricsTokenOf = (ctx: Context, token: string): void => {
  const header = ctx.get('authorization');
  const refused = (message: string, error?: 'invalid_token') => {
    ctx.set(
      'WWW-Authenticate',
      error ? `Bearer realm="watchlog-metrics", error="${error}"` : 'Bearer realm="watchlog-metrics"',
    );
    return new HttpError(401, 'unauthorized', message);
  };
  if (header.trim() === '')
    throw refused('missing token: send the header "Authorization: Bearer <WATCHLOG_METRICS_TOKEN>"');
  const given = /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1];
  if (given === undefined || !timingSafeEqual(digest(given), digest(token)))
    throw refused('wrong metrics token', 'invalid_token');
};
