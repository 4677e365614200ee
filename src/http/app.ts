import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { ApiKeyCache } from './middleware/api-key-cache.ts';
import { MaskingCache } from './middleware/masking-cache.ts';
import { requireJwt } from './middleware/auth.ts';
import { UserStateCache } from './middleware/user-cache.ts';
import { loginRecorder } from './login-record.ts';
import { HttpError, errorHandler } from './middleware/errors.ts';
import { accessLog } from './middleware/access-log.ts';
import { healthRoutes } from './routes/health.ts';
import { accessRoutes } from './routes/access.ts';
import { monitorRoutes } from './routes/monitors.ts';
import { channelRoutes } from './routes/channels.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { anomalySettingsRoutes } from './routes/anomaly-settings.ts';
import { maskingRoutes } from './routes/masking.ts';
import { retentionRoutes } from './routes/retention.ts';
import { auditRoutes } from './routes/audit.ts';
import { ingestCors, ingestRoutes } from './routes/ingest.ts';
import { auditorRoutes } from './routes/auditors.ts';
import { IngestRateLimiter } from './middleware/ingest-rate.ts';
import { exportRoutes } from './routes/export.ts';
import { statsRoutes } from './routes/stats.ts';
import type { AppState } from './state.ts';
import type { AppDeps, RouteDeps } from './deps.ts';
import { NO_HTTP_METRICS, metricsRoute, requestMetrics } from './metrics.ts';
import { dashboardMiddleware } from './dashboard.ts';
import { openApiRoute } from './openapi/route.ts';

export const createApp = (deps: AppDeps): Koa<AppState> => {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;

  app.use(accessLog(deps.logger));
  app.use(requestMetrics(deps.metrics ?? NO_HTTP_METRICS));
  // Outside the error handler, so that error answers (400, 401, 429) carry the CORS headers a
  // browser needs to read them.
  app.use(ingestCors());
  app.use(errorHandler(deps.logger));
  if (deps.dashboard !== undefined) app.use(dashboardMiddleware(deps.dashboard));

  // One router: each extra router would match every request's path again.
  const router = new Router<AppState>();
  const users = new UserStateCache(deps.readModels.access);
  const routeDeps: RouteDeps = {
    ...deps,
    apiKeys: new ApiKeyCache(deps.readModels.access),
    ingestRate: new IngestRateLimiter(deps.ingest.ratePerKey),
    users,
    recordLogin: deps.recordLogin ?? loginRecorder(deps.logger, deps.commands),
    maskingRules: new MaskingCache(deps.readModels.masking),
    jwt: requireJwt(deps.jwtSecret, users),
    async caughtUp(readModels, position) {
      const upTo = position ?? (await deps.commands.log.headPosition());
      if (upTo === null || (await deps.settled(readModels, upTo))) return;
      // Recorded, but not visible: answering from the read model would show the old state.
      throw new HttpError(
        503,
        'not_yet_visible',
        `recorded in the log (position ${upTo}), but the ${readModels.join(', ')} read model has not applied it yet: is a worker running? Read it again shortly`,
        [],
        { 'Retry-After': '5' },
      );
    },
  };
  healthRoutes(router, routeDeps);
  ingestRoutes(router, routeDeps);
  exportRoutes(router, routeDeps);
  statsRoutes(router, routeDeps);
  auditRoutes(router, routeDeps);
  accessRoutes(router, routeDeps);
  monitorRoutes(router, routeDeps);
  channelRoutes(router, routeDeps);
  deliveryRoutes(router, routeDeps);
  anomalySettingsRoutes(router, routeDeps);
  maskingRoutes(router, routeDeps);
  retentionRoutes(router, routeDeps);
  auditorRoutes(router, routeDeps);
  if (deps.metricsEndpoint) metricsRoute(router, deps.metricsEndpoint.source, deps.metricsEndpoint.token);
  openApiRoute(router, {
    dashboard: deps.dashboard !== undefined && deps.dashboard !== null,
    metrics: deps.metricsEndpoint !== undefined,
    batchMaxEvents: deps.ingest.batchMaxEvents,
  });
  app.use(router.routes());
  app.use(methodNotAllowed);
  return app;
};

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** After the router, for requests no route took: a path that routes serve, asked with a method
 *  none of them takes, is 405 with `Allow` (OPTIONS: 204 with `Allow`); a path no route serves
 *  is left to the 404. Whatever the method (TRACE, PROPFIND, PURGE…): never a 500, never an
 *  error in the log. HEAD is served wherever GET is (the router's GET routes take it). */
const methodNotAllowed: Middleware<AppState> = (ctx) => {
  const matched = (ctx as { matched?: Array<{ methods: readonly string[] }> }).matched ?? [];
  const methods = new Set(matched.flatMap((layer) => layer.methods));
  if (methods.size === 0) return;
  methods.add('OPTIONS');
  const allow = METHOD_ORDER.filter((m) => methods.has(m)).join(', ');
  ctx.set('Allow', allow);
  if (ctx.method === 'OPTIONS') {
    ctx.status = 204;
    return;
  }
  throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`);
};
