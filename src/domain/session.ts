import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import type { Decider } from './decider.ts';
import type { DomainEvent } from './events.ts';

/** A sign-in session (docs/security.md, "Sessions"): every sign-in starts one, and every access
 *  token carries its id (`sid`), so ending the session refuses its tokens. A `cookie` session (the
 *  dashboard's) is renewed through an opaque refresh token, rotated on every use: its stream keeps
 *  the SHA-256 of each one handed out, so a rotated one shown again is told from a guess and ends
 *  the whole session. A `token` session (a script's `POST /v1/auth/login`) has no refresh token:
 *  it lasts as long as its one token. */

/** The lifetimes of sessions (WATCHLOG_ACCESS_TOKEN_TTL_SECONDS, WATCHLOG_SESSION_IDLE_SECONDS,
 *  WATCHLOG_SESSION_MAX_SECONDS). */
export interface SessionSettings {
  /** Lifetime of an access token of a cookie session. */
  readonly accessTtlSeconds: number;
  /** A cookie session unused (not refreshed) this long has ended. */
  readonly idleSeconds: number;
  /** No session outlives this, refreshed or not. */
  readonly maxSeconds: number;
}

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  accessTtlSeconds: 900,
  idleSeconds: 86_400,
  maxSeconds: 604_800,
};

export const SessionKind = t.keyof({ cookie: null, token: null });
export type SessionKind = t.TypeOf<typeof SessionKind>;

/** Why a session ended: its user signed out, ended it from another session or had it ended by an
 *  admin; a rotated refresh token came back; it outlived its idle or absolute lifetime; or its
 *  user was disabled or changed password (or role) since it started. */
export const SessionEndReason = t.keyof({
  logout: null,
  ended: null,
  ended_by_admin: null,
  refresh_reused: null,
  expired: null,
  revoked: null,
});
export type SessionEndReason = t.TypeOf<typeof SessionEndReason>;

export const sessionEvents = {
  SessionStarted: t.type({
    session_id: t.string,
    user_id: t.string,
    kind: SessionKind,
    /** How the user signed in: `password`, `oidc:<provider>`, `passkey`. */
    method: t.string,
    /** SHA-256 (hex) of the first refresh token; null for a `token` session. */
    refresh_hash: t.union([t.null, t.string]),
    address: t.string,
    user_agent: t.union([t.null, t.string]),
    started_at: t.string,
    /** The absolute end of the session. */
    expires_at: t.string,
  }),
  SessionRefreshed: t.type({
    session_id: t.string,
    user_id: t.string,
    refresh_hash: t.string,
    address: t.string,
    user_agent: t.union([t.null, t.string]),
    refreshed_at: t.string,
  }),
  SessionEnded: t.type({
    session_id: t.string,
    user_id: t.string,
    reason: SessionEndReason,
    ended_at: t.string,
  }),
} as const;

export interface SessionState {
  readonly started: boolean;
  readonly id: string;
  readonly userId: string;
  readonly kind: SessionKind;
  readonly startedAt: string;
  readonly lastUsedAt: string;
  readonly expiresAt: string;
  readonly currentHash: string | null;
  /** Every refresh token handed out before the current one. */
  readonly rotated: readonly string[];
  readonly ended: boolean;
}

export const initialSession: SessionState = {
  started: false,
  id: '',
  userId: '',
  kind: 'token',
  startedAt: '',
  lastUsedAt: '',
  expiresAt: '',
  currentHash: null,
  rotated: [],
  ended: false,
};

export const evolveSession = (state: SessionState, event: DomainEvent): SessionState => {
  switch (event.type) {
    case 'SessionStarted': {
      const d = event.data;
      return {
        ...initialSession,
        started: true,
        id: d.session_id,
        userId: d.user_id,
        kind: d.kind,
        startedAt: d.started_at,
        lastUsedAt: d.started_at,
        expiresAt: d.expires_at,
        currentHash: d.refresh_hash,
      };
    }
    case 'SessionRefreshed':
      return {
        ...state,
        lastUsedAt: event.data.refreshed_at,
        rotated: state.currentHash === null ? state.rotated : [...state.rotated, state.currentHash],
        currentHash: event.data.refresh_hash,
      };
    case 'SessionEnded':
      return { ...state, ended: true };
    default:
      return state;
  }
};

export type SessionStart = Omit<t.TypeOf<(typeof sessionEvents)['SessionStarted']>, 'started_at'>;

