import { randomBytes, randomUUID } from 'node:crypto';
import {
  refreshTokenHash,
  sessionDecider,
  sessionIdOfRefreshToken,
  type SessionEndReason,
  type SessionKind,
} from '../domain/session.ts';
import { sessionStream } from '../domain/streams.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';

/** A new refresh token of session `sessionId` (src/domain/session.ts): only its hash is kept. */
const newRefreshToken = (sessionId: string): string => `${sessionId}.${randomBytes(32).toString('base64url')}`;

export interface NewSession {
  readonly userId: string;
  readonly kind: SessionKind;
  readonly method: string;
  readonly address: string;
  readonly userAgent: string | null;
  readonly expiresAt: Date;
}

/** Starts a session; a `cookie` session gets its first refresh token (given back once). */
export const startSession = async (deps: CommandDeps, s: NewSession, ctx: CommandContext) => {
  const id = randomUUID();
  const refreshToken = s.kind === 'cookie' ? newRefreshToken(id) : null;
  const { position } = await handle(
    deps,
    sessionStream(id),
    sessionDecider,
    {
      type: 'StartSession',
      session_id: id,
      user_id: s.userId,
      kind: s.kind,
      method: s.method,
      refresh_hash: refreshToken === null ? null : refreshTokenHash(refreshToken),
      address: s.address,
      user_agent: s.userAgent,
      expires_at: s.expiresAt.toISOString(),
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { id, refreshToken, position };
};

/** What a refresh came to: a new refresh token for the session; or a refusal, with the
 *  session ended (`reason`) or left as it was (an unknown token, an ended session). */
export type Refreshed =
  | { readonly ok: true; readonly sessionId: string; readonly userId: string; readonly refreshToken: string }
  | { readonly ok: false; readonly ended: SessionEndReason | null; readonly userId: string | null };

export interface RefreshRequest {
  readonly token: string;
  readonly address: string;
  readonly userAgent: string | null;
  readonly idleMs: number;
  /** Whether the session's user may no longer hold it (disabled; password, role or projects
   *  changed since `startedAt`): asked once the session is known. */
  readonly revoked: (userId: string, startedAt: string) => Promise<boolean>;
}

export const refreshSession = async (
  deps: CommandDeps,
  r: RefreshRequest,
  ctx: CommandContext,
): Promise<Refreshed & { position: string | null }> => {
  const id = sessionIdOfRefreshToken(r.token);
  if (id === null) return { ok: false, ended: null, userId: null, position: null };
  const stream = sessionStream(id);
  const next = newRefreshToken(id);
  const loaded = await load(deps.log, stream, sessionDecider);
  const revoked = loaded.state.started ? await r.revoked(loaded.state.userId, loaded.state.startedAt) : false;
  const { events, position, state } = await handle(
    deps,
    stream,
    sessionDecider,
    {
      type: 'RefreshSession',
      presented_hash: refreshTokenHash(r.token),
      new_hash: refreshTokenHash(next),
      address: r.address,
      user_agent: r.userAgent,
      revoked,
      idle_ms: r.idleMs,
      at: ctx.now().toISOString(),
    },
    ctx,
    loaded,
  );
  const event = events[0];
  if (event?.type === 'SessionRefreshed') {
    return { ok: true, sessionId: id, userId: state.userId, refreshToken: next, position };
  }
  const ended = event?.type === 'SessionEnded' ? event.data.reason : null;
  return { ok: false, ended, userId: state.started ? state.userId : null, position };
};

/** Ends a session (nothing when it has ended already). */
export const endSession = (deps: CommandDeps, sessionId: string, reason: SessionEndReason, ctx: CommandContext) =>
  handle(
    deps,
    sessionStream(sessionId),
    sessionDecider,
    { type: 'EndSession', reason, at: ctx.now().toISOString() },
    ctx,
  );

/** A session as its stream has it now. */
export const loadSession = (deps: CommandDeps, sessionId: string) =>
  load(deps.log, sessionStream(sessionId), sessionDecider);
