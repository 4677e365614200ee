import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import type { AppState } from '../state.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Lines that would drown the rest when all is well: health and readiness probes (a container
 *  platform asks every few seconds), metrics scrapes answered (Prometheus scrapes every few
 *  seconds; refused ones are logged) and accepted ingests (the high-volume path; the log itself
 *  records them). */
const routine = (req: IncomingMessage, res: ServerResponse) =>
  req.url === '/healthz' || req.url === '/readyz' || (req.url === '/metrics' && res.statusCode === 200)
  || (req.method === 'POST' && (req.url === '/v1/audit' || req.url?.startsWith('/v1/audit/batch')) && res.statusCode === 202);

/** A batch sent by `navigator.sendBeacon` carries its API key in the URL: never logged. */
const API_KEY_PARAMETER = /([?&]api_key=)[^&]*/gi;
export const loggedUrl = (url: string): string => (url.includes('api_key=') ? url.replace(API_KEY_PARAMETER, '$1[hidden]') : url);

/** The access log, by pino-http's conventions: one line per response with the request id (the
 *  client's `X-Request-Id` when it is sane, else a new uuid, echoed on the response), method,
 *  URL, status and `responseTime` in ms. Server errors at error (503, a temporary refusal, at
 *  warn), the routine at debug, the rest at info. Headers are never logged: they carry tokens and
 *  API keys (and so does a beacon's `api_key` parameter, hidden in the URL logged). */
export const accessLog = (logger: Logger): Middleware<AppState> => {
  const log = pinoHttp({
    logger,
    genReqId(req, res) {
      const given = req.headers['x-request-id'];
      const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // 503 is a known, temporary refusal (a writer restarting, a read model behind): warn.
    customLogLevel: (req, res) => (res.statusCode === 503 ? 'warn' : res.statusCode >= 500 ? 'error' : routine(req, res) ? 'debug' : 'info'),
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request failed',
    // pino-http makes up an Error for every 5xx; the error handler has logged the real one.
    customErrorObject: (_req, _res, _err, value: Record<string, unknown>) => {
      const { err: _, ...rest } = value;
      return rest;
    },
    serializers: {
      req: (req: { id: unknown; method: string; url: string }) => ({ id: req.id, method: req.method, url: loggedUrl(req.url) }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    quietReqLogger: true,
  });
  return async (ctx, next) => {
    log(ctx.req, ctx.res);
    ctx.state.correlationId = String(ctx.req.id);
    await next();
  };
};
