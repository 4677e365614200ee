import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import jwt from 'jsonwebtoken';
import koaJwt from 'koa-jwt';
import type { Middleware } from 'koa';
import { Role, isUuid } from '../../domain/codecs.ts';
import { notFound } from '../../domain/errors.ts';
import type { CommandContext } from '../../commands/handle.ts';
import type { Scope } from '../../domain/scope.ts';
import type { UserView } from '../../views/access/port.ts';
import { HttpError } from './errors.ts';
import type { AppState } from '../state.ts';

/** JWT claims: `sub`, `role`, `projects` (ids, or "*" for admins), `iat` (seconds, with
 *  milliseconds as a fraction, which RFC 7519 NumericDate allows) and `exp`. */
export const Claims = t.type({
  sub: t.string,
  role: Role,
  projects: t.union([t.literal('*'), t.array(t.string)]),
  iat: t.number,
  exp: t.number,
});
export type Claims = t.TypeOf<typeof Claims>;

export interface Principal {
  readonly userId: string;
  readonly role: Role;
  readonly scope: Scope;
}

/** `iat` keeps milliseconds: a token issued just after a password or access change (in the same
 *  second) is still after the user's `tokens_valid_after`. */
export const signToken = (user: UserView, secret: string, ttlSeconds: number, now: Date) => {
  const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
  const iat = now.getTime() / 1000;
  const claims: Claims = { sub: user.id, role: user.role, projects: user.role === 'admin' ? '*' : user.project_ids, iat, exp };
  return { token: jwt.sign(claims, secret, { algorithm: 'HS256' }), expires_at: new Date(exp * 1000).toISOString() };
};

/** Whether a token issued at `iat` (JWT seconds) is still good for `user`: not disabled, and
 *  not issued before the last change of password, role or projects. */
export const tokenStillValid = (user: Pick<UserView, 'disabled' | 'tokens_valid_after'> | null, iat: number): boolean =>
  user !== null && !user.disabled && (user.tokens_valid_after === null || Math.round(iat * 1000) >= Date.parse(user.tokens_valid_after));

/** koa-jwt verifies signature and expiry (401 otherwise); the claims are then decoded into a
 *  principal, once the user's current state (`users`, a short cache of the access read model)
 *  says the token is still good. */
export const requireJwt = (secret: string, users: { get(id: string): Promise<UserView | null> }): Middleware<AppState>[] => [
  koaJwt({ secret, algorithms: ['HS256'], key: 'claims' }) as unknown as Middleware<AppState>,
  async (ctx, next) => {
    const claims = Claims.decode(ctx.state.claims);
    if (isLeft(claims)) throw new HttpError(401, 'unauthorized', 'token claims are invalid');
    const { sub, role, projects, iat } = claims.right;
    if (!tokenStillValid(await users.get(sub), iat)) {
      throw new HttpError(401, 'unauthorized', 'token is no longer valid (account disabled, or password, role or projects changed): log in again');
    }
    ctx.state.principal = {
      userId: sub,
      role,
      scope: projects === '*' ? { all: true } : { all: false, projectIds: projects },
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
export const commandContext = (principal: Principal, correlationId: string, now: () => Date): CommandContext =>
  ({ actor: `user:${principal.userId}`, correlationId, now });

/** The resource `id` names, when it is a uuid the caller may see; else 404, never a hint that it
 *  exists in another project. */
export const visibleOr404 = async <T>(id: string | undefined, what: string, get: (id: string) => Promise<T | null>): Promise<T> => {
  const found = id && isUuid(id) ? await get(id.toLowerCase()) : null;
  if (!found) throw notFound(what);
  return found;
};
