import Koa from 'koa';
import type { Logger } from 'pino';
import { accessLog } from './middleware/access-log.ts';
import { errorHandler } from './middleware/errors.ts';
import { metricsOperations } from './operations/metrics.ts';
import { mount } from './operations/mount.ts';
import { metricsHandlers } from './routes/metrics.ts';
import type { AppState } from './state.ts';

/** What the HTTP app tells the service's metrics, and how it serves them. The metrics library
 *  lives in src/compose/ (one registry per process); routes only see these interfaces. */

export interface HttpMetrics {
  /** An ingest request (`POST /v1/audit`) was answered with `status` after `seconds`. */
  ingested(status: number, seconds: number): void;
  /** A read request (`GET` or `HEAD` under `/v1/`) of the route `route` (its template, such as
   *  `/v1/audit/:id`, never the URL) was answered after `seconds`. */
  queried(route: string, seconds: number): void;
  /** A batch (`POST /v1/audit/batch`) was answered with `status`; `events`: its events accepted
   *  and rejected, when its body was decoded (null when the batch was refused whole first). */
  batchIngested(status: number, events: { accepted: number; rejected: number } | null): void;
  /** Spans of an OTLP export not recorded, by reason (skipped, or `invalid`: refused). */
  otlpSpansDropped(reason: string, spans: number): void;
  /** How many batches wait for their turn (WATCHLOG_BATCH_CONCURRENCY), each time it changes. */
  batchesWaiting(count: number): void;
}

export const NO_HTTP_METRICS: HttpMetrics = {
  ingested: () => undefined,
  queried: () => undefined,
  batchIngested: () => undefined,
  batchesWaiting: () => undefined,
  otlpSpansDropped: () => undefined,
};

/** Measures ingests and read requests. Between the access log and the error handler, so that it
 *  sees the status every answer ends with. The route is the router's template, never the URL: a
 *  label of bounded values. */
export const requestMetrics =
  (metrics: HttpMetrics): Koa.Middleware<AppState> =>
  async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      if (route === '/v1/audit' && ctx.method === 'POST') metrics.ingested(ctx.status, seconds);
      else if (route === '/v1/audit/batch' && ctx.method === 'POST')
        metrics.batchIngested(ctx.status, ctx.state.batchEvents ?? null);
      else if (typeof route === 'string' && route.startsWith('/v1/') && (ctx.method === 'GET' || ctx.method === 'HEAD'))
        metrics.queried(route, seconds);
    }
  };

/** The exposition of this process's metrics, in the Prometheus text format. */
export interface MetricsSource {
  scrape(): Promise<{ contentType: string; body: string }>;
}

/** The metrics endpoint reads no body. */
const UNBODIED = { bodyLimitBytes: 0, bodyTimeoutMs: 0 };

/** The metrics port (`WATCHLOG_METRICS_PORT`): `/metrics` and nothing else, errors in the API's
 *  shape. */
export const createMetricsApp = (source: MetricsSource, token: string | undefined, logger: Logger): Koa<AppState> => {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  app.use(accessLog(logger));
  app.use(errorHandler(logger));
  const mounted = mount(
    { metrics: metricsOperations },
    { metrics: metricsHandlers },
    { metricsEndpoint: { source } },
    { ...(token === undefined ? {} : { metricsToken: token }), ...UNBODIED, now: () => new Date(), logger },
  );
  app.use(mounted.routes);
  app.use(mounted.allowedMethods);
  return app;
};
