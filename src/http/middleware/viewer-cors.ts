import type { Middleware } from 'koa';
import type { AppState } from '../state.ts';

/** Cross-origin reads with a viewer token (`<watchlog-audit-log>` on a SaaS's own pages). A
 *  preflight carries no token, so it is answered for any origin; the answer to the read itself is
 *  shared with a page only when the token names that page's origin (its project's keys' origins),
 *  and errors always (they hold no event, and the component must see a 401 to ask for a new
 *  token). Reads by users and keys stay same-origin, as before. */
export const viewerCors = (paths: readonly string[]): Middleware<AppState> => {
  const matchers = paths.map((path) => new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`));
  const served = (path: string) => matchers.some((re) => re.test(path));
  return async (ctx, next) => {
    const origin = ctx.get('Origin');
    if (origin === '' || !served(ctx.path)) return next();
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') !== '') {
      ctx.set({
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Methods': 'GET, HEAD',
        'Access-Control-Allow-Headers': 'Authorization, Accept',
        'Access-Control-Max-Age': '600',
      });
      ctx.status = 204;
      return;
    }
    await next();
    const grant = ctx.state.principal?.viewer;
    if (ctx.status >= 400 || grant?.origins.includes(origin.toLowerCase())) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set(
        'Access-Control-Expose-Headers',
        'Content-Disposition, X-Export-Total, X-Export-Truncated, WWW-Authenticate, X-Request-Id',
      );
    }
  };
};
