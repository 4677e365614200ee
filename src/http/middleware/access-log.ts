import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AppState } from '../state.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Lines that would drown the rest when all is well: health and readiness probes (a container
 *  platform asks every few seconds), metrics scrapes answered (Prometheus scrapes every few
 *  seconds; refused ones are logged) and accepted ingests (the high-volume path; the log itself
 *  records them). */
const routine = (req: IncomingMessage, res: ServerResponse) =>
  req.url === '/healthz' ||
  req.url === '/readyz' ||
  (req.url === '/metrics' && res.statusCode === 200) ||
  (req.method === 'POST' &&
    (req.url === '/v1/audit' || req.url?.startsWith('/v1/audit/batch')) &&
    res.statusCode === 202);

/** A batch sent by `navigator.sendBeacon` carries its API key in the URL, and `/embed` its viewer
 *  token: never logged. */
const SECRET_PARAMETER = /([?&](?:api_key|token)=)[^&]*/gi;
export const loggedUrl = (url: string): string =>
  url.includes('api_key=') || url.includes('token=') ? url.replace(SECRET_PARAMETER, '$1[hidden]') : url;

/** The access log, by pino-http's conventions: one line per response with the request id (the
 *  client's `X-Request-Id` when it is sane, else a new uuid, echoed on the response), method,
 *  URL, status and `responseTime` in ms, as "request" ("request failed" for a server error or a
 *  response cut short). Server errors at error (503, a temporary refusal, at warn), the routine at
 *  debug, the rest at info. Headers are never logged: they carry tokens and API keys (and so does
 *  a beacon's `api_key` parameter, hidden in the URL logged).
 *
 *  Written here rather than with pino-http, which makes a child logger for every request: on the
 *  ingest path that was ~6 % of the HTTP thread, for lines that are mostly not written. */
export const accessLog =
  (logger: Logger): Middleware<AppState> =>
  async (ctx, next) => {
    const started = performance.now();
    const { req, res } = ctx;
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    ctx.state.correlationId = id;
    // 'close' follows every response, finished or cut short.
    res.once('close', () => {
      const status = res.statusCode;
      const level = status === 503 ? 'warn' : status >= 500 ? 'error' : routine(req, res) ? 'debug' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const failed = status >= 500 || !res.writableFinished;
      logger[level](
        {
          reqId: id,
          req: { id, method: req.method, url: loggedUrl(req.url ?? '') },
          res: { statusCode: status },
          responseTime: Math.round(performance.now() - started),
        },
        failed ? 'request failed' : 'request',
      );
    });
    await next();
  };
