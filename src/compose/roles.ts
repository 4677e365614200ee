import { applyServerHeapSettings } from './heap.ts';
import type http from 'node:http';
import { once } from 'node:events';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createApp } from '../http/app.ts';
import type { ChannelTester } from '../http/deps.ts';
import { sendOnce } from '../reactors/notifications/send.ts';
import { loadDashboard } from '../http/dashboard.ts';
import { loadEmbedAssets } from '../http/public/embed.ts';
import { DRAINING_BODY_TIMEOUT_MS } from '../http/middleware/body.ts';
import { HttpServer, type DrainOptions } from '../server/http-server.ts';
import { ensureAdmin } from './bootstrap.ts';
import { ProjectorThread } from './projector-thread.ts';
import { startProjectors } from './projectors.ts';
import { sinkStatusOf } from '../reactors/sinks/status.ts';
import { readinessProbe, watchForProjectors } from './readiness.ts';
import { followViews } from './views-generation.ts';
import { openRuntime, watchRuntime, type Runtime } from './runtime.ts';
import { StartupError } from '../startup-error.ts';
import { startWorkerJobs } from './jobs.ts';
import { createTelemetry, type Telemetry } from '../metrics/registry.ts';
import { startMetricsServer } from '../metrics/server.ts';
import type { SubscriberMailSettings } from '../reactors/status-pages/reactor.ts';

/** What a process runs: `start` everything in one process, `api` the HTTP API only (any number
 *  of them), `worker` the projectors, the notification reactor and the Agenda jobs. */
export type Role = 'start' | 'api' | 'worker';

type AppConfig = Pick<
  Config,
  | 'previousJwtSecrets'
  | 'jwtTtlSeconds'
  | 'sessions'
  | 'sso'
  | 'bodyLimitBytes'
  | 'ingest'
  | 'anomalyDefaults'
  | 'readyMaxLagMs'
  | 'checkAnswers'
  | 'metrics'
  | 'http'
  | 'dashboardDir'
  | 'viewerBundle'
  | 'notifications'
  | 'vapidSubject'
  | 'subscriberMail'
  | 'relyingParty'
>;

/** `POST /v1/channels/:id/test`: one try with the reactor's senders, from this process. */
const channelTester =
  (runtime: Runtime, config: AppConfig): ChannelTester =>
  async (target, notification) => {
    const started = performance.now();
    const answer = await sendOnce(target, notification, {
      egress: runtime.egress,
      publicUrl: config.notifications.publicUrl,
      vapid: runtime.vapid,
      vapidSubject: config.vapidSubject,
      timeoutMs: 10_000,
    });
    return {
      ok: answer.ok,
      status: answer.status,
      response: answer.response,
      error: answer.error,
      duration_ms: Math.round(performance.now() - started),
    };
  };

/** What the app is told by the process around it. */
interface AppContext {
  /** The admin exists (readiness waits for it). */
  bootstrapped: () => boolean;
  /** With it, requests are measured, and with a metrics token configured `GET /metrics` is served. */
  telemetry?: Telemetry;
  /** Aborted when the app's server starts draining. */
  draining?: AbortSignal;
}

/** The HTTP app on a runtime. */
export const appFor = (
  runtime: Runtime,
  config: AppConfig,
  logger: Logger,
  now: () => Date,
  { bootstrapped, telemetry, draining }: AppContext,
) =>
  createApp({
    readiness: readinessProbe(runtime, { maxLagMs: config.readyMaxLagMs, bootstrapped, clock: now }),
    checkAnswers: config.checkAnswers,
    ...(telemetry ? { metrics: telemetry } : {}),
    ...(telemetry && config.metrics.token !== undefined
      ? { metricsEndpoint: { source: telemetry, token: config.metrics.token } }
      : {}),
    readModels: runtime.readModels,
    commands: runtime.commands,
    loginThrottle: runtime.loginThrottle,
    caughtUp: (readModels, position) => runtime.caughtUp(readModels, position, 5000),
    logger,
    jwtSecret: runtime.jwtSecret,
    previousJwtSecrets: config.previousJwtSecrets,
    jwtTtlSeconds: config.jwtTtlSeconds,
    sessions: config.sessions,
    ssoProvider: config.sso,
    bodyLimitBytes: config.bodyLimitBytes,
    ingest: config.ingest,
    checkpointKey: runtime.checkpointSigner,
    vapidPublicKey: runtime.vapid.publicKey,
    publicUrl: config.notifications.publicUrl,
    egress: runtime.egress,
    testChannel: channelTester(runtime, config),
    sinkStatus: (view) => sinkStatusOf({ log: runtime.log, states: runtime.reactorStates.sinks, now }, view),
    anomalyDefaults: config.anomalyDefaults,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    ...(draining ? { draining } : {}),
    dashboard: loadDashboard(config.dashboardDir),
    embedAssets: loadEmbedAssets(config.viewerBundle),
    subscriptions: config.subscriberMail !== null,
    relyingParty: config.relyingParty,
    now,
  });

