import Koa, { type Middleware } from 'koa';
import { Admission } from './admission.ts';
import { dashboardMiddleware } from './dashboard.ts';
import type { AppDeps, RouteDeps } from './deps.ts';
import { loginRecorder } from './login-record.ts';
import { NO_HTTP_METRICS, requestMetrics } from './metrics.ts';
import { accessLog } from './middleware/access-log.ts';
import { ApiKeyCache } from './middleware/api-key-cache.ts';
import { KeyUses } from './middleware/key-uses.ts';
import { recordKeyUse } from '../commands/api-key-uses.ts';
import { viewerKeyOf } from './middleware/viewer-auth.ts';
import { factorKeyOf, totpSealKeyOf } from './middleware/factor-tokens.ts';
import { loadEmbedAssets } from './public/embed.ts';
import { requireJwt } from './middleware/auth.ts';
import { HttpError, errorHandler } from './middleware/errors.ts';
import { IngestRateLimiter } from './middleware/ingest-rate.ts';
import { ingestCors } from './middleware/ingest-cors.ts';
import { viewerCors } from './middleware/viewer-cors.ts';
import { MaskingCache } from './middleware/masking-cache.ts';
import { OtlpSettingsCache } from './middleware/otlp-settings-cache.ts';
import { UserStateCache } from './middleware/user-cache.ts';
import { SessionStateCache } from './middleware/session-cache.ts';
import { SsoClients } from './sso/clients.ts';
import { stateKeyOf } from './sso/state.ts';
import { DEFAULT_SESSION_SETTINGS } from '../domain/session.ts';
import { type OpenApiDocument, openApiDocument } from './openapi/document.ts';
import { mount } from './operations/mount.ts';
import { resourceLoaders } from './operations/resources.ts';
import { apiOperations, viewerPaths } from './operations/table.ts';
import { apiHandlers } from './routes/index.ts';
import { PublicAnswers } from './public/cache.ts';
import { customDomains } from './public/custom-domains.ts';
import { subscriptionKey } from '../domain/subscriber.ts';
import { SubscribeRateLimiter } from './middleware/subscribe-rate.ts';
import type { AppState } from './state.ts';

/** Passkeys of a deployment that names no relying party: the dashboard on localhost. */
const DEVELOPMENT_RP = { id: 'localhost', name: 'watchlog', origins: ['http://localhost:3000'] };

