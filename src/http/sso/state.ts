import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';

/** A sign-in in progress, between the redirect to the provider and its redirect back: kept in
 *  the browser, in a cookie signed with a key derived from the JWT secret, HttpOnly, sent to the
 *  single sign-on paths only, SameSite=Lax (the provider's redirect back is a top-level navigation
 *  from another site, which Strict would strip), for 10 minutes, and cleared by the callback
 *  whatever it decides: a code or a state comes back once. */
export interface SignInState {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  /** Epoch ms. */
  expires: number;
}

export const STATE_COOKIE = 'watchlog_oidc';
const STATE_PATH = '/v1/auth/oidc';
export const STATE_TTL_MS = 10 * 60_000;

export const stateKeyOf = (jwtSecret: string): Buffer =>
  createHmac('sha256', jwtSecret).update('watchlog sso state v1').digest();

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest('base64url');

export const setState = (ctx: Context, key: Buffer, state: SignInState) => {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  ctx.cookies.set(STATE_COOKIE, `${payload}.${mac(key, payload)}`, {
    httpOnly: true,
    secure: ctx.secure,
    sameSite: 'lax',
    path: STATE_PATH,
    overwrite: true,
    maxAge: STATE_TTL_MS,
  });
};

/** The sign-in this browser started, when its cookie is there, signed by this deployment and
 *  not expired; the cookie is cleared either way. */
export const takeState = (ctx: Context, key: Buffer, now: number): SignInState | null => {
  const value = ctx.cookies.get(STATE_COOKIE);
  ctx.cookies.set(STATE_COOKIE, '', {
    httpOnly: true,
    secure: ctx.secure,
    sameSite: 'lax',
    path: STATE_PATH,
    overwrite: true,
    expires: new Date(0),
  });
  if (!value) return null;
  const [payload, signature] = value.split('.');
  if (!payload || !signature) return null;
  const expected = Buffer.from(mac(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  try {
    const state = JSON.parse(Buffer.from(payload, 'base64url').toString()) as SignInState;
    return state.expires > now ? state : null;
  } catch {
    return null;
  }
};
