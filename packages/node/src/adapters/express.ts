import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Identify } from '../identity.ts';
import { pathOf, type Exchange, type Recorder } from '../recorder.ts';
import { exchanges, noteError, type OnInternalError } from './shared.ts';

/** What the middleware reads from an Express request (express.Request fits). */
export interface ExpressRequest extends IncomingMessage {
  originalUrl?: string;
  baseUrl?: string;
  route?: { path?: unknown };
  params?: unknown;
  query?: unknown;
  body?: unknown;
  ip?: string;
}

export type ExpressMiddleware<Req extends ExpressRequest> = (
  req: Req,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;
export type ExpressErrorMiddleware = (
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

export interface ExpressOptions<Req> {
  identify?: Identify<Req>;
}

/** A route path made only of literal segments and whole `:name` segments (most are). */
const SIMPLE_SEGMENT = /^(?::[A-Za-z_$][\w$]*|[^:*{}()?+!\\]*)$/;

/** A route path taken apart once: its segments (literals lower-cased, as Express matches them
 *  case-insensitively; param names), or null when it is not simple. */
type Compiled = Array<{ literal: string } | { param: string }> | null;
const compiled = new Map<string, Compiled>();
/** Route paths are few and fixed; past this something generates them, and caching stops. */
const MAX_COMPILED = 10_000;

const compile = (routePath: string): Compiled => {
  let found = compiled.get(routePath);
  if (found !== undefined) return found;
  const segments = routePath.split('/').slice(1);
  if (routePath.endsWith('/')) segments.pop();
  found =
    routePath.startsWith('/') && segments.every((seg) => SIMPLE_SEGMENT.test(seg))
      ? segments.map((seg) => (seg.startsWith(':') ? { param: seg.slice(1) } : { literal: seg.toLowerCase() }))
      : null;
  if (compiled.size < MAX_COMPILED) compiled.set(routePath, found);
  return found;
};

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** Where the matched route sits in this request's URL. Express's router puts `req.baseUrl` and
 *  `req.params` back when an error (or a `next()`) leaves a mounted router, so by the time such a
 *  response is sent they no longer say where the route was mounted; the URL still does. For a
 *  simple route path the last segments of the URL path are the route's: what precedes them is
 *  the mount prefix, and the `:name` segments are its params (merged over what `req.params` still
 *  holds). A URL whose tail does not fit the route (a route that passed the request on) has no
 *  template. Other route paths (wildcards, optional parts) are read as Express leaves them.
 *  Reading the URL afterwards costs little per request; watching the router's assignments (an
 *  accessor on `req`) costs more than the rest of the event. */
export const matchedRoute = (
  routePath: string,
  url: string,
  baseUrl: string | undefined,
  params: unknown,
): { template: string; params: unknown } | undefined => {
  const segments = compile(routePath);
  if (segments === null) return { template: `${baseUrl ?? ''}${routePath}`, params };
  let path = pathOf(url);
  // Express's non-strict routing lets a trailing slash through.
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (segments.length === 0) return { template: path === '/' ? '/' : `${path}/`, params };
  const parts = path.split('/');
  const at = parts.length - segments.length;
  if (at < 1) return undefined;
  const found: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = parts[at + i]!;
    if ('param' in seg) {
      if (part === '') return undefined;
      found[seg.param] = decode(part);
    } else if (seg.literal !== part.toLowerCase()) return undefined;
  }
  const merged = typeof params === 'object' && params !== null ? { ...params, ...found } : found;
  return { template: `${parts.slice(0, at).join('/')}${routePath}`, params: merged };
};

const wrapJson = (res: ServerResponse, exchange: Exchange): void => {
  const r = res as ServerResponse & { json?: (body: unknown) => unknown };
  const json = r.json;
  if (typeof json !== 'function') return;
  r.json = function (this: unknown, body: unknown) {
    exchange.responseBody = body;
    return json.call(this, body);
  };
};

export const expressMiddleware = <Req extends ExpressRequest>(
  recorder: Recorder,
  options: ExpressOptions<Req>,
  onInternalError: OnInternalError,
): ExpressMiddleware<Req> => {
  const identify = options.identify;
  return (req, res, next) => {
    try {
      if (recorder.enabled) {
        const exchange = recorder.begin(req.method, req.headers, res);
        if (exchange) {
          exchanges.set(req, exchange);
          if (recorder.captureResponseBody) wrapJson(res, exchange);
          res.on('close', () => {
            try {
              const url = req.originalUrl ?? req.url ?? '/';
              const path = req.route?.path;
              // A route that answered itself leaves baseUrl and params as they were when it
              // matched; an error or a 404 after it may have found them put back.
              const matched =
                typeof path !== 'string'
                  ? undefined
                  : res.statusCode < 400 && !exchange.error
                    ? { template: req.baseUrl ? req.baseUrl + path : path, params: req.params }
                    : matchedRoute(path, url, req.baseUrl, req.params);
              recorder.finish(
                exchange,
                {
                  res,
                  route: matched?.template,
                  url,
                  params: matched?.params,
                  // Express parses the query again on every read of req.query.
                  query: url.includes('?') ? req.query : undefined,
                  requestBody: req.body,
                  // Without X-Forwarded-For, req.ip is the socket's address whatever 'trust proxy'
                  // says; asking Express would parse the header anyway.
                  ip: req.headers['x-forwarded-for'] === undefined ? req.socket?.remoteAddress : req.ip,
                  userAgent: req.headers['user-agent'],
                },
                identify,
                req,
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
    next();
  };
};

/** Mounted after the routes (before your own error handlers): notes the error for
 *  `error_message`, then passes it on untouched. */
export const expressErrorMiddleware = (): ExpressErrorMiddleware => (error, req, _res, next) => {
  noteError(exchanges.get(req), error);
  next(error);
};