/** The app behind a server with the configured timeouts and connection limit, and its drain. */
export const httpServerFor = (
  runtime: Runtime,
  config: AppConfig,
  logger: Logger,
  now: () => Date,
  context: Omit<AppContext, 'draining'>,
): HttpServer =>
  new HttpServer(config.http, logger, (draining) =>
    appFor(runtime, config, logger, now, { ...context, draining }).callback(),
  );

/** The HTTP drain's share of a shutdown of `shutdownTimeoutMs`: a connection still sending its
 *  headers gets as long as a stalled body does during a drain (1 s); connections still open at
 *  80 % of the timeout are closed, which leaves the rest to the projectors' last batch and the
 *  stores. */
export const drainOptionsFor = (shutdownTimeoutMs: number): DrainOptions => ({
  graceMs: DRAINING_BODY_TIMEOUT_MS,
  deadlineMs: Math.floor(shutdownTimeoutMs * 0.8),
});

/** Listens; resolves to the port (PORT=0 picks a free one). */
const listen = async (server: http.Server, config: Config): Promise<number> => {
  server.listen(config.port, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use (set PORT)`
        : `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`,
    );
  }
  const address = server.address();
  return typeof address === 'object' && address ? address.port : config.port;
};

/** A server URL as it may be logged: without its password. */
const withoutPassword = (url: string): string => url.replace(/^([a-z+]+:\/\/[^:/@]+):[^@/]*@/i, '$1:***@');

/** The one start-up line: what runs in this process and on what. */
const startupFields = (role: Role, config: Config, version: string, port: number | null, onThread: boolean) => ({
  version,
  role,
  ...(port === null ? {} : { url: `http://${config.host}:${port}`, host: config.host, port }),
  data_dir: config.dataDir,
  log: config.eventStoreUrl === undefined ? 'sqlite (log.db)' : `kurrentdb ${withoutPassword(config.eventStoreUrl)}`,
  read_models: config.mongoUrl === undefined ? 'sqlite (views.db)' : `mongodb ${withoutPassword(config.mongoUrl)}`,
  runs: [
    ...(role === 'worker' ? [] : ['api']),
    ...(role === 'api' ? [] : [onThread ? 'projectors (own thread)' : 'projectors', 'jobs', 'notifications']),
  ],
});

/** The steps of a shutdown: what each is waiting for while it runs (described when the timeout
 *  passes with it still open), and how long each took. */
class ShutdownSteps {
  private readonly open = new Map<string, () => unknown>();
  readonly took: Record<string, number> = {};

  async run<T>(name: string, describe: () => unknown, work: () => Promise<T>): Promise<T> {
    const started = performance.now();
    this.open.set(name, describe);
    try {
      return await work();
    } finally {
      this.open.delete(name);
      this.took[name] = Math.round(performance.now() - started);
    }
  }

  stillOpen(): Record<string, unknown> {
    return Object.fromEntries([...this.open].map(([name, describe]) => [name, describe()]));
  }
}

/** Runs `stop` on the first SIGTERM or SIGINT and exits 0 when it is done. Past
 *  WATCHLOG_SHUTDOWN_TIMEOUT_MS it logs what was still open and exits 1. */