export type SessionCommand =
  | ({ type: 'StartSession'; at: string } & SessionStart)
  /** A refresh token shown (`presented_hash`): rotated to `new_hash` when it is the current one
   *  and the session still stands. `revoked`: its user was disabled, or changed password, role or
   *  projects, since the session started; `idle_ms`: the idle lifetime. */
  | {
      type: 'RefreshSession';
      presented_hash: string;
      new_hash: string;
      address: string;
      user_agent: string | null;
      revoked: boolean;
      idle_ms: number;
      at: string;
    }
  | { type: 'EndSession'; reason: SessionEndReason; at: string };

/** A session that outlived its absolute lifetime, or (cookie sessions) its idle one. */
export const sessionExpired = (
  s: Pick<SessionState, 'kind' | 'expiresAt' | 'lastUsedAt'>,
  at: Date,
  idleMs: number,
): boolean =>
  at.getTime() >= Date.parse(s.expiresAt) || (s.kind === 'cookie' && at.getTime() - Date.parse(s.lastUsedAt) >= idleMs);

const ended = (state: SessionState, reason: SessionEndReason, at: string): DomainEvent => ({
  type: 'SessionEnded',
  data: { session_id: state.id, user_id: state.userId, reason, ended_at: at },
});

/** A refresh decides one of: rotate (SessionRefreshed), end the session (SessionEnded: a rotated
 *  token came back, it expired, or its user's access changed), or nothing (an unknown token or
 *  an ended session: refused without touching it, so a guess cannot end someone's session). */
const decideRefresh = (c: Extract<SessionCommand, { type: 'RefreshSession' }>, state: SessionState): DomainEvent[] => {
  if (!state.started || state.ended || state.kind !== 'cookie') return [];
  if (state.rotated.includes(c.presented_hash)) return [ended(state, 'refresh_reused', c.at)];
  if (c.presented_hash !== state.currentHash) return [];
  if (c.revoked) return [ended(state, 'revoked', c.at)];
  if (sessionExpired(state, new Date(c.at), c.idle_ms)) return [ended(state, 'expired', c.at)];
  return [
    {
      type: 'SessionRefreshed',
      data: {
        session_id: state.id,
        user_id: state.userId,
        refresh_hash: c.new_hash,
        address: c.address,
        user_agent: c.user_agent,
        refreshed_at: c.at,
      },
    },
  ];
};

export const sessionDecider: Decider<SessionState, SessionCommand> = {
  initialState: initialSession,
  evolve: evolveSession,
  decide(command, state) {
    switch (command.type) {
      case 'StartSession': {
        if (state.started) return [];
        const { type: _, at, ...start } = command;
        return [{ type: 'SessionStarted', data: { ...start, started_at: at } }];
      }
      case 'RefreshSession':
        return decideRefresh(command, state);
      case 'EndSession':
        return !state.started || state.ended ? [] : [ended(state, command.reason, command.at)];
    }
  },
};

/** A refresh token is `<session id>.<random>`: the id finds the session's stream; only the
 *  token's SHA-256 is stored. */
export const refreshTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

export const sessionIdOfRefreshToken = (token: string): string | null => {
  const match = /^([0-9a-f-]{36})\.[A-Za-z0-9_-]{43}$/.exec(token);
  return match ? match[1]! : null;
};

/** "Firefox on Linux": what a list of sessions shows of a user agent. */
export const deviceOf = (userAgent: string | null): string => {
  if (!userAgent) return 'unknown device';
  const browser =
    [
      ['Edg/', 'Edge'],
      ['OPR/', 'Opera'],
      ['Firefox/', 'Firefox'],
      ['Chrome/', 'Chrome'],
      ['Chromium/', 'Chromium'],
      ['Safari/', 'Safari'],
      ['curl/', 'curl'],
      ['python-requests', 'Python requests'],
      ['node', 'Node.js'],
    ].find(([needle]) => userAgent.includes(needle!))?.[1] ?? null;
  const os =
    [
      ['Windows', 'Windows'],
      ['Android', 'Android'],
      ['iPhone', 'iOS'],
      ['iPad', 'iPadOS'],
      ['Mac OS X', 'macOS'],
      ['CrOS', 'ChromeOS'],
      ['Linux', 'Linux'],
    ].find(([needle]) => userAgent.includes(needle!))?.[1] ?? null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? userAgent.slice(0, 60);
};
