/** The dashboard's session renewal (docs/security.md#sessions): the access token is kept in memory
 *  only; a new one comes from `POST /v1/auth/refresh`, which the browser sends the HttpOnly
 *  refresh cookie to. Each refresh token works once and a reused one ends the session, so tabs
 *  (the dashboard's, the reference's) take turns under one Web Lock: the next one sends the
 *  cookie the previous one was given. Without Web Locks (a page served over plain HTTP from
 *  another host than localhost) they go unserialised. */

export interface SignedIn {
  token: string;
  expires_at: string;
  session_id?: string;
}

const LOCK = 'watchlog-refresh';

const ask = async (): Promise<SignedIn | null> => {
  try {
    const res = await fetch('/v1/auth/refresh', { method: 'POST', headers: { Accept: 'application/json' } });
    return res.ok ? ((await res.json()) as SignedIn) : null;
  } catch {
    return null;
  }
};

/** A new access token of this browser's session, or null when it has none (any more). */
export const refreshSession = async (): Promise<SignedIn | null> =>
  typeof navigator !== 'undefined' && navigator.locks !== undefined ? await navigator.locks.request(LOCK, ask) : ask();
