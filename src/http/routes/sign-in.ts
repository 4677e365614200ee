import type { Context } from 'koa';
import { startSession } from '../../commands/sessions.ts';
import type { UserView } from '../../views/access/port.ts';
import type { RouteDeps } from '../deps.ts';
import { signToken } from '../middleware/auth.ts';

/** How a user proved who they are: a password alone, a password and a second factor, a passkey,
 *  or a single sign-on through provider `<id>`. */
export type SignInMethod = 'password' | 'totp' | 'recovery_code' | 'passkey' | `oidc:${string}`;

export interface SignInOptions {
  /** A dashboard sign-in: a short-lived access token, renewed through the refresh cookie
   *  (`POST /v1/auth/refresh`). Otherwise a script's: one token of WATCHLOG_JWT_TTL_SECONDS,
   *  the answer SPEC's clients know. */
  readonly cookie: boolean;
}

/** What a sign-in answers: SPEC's `{ token, expires_at }`, and for a cookie session its id. */
export interface SignedIn {
  token: string;
  expires_at: string;
  session_id?: string;
}

/** The refresh cookie: HttpOnly, SameSite=Strict, sent to the refresh endpoint only, Secure when
 *  the request came over TLS (the app does not trust a proxy's headers: docs/security.md). */
export const REFRESH_COOKIE = 'watchlog_refresh';
export const REFRESH_PATH = '/v1/auth/refresh';

export const setRefreshCookie = (ctx: Context, token: string | null, expiresAt: Date | null) => {
  ctx.cookies.set(REFRESH_COOKIE, token ?? '', {
    httpOnly: true,
    secure: ctx.secure,
    sameSite: 'strict',
    path: REFRESH_PATH,
    overwrite: true,
    ...(expiresAt === null ? { expires: new Date(0) } : { expires: expiresAt }),
  });
};

/** The client as a session records it: the socket's peer (the app does not trust
 *  X-Forwarded-For) and its user agent. */
export const clientOf = (ctx: Context) => ({
  address: ctx.request.ip || 'unknown',
  userAgent: ctx.get('user-agent') ? ctx.get('user-agent').slice(0, 512) : null,
});

/** The one way every sign-in ends, whatever proved the user (a password, a single sign-on, a
 *  passkey, after a second factor where one is asked): once the caller has decided that `user`
 *  may sign in (not disabled, the proof checked), this starts their session, records the
 *  sign-in as a `system.access` event, sets the refresh cookie of a cookie session, and gives
 *  the answer body. The session is visible to the token check before the token is handed out.
 *  Without `options`, a script's sign-in (SPEC's answer); a dashboard flow passes `{ cookie: true }`. */
export const finishSignIn = async (
  deps: RouteDeps,
  ctx: Context,
  user: UserView,
  method: SignInMethod,
  options: SignInOptions = { cookie: false },
): Promise<SignedIn> => {
  const now = deps.now();
  const { address, userAgent } = clientOf(ctx);
  const correlationId = (ctx.state as { correlationId: string }).correlationId;
  // A script's token lasts WATCHLOG_JWT_TTL_SECONDS and its session as long; a cookie session
  // lasts up to its absolute lifetime, each access token the short one.
  const ttl = options.cookie ? deps.sessions.accessTtlSeconds : deps.jwtTtlSeconds;
  const sessionEnd = new Date(now.getTime() + (options.cookie ? deps.sessions.maxSeconds : ttl) * 1000);
  const session = await startSession(
    deps.commands,
    { userId: user.id, kind: options.cookie ? 'cookie' : 'token', method, address, userAgent, expiresAt: sessionEnd },
    { actor: `user:${user.id}`, correlationId, now: deps.now },
  );
  await deps.caughtUp(['sessions'], session.position);
  await deps.recordLogin({
    email: user.email,
    ok: true,
    address,
    ...(userAgent ? { userAgent } : {}),
    at: now,
    userId: user.id,
    method,
    ...(method === 'totp' || method === 'recovery_code' || method === 'passkey' ? { factor: method } : {}),
    sessionId: session.id,
    requestId: correlationId,
    ...(method.startsWith('oidc:') ? { path: `/v1/auth/oidc/${method.slice(5)}/callback` } : {}),
  });
  // Token expiry follows the wall clock, as koa-jwt's verification does.
  const signed = signToken(user, deps.jwtSecret, ttl, new Date(), session.id);
  if (session.refreshToken === null) return signed;
  setRefreshCookie(ctx, session.refreshToken, sessionEnd);
  return { ...signed, session_id: session.id };
};
