import type { Context } from 'koa';
import type { UserView } from '../../views/access/port.ts';
import type { RouteDeps } from '../deps.ts';
import { signToken } from '../middleware/auth.ts';

/** How a sign-in was proven: the password alone (no factor, none required), the password and a
 *  second factor, or a passkey alone. */
export type SignInMethod = 'password' | 'totp' | 'recovery_code' | 'passkey';

/** Every sign-in ends here, whatever proved it, so that what a signed-in user is given is decided
 *  in one place: today the token `POST /v1/auth/login` has always answered. */
export const finishSignIn = async (deps: RouteDeps, ctx: Context, user: UserView, how: SignInMethod) => {
  deps.logger.debug({ user_id: user.id, how, request_id: ctx.state.correlationId }, 'signed in');
  // Token expiry follows the wall clock, as koa-jwt's verification does.
  return signToken(user, deps.jwtSecret, deps.jwtTtlSeconds, new Date());
};
