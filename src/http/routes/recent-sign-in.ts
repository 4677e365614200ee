import { loadSession } from '../../commands/sessions.ts';
import type { RouteDeps } from '../deps.ts';
import type { Principal } from '../middleware/auth.ts';
import { HttpError } from '../middleware/errors.ts';

/** How long after a sign-in its session may change the user's second factors. */
export const RECENT_SIGN_IN_MS = 10 * 60_000;

/** Adding a factor, removing one and making new recovery codes ask for a sign-in of the last ten
 *  minutes (its session's start, read from the session's stream): a stolen token alone must not
 *  register its holder's passkey, which would sign them in for good, nor take the user's factors
 *  away or read new recovery codes. An enrolment token was given for a right password just now. */
export const requireRecentSignIn = async (deps: RouteDeps, principal: Principal): Promise<void> => {
  if (principal.enrolling) return;
  const session =
    principal.sessionId === undefined ? null : (await loadSession(deps.commands, principal.sessionId)).state;
  const startedAt = session?.started && !session.ended ? Date.parse(session.startedAt) : Number.NaN;
  if (deps.now().getTime() - startedAt < RECENT_SIGN_IN_MS) return;
  throw new HttpError(
    403,
    'reauthentication_required',
    'sign in again to change your second factors: a sign-in lets its session change them for 10 minutes',
  );
};
