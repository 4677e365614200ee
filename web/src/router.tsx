import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/** A tiny history router: every screen is a URL (shareable links), nothing else to install. */

const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
};
const snapshot = () => window.location.pathname + window.location.search;

export const navigate = (to: string, { replace = false }: { replace?: boolean } = {}) => {
  if (to === snapshot()) return;
  if (replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const l of listeners) l();
  // After the new screen is drawn: scrolling now would lay out the old one first, for nothing.
  requestAnimationFrame(() => window.scrollTo(0, 0));
};

export interface Location {
  path: string;
  search: URLSearchParams;
}

export const useLocation = (): Location => {
  const href = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(href, window.location.origin);
  return { path: url.pathname, search: url.searchParams };
};

/** The query string as state: `set` replaces the URL's parameters (empty values dropped). */
export const useSearchParams = (): [
  URLSearchParams,
  (next: Record<string, string | undefined>, opts?: { replace?: boolean }) => void,
] => {
  const { path, search } = useLocation();
  const set = (next: Record<string, string | undefined>, { replace = false } = {}) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v !== undefined && v !== '') params.set(k, v);
    const qs = params.toString();
    navigate(qs === '' ? path : `${path}?${qs}`, { replace });
  };
  return [search, set];
};

/** Matches `/p/:projectId/events/:id` against a path; the params, or null. */
export const match = (pattern: string, path: string): Record<string, string> | null => {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return null;
  }
  return params;
};

export const Link = ({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) => (
  <a
    href={to}
    {...rest}
    onClick={(e: MouseEvent<HTMLAnchorElement>) => {
      onClick?.(e);
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(to);
    }}
  />
);
