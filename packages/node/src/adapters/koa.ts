import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identify } from '../identity.ts';
import type { Recorder } from '../recorder.ts';
import { exchanges, noteError, type OnInternalError } from './shared.ts';

/** What the middleware reads from a Koa context (Koa's Context fits, with or without
 *  @koa/router and a body parser). */
export interface KoaContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  originalUrl?: string;
  url: string;
  query?: unknown;
  ip?: string;
  body?: unknown;
  request: { url: string; body?: unknown };
  /** Set by @koa/router: the matched route's template (prefix included). */
  _matchedRoute?: unknown;
  routerPath?: unknown;
  params?: unknown;
}

export type KoaMiddleware<Ctx extends KoaContext> = (ctx: Ctx, next: () => Promise<unknown>) => Promise<void>;

export interface KoaOptions<Ctx> {
  identify?: Identify<Ctx>;
}

const template = (ctx: KoaContext): string | undefined => {
  const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : ctx.routerPath;
  return typeof route === 'string' ? route : undefined;
};

export const koaMiddleware = <Ctx extends KoaContext>(
  recorder: Recorder,
  options: KoaOptions<Ctx>,
  onInternalError: OnInternalError,
): KoaMiddleware<Ctx> => {
  const identify = options.identify;
  return async (ctx, next) => {
    let exchange = null;
    try {
      if (recorder.enabled) {
        exchange = recorder.begin(ctx.method, ctx.req.headers, ctx.res);
        if (exchange) {
          const current = exchange;
          exchanges.set(ctx.req, current);
          // Recorded when the response is over, after Koa's own error handling set the status.
          ctx.res.on('close', () => {
            try {
              const route = template(ctx);
              recorder.finish(
                current,
                {
                  res: ctx.res,
                  route,
                  url: ctx.originalUrl ?? ctx.url,
                  params: route === undefined ? undefined : ctx.params,
                  query: ctx.query,
                  requestBody: ctx.request.body,
                  ip: ctx.ip,
                  userAgent: ctx.req.headers['user-agent'],
                },
                identify,
                ctx,
              );
            } catch (error) {
              onInternalError(error);
            }
          });
        }
      }
    } catch (error) {
      onInternalError(error);
    }
    if (!exchange) {
      await next();
      return;
    }
    try {
      await next();
    } catch (error) {
      noteError(exchange, error);
      throw error;
    }
    if (recorder.captureResponseBody) exchange.responseBody = ctx.body;
  };
};