const onSignals = (
  logger: Logger,
  config: Config,
  stop: (steps: ShutdownSteps) => Promise<Record<string, unknown>>,
) => {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    const started = performance.now();
    const steps = new ShutdownSteps();
    logger.info({ signal, timeout_ms: config.shutdownTimeoutMs }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error(
        { timeout_ms: config.shutdownTimeoutMs, still_open: steps.stillOpen(), steps_ms: steps.took },
        'shutdown timed out',
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    stop(steps).then(
      (report) => {
        logger.info({ ms: Math.round(performance.now() - started), steps_ms: steps.took, ...report }, 'stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
};

/** The status pages' reactor's settings: the links' secret and, with WATCHLOG_SMTP_HOST (which
 *  the configuration allows only with WATCHLOG_PUBLIC_URL), how subscribers are mailed. */
export const pageEffectsOf = (
  config: Pick<Config, 'subscriberMail' | 'notifications'>,
  runtime: Pick<Runtime, 'jwtSecret'>,
): { jwtSecret: string; subscriberMail: SubscriberMailSettings | null } => {
  const { subscriberMail: mail, notifications } = config;
  return {
    jwtSecret: runtime.jwtSecret,
    subscriberMail:
      mail === null || notifications.publicUrl === null ? null : { ...mail, publicUrl: notifications.publicUrl },
  };
};

/** The checkpoint sealer's settings, as the projectors (on this thread or theirs) take them. */
export const checkpointsOf = (config: Pick<Config, 'checkpoints'>, runtime: Pick<Runtime, 'checkpointSeed'>) => ({
  seed: runtime.checkpointSeed,
  logOrigin: config.checkpoints.logOrigin,
  intervalMs: config.checkpoints.intervalMs,
  witnesses: { url: config.checkpoints.witnessUrl, file: config.checkpoints.witnessFile },
});

/** Runs a role until SIGTERM or SIGINT; resolves once it runs, with the port its API listens on
 *  (null for a worker). */
export const serve = async (
  role: Role,
  config: Config,
  logger: Logger,
  version: string,
): Promise<{ port: number | null; bootstrapped: Promise<void> }> => {
  applyServerHeapSettings();
  const telemetry = createTelemetry({ role, version, logger });
  const runtime = await openRuntime(config, { logger, observer: telemetry });
  watchRuntime(telemetry, runtime, { projections: role !== 'api' });
  const projectorsConfig = {
    leaseTtlMs: config.projectionLeaseMs,
    vapid: runtime.vapid,
    vapidSubject: config.vapidSubject,
    ...config.notifications,
    ...pageEffectsOf(config, runtime),
    checkpoints: checkpointsOf(config, runtime),
  };
  // `start` keeps the HTTP event loop free of the embedded read models' synchronous writes by
  // projecting on a thread; a `worker` process, or MongoDB's asynchronous writes, need none.
  const onThread = role === 'start' && runtime.embeddedReadModels;
  const startOwnProjectors = () =>
    startProjectors(runtime, logger, { ...projectorsConfig, egress: runtime.egress, metrics: telemetry });
  let projectors = ((): { stop(): Promise<void> } | null => {
    if (role === 'api') return null;
    if (!onThread) return startOwnProjectors();
    const thread = new ProjectorThread(
      {
        dataDir: config.dataDir,
        eventStoreUrl: config.eventStoreUrl,
        eventStoreNamespace: config.eventStoreNamespace,
        mongoUrl: config.mongoUrl,
        logLevel: config.logLevel,
        ...projectorsConfig,
        egress: config.egress,
      },
      runtime,
      logger,
      telemetry,
    ); // the thread reports its deliveries and commits by message
    thread.start();
    return thread;
  })();
  // A rebuild published new read models (`watchlog rebuild`): the projectors finish their batch
  // on the old ones, every reader moves, and the projectors go on from the new ones' checkpoints.
  const switchViews = runtime.switchViews;
  const following =
    switchViews === null
      ? null
      : followViews(config.dataDir, logger, async () => {
          const running = projectors;
          if (running instanceof ProjectorThread) {
            await switchViews();
            await running.restart();
            return;
          }
          await running?.stop();
          await switchViews();
          if (running) projectors = startOwnProjectors();
        });
  // Checks start once the API listens: a monitor of watchlog's own endpoints must find them up.
  let jobs: Awaited<ReturnType<typeof startWorkerJobs>> | null =
    role === 'worker' ? await startWorkerJobs(runtime, config, logger, { metrics: telemetry }) : null;
  const metricsServer = await startMetricsServer(telemetry, config, logger);
  let server: HttpServer | null = null;
  // HTTP drains while the jobs stop (both still append to the log); then the projectors finish
  // their batch and release their leases; then the stores close.
  onSignals(logger, config, async (steps) => {
    const web = server;
    const running = jobs;
    const [drained] = await Promise.all([
      web
        ? steps.run(
            'http',
            () => web.openNow(),
            () => web.drain(drainOptionsFor(config.shutdownTimeoutMs)),
          )
        : null,
      running
        ? steps.run(
            'jobs',
            () => ({ running: running.jobs.runningNow() }),
            () => running.stop(),
          )
        : null,
      metricsServer
        ? steps.run(
            'metrics',
            () => 'closing',
            () => metricsServer.close(),
          )
        : null,
    ]);
    following?.stop();
    const projecting = projectors;
    if (projecting)
      await steps.run(
        'projectors',
        () => 'finishing their batch',
        () => projecting.stop(),
      );
    await steps.run(
      'stores',
      () => 'closing',
      () => runtime.close(),
    );
    return drained ? { http: drained } : {};
  });
  const metricsFields = metricsServer ? { metrics_url: metricsServer.url } : {};
  if (role === 'worker') {
    if (!metricsServer && config.metrics.token !== undefined)
      logger.warn(
        'WATCHLOG_METRICS_TOKEN is set, but a worker has no HTTP server: it serves metrics only on ' +
          'WATCHLOG_METRICS_PORT',
      );
    logger.info(
      {
        ...startupFields(role, config, version, null, false),
        ...metricsFields,
        projections: runtime.runners.map((r) => r.name),
      },
      'worker started',
    );
    return { port: null, bootstrapped: Promise.resolve() };
  }
  let bootstrapped = false;
  server = httpServerFor(runtime, config, logger, () => new Date(), { bootstrapped: () => bootstrapped, telemetry });
  const port = await listen(server.server, config);
  if (role === 'start') jobs = await startWorkerJobs(runtime, config, logger, { metrics: telemetry });
  logger.info({ ...startupFields(role, config, version, port, onThread), ...metricsFields }, 'listening');
  // After listening: on a fresh read store the admin check waits for the projectors' replay.
  const admin = ensureAdmin(runtime, config.admin, logger).then(
    () => {
      bootstrapped = true;
    },
    (err: unknown) => logger.error({ err }, 'could not create the admin user'),
  );
  if (role === 'api') {
    const watch = watchForProjectors(runtime, logger, config.projectionLeaseMs);
    process.once('exit', () => watch.stop());
  }
  return { port, bootstrapped: admin };
};
