import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type Answer, call, configureApi, type User } from './api.ts';

/** The token lives in memory and in sessionStorage (this tab only, gone when it closes), never in
 *  localStorage: other tabs and later visits do not inherit it. */
const KEY = 'watchlog.session';

/** What a finished sign-in answers, kept as it came. */
export type Stored = Answer<'POST /v1/auth/second-factor'>;
/** What the password step answers: that, or the step that must come next. */
export type LoginStep = Answer<'POST /v1/auth/login'>;

const load = (): Stored | null => {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Stored | null;
    return s !== null && Date.parse(s.expires_at) > Date.now() ? s : null;
  } catch {
    return null;
  }
};

interface Session {
  token: string | null;
  user: User | undefined;
  /** The password step: signed in, or the second factor or enrolment that must come next. */
  login(email: string, password: string): Promise<LoginStep>;
  /** A sign-in finished by a second factor, a passkey or an enrolment. */
  signedIn(answer: Stored): void;
  /** The enrolment token the enrolment operations are called with until one is enrolled. */
  enrolWith(token: string | null): void;
  logout(reason?: string): void;
  /** Why the last session ended, when the server ended it (expired, password changed). */
  endedBecause: string | null;
}

const SessionContext = createContext<Session | null>(null);

export const SessionProvider = ({ children }: { children: ReactNode }) => {
  const [stored, setStored] = useState<Stored | null>(load);
  const [endedBecause, setEndedBecause] = useState<string | null>(null);
  // Kept in memory only: it lives ten minutes and enrols a factor, nothing else.
  const [enrolment, enrolWith] = useState<string | null>(null);
  const client = useQueryClient();

  const logout = useCallback(
    (reason?: string) => {
      sessionStorage.removeItem(KEY);
      setStored(null);
      enrolWith(null);
      setEndedBecause(reason ?? null);
      client.clear();
    },
    [client],
  );

  // Set synchronously so the first queries of a restored session carry the token.
  configureApi(
    () => stored?.token ?? enrolment,
    () => logout('Your session ended (expired, or your password or role changed). Sign in again.'),
  );

  useEffect(() => {
    if (stored === null) return;
    const ms = Date.parse(stored.expires_at) - Date.now();
    const timer = setTimeout(
      () => logout('Your session expired. Sign in again.'),
      Math.max(0, Math.min(ms, 2_147_000_000)),
    );
    return () => clearTimeout(timer);
  }, [stored, logout]);

  const me = useQuery({
    queryKey: ['me', stored?.token],
    queryFn: () => call('GET /v1/auth/me'),
    enabled: stored !== null,
    staleTime: 60_000,
  });

  const signedIn = useCallback((answer: Stored) => {
    sessionStorage.setItem(KEY, JSON.stringify(answer));
    setEndedBecause(null);
    enrolWith(null);
    setStored(answer);
  }, []);

  const login = useCallback(
    async (email: string, password: string) => {
      const answer = await call('POST /v1/auth/login', { body: { email, password } });
      if ('token' in answer) signedIn(answer);
      return answer;
    },
    [signedIn],
  );

  const value = useMemo<Session>(
    () => ({ token: stored?.token ?? null, user: me.data, login, signedIn, enrolWith, logout, endedBecause }),
    [stored, me.data, login, signedIn, logout, endedBecause],
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
