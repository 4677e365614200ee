import type { Middleware } from 'koa';
import { HttpError } from '../middleware/errors.ts';
import type { AppState } from '../state.ts';
import type { PublicAnswers, PublicKind } from './cache.ts';
import { replyWith } from './reply.ts';

/** A status page's `custom_domain`: `GET /` on that host is the page, as `/summary.json` and
 *  `/feed.atom` are its other forms (its links and assets stay under /status/… on any host).
 *  A request for the deployment's own host (WATCHLOG_PUBLIC_URL), or for a host no page names,
 *  goes on to the dashboard. */
const KINDS: Readonly<Record<string, PublicKind>> = { '/': 'html', '/summary.json': 'json', '/feed.atom': 'atom' };

export const customDomains = (answers: PublicAnswers, publicUrl: string | null): Middleware<AppState> => {
  const own = publicUrl === null ? null : new URL(publicUrl).hostname.toLowerCase();
  return async (ctx, next) => {
    const kind = KINDS[ctx.path];
    const host = ctx.hostname.toLowerCase();
    if (kind === undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD') || host === own || !host.includes('.'))
      return next();
    const answer = await answers.byDomain(host, kind);
    if (answer === null) {
      if (kind === 'html') return next();
      throw new HttpError(404, 'not_found', 'status page not found');
    }
    const reply = replyWith(ctx, answer);
    ctx.status = reply.status;
    if (reply.headers) ctx.set(reply.headers);
    if (reply.body !== undefined) ctx.body = reply.body;
  };
};
