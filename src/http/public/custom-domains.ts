import type { Context, Middleware } from 'koa';
import { SLUG_RE } from '../../domain/status-page.ts';
import { HttpError } from '../middleware/errors.ts';
import type { AppState } from '../state.ts';
import type { CachedAnswer, PublicAnswers, PublicKind } from './cache.ts';
import { replyWith } from './reply.ts';

/** A status page's `custom_domain`: `GET /` on that host is the page, as `/summary.json` and
 *  `/feed.atom` are its other forms (its links and assets stay under /status/… on any host).
 *  A request for the deployment's own host (WATCHLOG_PUBLIC_URL), or for a host no page names,
 *  goes on to the dashboard.
 *
 *  It also answers `GET /status/:slug` (and its summary.json and feed.atom) of a published page
 *  from the cache, before the dashboard and the router: every open tab of a page asks for it
 *  every 1.5 s, and matching the path against every route and applying its operation's
 *  declaration cost more than the answer itself (docs/benchmarks.md, "Status page"). It answers
 *  what the route answers (the route's handler replies with the same `replyWith`); anything else
 *  (a query string, a slug that is not one, a page that is not published, another method) goes
 *  on to the route, which answers it as before. */
const KINDS: Readonly<Record<string, PublicKind>> = { '/': 'html', '/summary.json': 'json', '/feed.atom': 'atom' };

const STATUS_PATH = /^\/status\/([^/]+)(\/summary\.json|\/feed\.atom)?$/;
const SUFFIX_KINDS: Readonly<Record<string, PublicKind>> = { '/summary.json': 'json', '/feed.atom': 'atom' };

const send = (ctx: Context, answer: CachedAnswer) => {
  const reply = replyWith(ctx, answer);
  ctx.status = reply.status;
  if (reply.headers) ctx.set(reply.headers);
  if (reply.body !== undefined) ctx.body = reply.body;
};

export const customDomains = (answers: PublicAnswers, publicUrl: string | null): Middleware<AppState> => {
  const own = publicUrl === null ? null : new URL(publicUrl).hostname.toLowerCase();
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path;
    const kind = KINDS[path];
    if (kind === undefined) {
      const status = path.startsWith('/status/') && ctx.querystring === '' ? STATUS_PATH.exec(path) : null;
      if (status === null || !SLUG_RE.test(status[1]!)) return next();
      const answer = await answers.bySlug(status[1]!, status[2] === undefined ? 'html' : SUFFIX_KINDS[status[2]]!);
      if (answer === null) return next();
      return send(ctx, answer);
    }
    const host = ctx.hostname.toLowerCase();
    if (host === own || !host.includes('.')) return next();
    const answer = await answers.byDomain(host, kind);
    if (answer === null) {
      if (kind === 'html') return next();
      throw new HttpError(404, 'not_found', 'status page not found');
    }
    send(ctx, answer);
  };
};