export const createApp = (deps: AppDeps): Koa<AppState> => {
  const app = new Koa<AppState>();
  app.proxy = false;
  app.silent = true;
  const operations = apiOperations({ batchMaxEvents: deps.ingest.batchMaxEvents });

  app.use(accessLog(deps.logger));
  app.use(requestMetrics(deps.metrics ?? NO_HTTP_METRICS));
  // Outside the error handler, so that error answers (400, 401, 429) carry the CORS headers a
  // browser needs to read them.
  app.use(ingestCors([...Object.values(operations.ingest).map((op) => op.path), operations.otlp.traces.path]));
  app.use(viewerCors(viewerPaths(operations)));
  app.use(errorHandler(deps.logger));
  const publicAnswers = new PublicAnswers({
    readModels: deps.readModels,
    now: deps.now,
    publicUrl: deps.publicUrl ?? null,
    caughtUp: deps.caughtUp,
    subscriptions: deps.subscriptions ?? false,
  });
  app.use(customDomains(publicAnswers, deps.publicUrl ?? null));
  if (deps.dashboard !== undefined) app.use(dashboardMiddleware(deps.dashboard));

  const users = new UserStateCache(deps.readModels.access);
  const sessionStates = new SessionStateCache(deps.readModels.sessions, deps.now);
  const apiKeys = new ApiKeyCache(deps.readModels.access);
  const keyUses = new KeyUses(
    (key, at, correlationId, capped) =>
      recordKeyUse(deps.commands, key, at, { actor: `key:${key.id}`, correlationId, now: deps.now }, capped),
    deps.now,
    deps.logger,
  );
  // Built at the first request and kept, not at start-up: a codec the walker cannot read fails
  // this endpoint (and its tests), not every process that serves the API.
  let document: OpenApiDocument | undefined;
  const previousSecrets = deps.previousJwtSecrets ?? [];
  const routeDeps: RouteDeps = {
    ...deps,
    apiKeys,
    ingestRate: new IngestRateLimiter(deps.ingest.ratePerKey),
    batches: new Admission(deps.ingest.batchConcurrency, (queued) => deps.metrics?.batchesWaiting(queued)),
    users,
    sessions: deps.sessions ?? DEFAULT_SESSION_SETTINGS,
    sessionStates,
    ssoProvider: deps.ssoProvider ?? null,
    ssoClients: new SsoClients(deps.egress),
    ssoStateKey: stateKeyOf(deps.jwtSecret),
    recordLogin: deps.recordLogin ?? loginRecorder(deps.logger, deps.commands),
    maskingRules: new MaskingCache(deps.readModels.masking),
    otlpSettings: new OtlpSettingsCache(deps.readModels.otlp),
    publicAnswers,
    subscriptionKeys: [deps.jwtSecret, ...previousSecrets].map(subscriptionKey),
    viewerKey: viewerKeyOf(deps.jwtSecret),
    factorKey: factorKeyOf(deps.jwtSecret),
    factorCommands: {
      log: deps.commands.log,
      factorKey: totpSealKeyOf(deps.jwtSecret),
      previousFactorKeys: previousSecrets.map(totpSealKeyOf),
      onUnsealFailed: (userId) =>
        deps.logger.warn(
          { user_id: userId },
          'a TOTP secret does not unseal under WATCHLOG_JWT_SECRET: list the secret it replaced in ' +
            'WATCHLOG_JWT_SECRET_PREVIOUS, or the user signs in another way and enrols again',
        ),
    },
    relyingParty: deps.relyingParty ?? DEVELOPMENT_RP,
    embedAssets: deps.embedAssets ?? loadEmbedAssets(null),
    subscribeRate: new SubscribeRateLimiter(),
    async caughtUp(readModels, position) {
      const upTo = position ?? (await deps.commands.log.headPosition());
      if (upTo === null || (await deps.caughtUp(readModels, upTo))) return;
      // Recorded, but not visible: answering from the read model would show the old state.
      throw new HttpError(
        503,
        'not_yet_visible',
        `recorded in the log (position ${upTo}), but the ${readModels.join(', ')} read model has not ` +
          `applied it yet: is a worker running? Read it again shortly`,
        [],
        { 'Retry-After': '5' },
      );
    },
    openApi: () =>
      (document ??= openApiDocument(operations, {
        dashboard: deps.dashboard !== undefined && deps.dashboard !== null,
        metrics: deps.metricsEndpoint !== undefined,
      })),
  };
  const mounted = mount(
    operations,
    apiHandlers,
    routeDeps,
    {
      jwt: requireJwt(deps.jwtSecret, users, sessionStates),
      resources: resourceLoaders(deps.readModels),
      activeKey: (key) => apiKeys.activeKey(key),
      viewerKey: routeDeps.viewerKey,
      factorKey: routeDeps.factorKey,
      keyUsed: (key, correlationId) => keyUses.used(key, correlationId),
      ...(deps.metricsEndpoint ? { metricsToken: deps.metricsEndpoint.token } : {}),
      literalRefusal: (url) => deps.egress.literalRefusal(url),
      bodyLimitBytes: deps.bodyLimitBytes,
      bodyTimeoutMs: deps.bodyTimeoutMs,
      ...(deps.draining ? { draining: deps.draining } : {}),
      now: deps.now,
      checkAnswers: deps.checkAnswers ?? false,
      logger: deps.logger,
    },
    { metrics: deps.metricsEndpoint !== undefined },
  );
  app.use(mounted.routes);
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
