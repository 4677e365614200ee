/** An origin and a path prefix; a bare origin has the prefix `/`. */
export interface Prefix {
  origin: string;
  path: string;
}

export const toPrefix = (u: URL): Prefix => ({ origin: u.origin, path: u.pathname });

/** Whole path segments only: `/api` covers `/api` and `/api/orders`, not `/apiary`. */
export const isUnder = (u: URL, p: Prefix): boolean =>
  u.origin === p.origin &&
  (u.pathname === p.path || u.pathname.startsWith(p.path.endsWith('/') ? p.path : `${p.path}/`));

/** A call is recorded when it goes to a configured backend, and never when it goes to watchlog
 *  itself (the SDK's own deliveries, or the page talking to watchlog). */
export const isRecorded = (u: URL, backends: readonly Prefix[], watchlog: Prefix): boolean =>
  !isUnder(u, watchlog) && backends.some((b) => isUnder(u, b));
