import { endSession, refreshSession } from '../../commands/sessions.ts';
import { deviceOf, sessionExpired, type SessionEndReason } from '../../domain/session.ts';
import { notFound } from '../../domain/errors.ts';
import type { CommandContext } from '../../commands/handle.ts';
import type { SessionView } from '../../views/sessions/port.ts';
import type { RouteDeps } from '../deps.ts';
import { signToken, tokenStillValid } from '../middleware/auth.ts';
import { HttpError } from '../middleware/errors.ts';
import type { sessionOperations } from '../operations/sessions.ts';
import { type Handlers, noBody, ok } from '../operations/operation.ts';
import { REFRESH_COOKIE, clientOf, setRefreshCookie } from './sign-in.ts';

/** The user's sessions still standing: not ended, within their lifetimes, and begun after the
 *  user's last change of password, role or projects (which ended the older ones). */
const standing = async (deps: RouteDeps, userId: string): Promise<SessionView[]> => {
  const user = await deps.readModels.access.userById(userId);
  if (!user) return [];
  const now = deps.now();
  return (await deps.readModels.sessions.openOf(userId)).filter(
    (s) =>
      !sessionExpired(
        { kind: s.kind, expiresAt: s.expires_at, lastUsedAt: s.last_used_at },
        now,
        deps.sessions.idleSeconds * 1000,
      ) && tokenStillValid(user, Date.parse(s.created_at) / 1000),
  );
};

const answerOf = (s: SessionView, current: string | undefined) => ({
  id: s.id,
  kind: s.kind,
  method: s.method,
  device: deviceOf(s.user_agent),
  address: s.address,
  created_at: s.created_at,
  last_used_at: s.last_used_at,
  expires_at: s.expires_at,
  current: s.id === current,
});

/** Ends sessions, waits until the read model shows it, and forgets them in this process's cache. */
const end = async (deps: RouteDeps, ids: readonly string[], reason: SessionEndReason, command: CommandContext) => {
  let last: string | null = null;
  for (const id of ids) {
    const { position } = await endSession(deps.commands, id, reason, command);
    last = position ?? last;
    deps.sessionStates.invalidate(id);
  }
  if (last !== null) await deps.caughtUp(['sessions'], last);
  return ids.length;
};

/** Whether a refresh's Origin is this service: none sent, the host the request was sent to (its
 *  scheme aside: a proxy that ends TLS forwards plain HTTP), or WATCHLOG_PUBLIC_URL's origin (a
 *  proxy that forwards to another Host). */
const sameSite = (origin: string, host: string, publicUrl: string | null): boolean => {
  if (origin === '') return true;
  try {
    const url = new URL(origin);
    return url.host === host || (publicUrl !== null && url.origin === new URL(publicUrl).origin);
  } catch {
    return false;
  }
};

const refused = (message: string) => new HttpError(401, 'unauthorized', message);

export const sessionHandlers: Handlers<typeof sessionOperations, RouteDeps> = {
  refresh: async ({ ctx }, deps) => {
    // SameSite=Strict keeps the cookie off cross-site requests; an Origin of another site is
    // refused as well, for browsers that send the cookie anyway.
    if (!sameSite(ctx.get('origin'), ctx.host, deps.publicUrl ?? null))
      throw new HttpError(403, 'forbidden', 'refresh from another origin');
    const token = ctx.cookies.get(REFRESH_COOKIE);
    if (!token) throw refused('no session cookie: log in');
    const { address, userAgent } = clientOf(ctx);
    const command = { actor: 'system:sessions', correlationId: ctx.state.correlationId, now: deps.now };
    const outcome = await refreshSession(
      deps.commands,
      {
        token,
        address,
        userAgent,
        idleMs: deps.sessions.idleSeconds * 1000,
        revoked: async (userId, startedAt) =>
          !tokenStillValid(await deps.readModels.access.userById(userId), Date.parse(startedAt) / 1000),
      },
      command,
    );
    if (!outcome.ok) {
      setRefreshCookie(ctx, null, null);
      if (outcome.ended === 'refresh_reused') {
        deps.logger.warn({ user_id: outcome.userId, address }, 'a rotated refresh token was used again: session ended');
      }
      if (outcome.position !== null) await deps.caughtUp(['sessions'], outcome.position);
      throw refused(
        outcome.ended === 'refresh_reused'
          ? 'this refresh token was used already: the session has ended, log in again'
          : 'session ended or expired: log in again',
      );
    }
    await deps.caughtUp(['sessions'], outcome.position);
    const user = (await deps.readModels.access.userById(outcome.userId))!;
    const session = (await deps.readModels.sessions.get(outcome.sessionId))!;
    setRefreshCookie(ctx, outcome.refreshToken, new Date(session.expires_at));
    const signed = signToken(user, deps.jwtSecret, deps.sessions.accessTtlSeconds, new Date(), outcome.sessionId);
    return ok({ ...signed, session_id: outcome.sessionId });
  },

  logout: async ({ principal, command, ctx }, deps) => {
    if (principal.sessionId !== undefined) await end(deps, [principal.sessionId], 'logout', command);
    setRefreshCookie(ctx, null, null);
    return noBody(204);
  },

  listMine: async ({ principal }, deps) =>
    ok((await standing(deps, principal.userId)).map((s) => answerOf(s, principal.sessionId))),

  endOthers: async ({ principal, command }, deps) => {
    const others = (await deps.readModels.sessions.openOf(principal.userId)).filter(
      (s) => s.id !== principal.sessionId,
    );
    return ok({
      ended: await end(
        deps,
        others.map((s) => s.id),
        'ended',
        command,
      ),
    });
  },

  endMine: async ({ params: { sessionId }, principal, command }, deps) => {
    const session = await deps.readModels.sessions.get(sessionId);
    if (!session || session.user_id !== principal.userId || session.ended_at !== null) throw notFound('session');
    await end(deps, [sessionId], 'ended', command);
    return noBody(204);
  },

  listUsers: async ({ params: { id }, principal }, deps) => {
    if (!(await deps.readModels.access.userById(id))) throw notFound('user');
    return ok((await standing(deps, id)).map((s) => answerOf(s, principal.sessionId)));
  },

  endUsers: async ({ params: { id }, command }, deps) => {
    if (!(await deps.readModels.access.userById(id))) throw notFound('user');
    const open = await deps.readModels.sessions.openOf(id);
    return ok({
      ended: await end(
        deps,
        open.map((s) => s.id),
        'ended_by_admin',
        command,
      ),
    });
  },
};
