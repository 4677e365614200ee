import Koa, { type Middleware } from 'koa';
import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CommandDeps } from '../commands/context.ts';
import type { EventLog } from '../log/event-log.ts';
import type { ReadModels } from '../views/ports.ts';
import { ApiKeyCache } from './api-key-cache.ts';
import { requireJwt } from './auth.ts';
import { errorHandler } from './errors.ts';
import { accessRoutes } from './routes/access.ts';
import { monitorRoutes } from './routes/monitors.ts';
import { channelRoutes } from './routes/channels.ts';
import { anomalySettingsRoutes } from './routes/anomaly-settings.ts';
import type { AnomalySettings } from '../domain/anomaly-settings.ts';
import { auditRoutes } from './routes/audit.ts';
import { exportRoutes } from './routes/export.ts';
import { statsRoutes } from './routes/stats.ts';
import type { AppState } from './state.ts';

export interface AppDeps {
  readonly log: EventLog;
  readonly readModels: ReadModels;
  readonly commands: CommandDeps;
  readonly logger: Logger;
  readonly jwtSecret: string;
  readonly jwtTtlSeconds: number;
  readonly bodyLimitBytes: number;
  /** The VAPID public key browsers subscribe with. */
  readonly vapidPublicKey: string;
  /** The deployment's anomaly settings, under each project's own. */
  readonly anomalyDefaults: AnomalySettings;
  readonly now: () => Date;
}

/** What the routes get: the app's dependencies plus what the app builds once for all of them. */
export interface RouteDeps extends AppDeps {
  readonly apiKeys: ApiKeyCache;
  /** JWT verification and principal decoding, to put in front of every protected route. */
  readonly jwt: Middleware<AppState>[];
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export const createApp = (deps: AppDeps): Koa<AppState> => {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;

  // Correlation id and access log. Accepted ingests are logged at debug: they are the
  // high-volume path and the log itself records them.
  const debug = deps.logger.isLevelEnabled('debug');
  app.use(async (ctx, next) => {
    const started = performance.now();
    const given = ctx.get('x-request-id');
    ctx.state.correlationId = REQUEST_ID.test(given) ? given : randomUUID();
    ctx.set('X-Request-Id', ctx.state.correlationId);
    try {
      await next();
    } finally {
      const entry = {
        req_id: ctx.state.correlationId, method: ctx.method, path: ctx.path, status: ctx.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      if (ctx.status !== 202 || ctx.path !== '/v1/audit') deps.logger.info(entry, 'request');
      else if (debug) deps.logger.debug(entry, 'request');
    }
  });
  app.use(errorHandler(deps.logger));

  // One router: each extra router would match every request's path again.
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  const routeDeps: RouteDeps = { ...deps, apiKeys: new ApiKeyCache(deps.readModels.access), jwt: requireJwt(deps.jwtSecret) };
  exportRoutes(router, routeDeps);
  statsRoutes(router, routeDeps);
  auditRoutes(router, routeDeps);
  accessRoutes(router, routeDeps);
  monitorRoutes(router, routeDeps);
  channelRoutes(router, routeDeps);
  anomalySettingsRoutes(router, routeDeps);
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
};
