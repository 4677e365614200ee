import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type Answer, call, configureApi, type User } from './api.ts';
import { refreshSession, type SignedIn } from './refresh.ts';

/** The access token lives in memory only (never in sessionStorage or localStorage, where a script
 *  injected into the page could read it): a reload, another tab, a later visit get theirs from
 *  the HttpOnly refresh cookie (refresh.ts), renewed a minute before each token expires. */

/** What the password step answers: signed in, or the second factor or enrolment that must come next. */
export type LoginStep = Answer<'POST /v1/auth/login'>;

/** When a token is renewed: a minute before it expires, and no later than 80 % into its life (a
 *  short one is not renewed at once, over and over). */
const renewIn = (expiresAt: string): number => {
  const left = Date.parse(expiresAt) - Date.now();
  return Math.max(left * 0.8, left - 60_000);
};

interface Session {
  token: string | null;
  /** False until the first renewal has said whether this browser has a session. */
  ready: boolean;
  user: User | undefined;
  /** The password step: signed in, or the second factor or enrolment that must come next. */
  login(email: string, password: string): Promise<LoginStep>;
  /** A sign-in finished by a second factor, a passkey or an enrolment. */
  signedIn(answer: SignedIn): void;
  /** The enrolment token the enrolment operations are called with until one is enrolled. */
  enrolWith(token: string | null): void;
  logout(reason?: string): void;
  /** Why the last session ended, when the server ended it (expired, password changed). */
  endedBecause: string | null;
}

const SessionContext = createContext<Session | null>(null);

const ENDED = 'Your session ended (expired, signed out elsewhere, or your password or role changed). Sign in again.';

export const SessionProvider = ({ children }: { children: ReactNode }) => {
  const [stored, setStored] = useState<SignedIn | null>(null);
  const [ready, setReady] = useState(false);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  // Kept in memory only: it lives ten minutes and enrols a factor, nothing else.
  const [enrolment, enrolWith] = useState<string | null>(null);
  const client = useQueryClient();

  const forget = useCallback(
    (reason?: string) => {
      setStored(null);
      enrolWith(null);
      setEndedBecause(reason ?? null);
      client.clear();
    },
    [client],
  );

  const logout = useCallback(
    (reason?: string) => {
      // Ends the session on the server (its tokens refused, the cookie cleared); a failure leaves
      // it to expire.
      if (stored !== null && reason === undefined) void call('POST /v1/auth/logout').catch(() => undefined);
      forget(reason);
    },
    [stored, forget],
  );

  // Set synchronously so the first queries of a restored session carry the token.
  configureApi(
    () => stored?.token ?? enrolment,
    () => forget(ENDED),
  );

  useEffect(() => {
    let live = true;
    void refreshSession().then((signedIn) => {
      if (!live) return;
      setStored(signedIn);
      setReady(true);
    });
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    if (stored === null) return;
    const ms = renewIn(stored.expires_at);
    const timer = setTimeout(
      () =>
        void refreshSession().then((signedIn) => {
          if (signedIn === null) forget(ENDED);
          else setStored(signedIn);
        }),
      Math.max(0, Math.min(ms, 2_147_000_000)),
    );
    return () => clearTimeout(timer);
  }, [stored, forget]);

  const me = useQuery({
    queryKey: ['me', stored?.session_id],
    queryFn: () => call('GET /v1/auth/me'),
    enabled: stored !== null,
    staleTime: 60_000,
  });

  const signedIn = useCallback((answer: SignedIn) => {
    setEndedBecause(null);
    enrolWith(null);
    setStored(answer);
  }, []);

  const login = useCallback(
    async (email: string, password: string) => {
      const answer = await call('POST /v1/auth/login', { body: { email, password, cookie: true } });
      if ('token' in answer) signedIn(answer);
      return answer;
    },
    [signedIn],
  );

  const value = useMemo<Session>(
    () => ({ token: stored?.token ?? null, ready, user: me.data, login, signedIn, enrolWith, logout, endedBecause }),
    [stored, ready, me.data, login, signedIn, logout, endedBecause],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
};

export const useSession = (): Session => {
  const s = useContext(SessionContext);
  if (s === null) throw new Error('useSession outside SessionProvider');
  return s;
};

/** Whether the signed-in user may change things in projects (admins and members). */
export const useCanWrite = (): boolean => {
  const role = useSession().user?.role;
  return role === 'admin' || role === 'member';
};
