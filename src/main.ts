#!/usr/bin/env node
import http from 'node:http';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createApp } from './http/app.ts';
import { StartupError, ensureAdmin, openRuntime, type Runtime } from './runtime.ts';
import { rebuildReadModels } from './rebuild.ts';
import { Projector } from '../projections/projector.ts';
import { ProjectorThread } from '../projections/projector-host.ts';
import { WorkerJobs } from './jobs/worker-jobs.ts';
import { repeatingJobs } from './jobs/repeating-jobs.ts';
import { notificationsRunner } from '../projections/notifications.ts';
import { openJobStore } from './jobs/job-store.ts';

const HELP = `watchlog — self-hosted audit logging and uptime monitoring

Usage: watchlog <command>

Commands:
  start      HTTP API, projector, monitor checks, anomaly scan and notifications in
             one process (the default)
  api        HTTP API only (run any number of them)
  worker     projector, Agenda jobs (monitor checks, anomaly scan, log trim) and
             notifications
  rebuild    drop every read model and replay the log into it, with progress
             (stop the service first)

Options:
  -h, --help     show this help
  -v, --version  print the version

Configuration comes from environment variables (see the README):
  PORT, HOST, WATCHLOG_DATA_DIR, WATCHLOG_JWT_SECRET, WATCHLOG_JWT_TTL_SECONDS,
  WATCHLOG_ADMIN_EMAIL, WATCHLOG_ADMIN_PASSWORD, WATCHLOG_BODY_LIMIT_BYTES,
  WATCHLOG_LOG_LEVEL, WATCHLOG_SHUTDOWN_TIMEOUT_MS, WATCHLOG_PROJECTION_LEASE_MS,
  WATCHLOG_EVENTSTORE_URL (KurrentDB log), WATCHLOG_EVENTSTORE_NAMESPACE,
  WATCHLOG_VAPID_PUBLIC_KEY, WATCHLOG_VAPID_PRIVATE_KEY, WATCHLOG_VAPID_SUBJECT,
  WATCHLOG_MONGO_URL (MongoDB read models), WATCHLOG_ANOMALY_SCAN_SECONDS,
  WATCHLOG_ANOMALY_DEFAULTS (JSON, e.g. '{"brute_force":{"threshold":5}}')
`;

/** package.json sits one level up from src/ and two from dist/src/. */
const version = (): string => {
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // not at this level
    }
  }
  return 'unknown';
};

const listen = async (server: http.Server, config: Config, logger: Logger) => {
  server.listen(config.port, config.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new StartupError(code === 'EADDRINUSE'
      ? `port ${config.port} on ${config.host} is already in use (set PORT)`
      : `cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  }
  const address = server.address();
  logger.info({ host: config.host, port: typeof address === 'object' && address ? address.port : config.port }, 'listening');
};

/** Stops accepting connections, lets requests in flight (and their appends) finish, stops the
 *  projector after its current batch and checkpoint, then closes the databases. */
const onSignals = (logger: Logger, config: Config, stop: () => Promise<void>) => {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: config.shutdownTimeoutMs }, 'shutdown timed out');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    stop().then(
      () => {
        logger.info('stopped');
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

const closeServer = async (server: http.Server) => {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
};

/** Monitor checks, the anomaly scan and log upkeep on Agenda; a job store that cannot be reached
 *  stops start-up with a clear error. */
const startWorkerJobs = async (runtime: Runtime, config: Config, logger: Logger) => {
  let store: Awaited<ReturnType<typeof openJobStore>>;
  try {
    store = await openJobStore(config);
  } catch (error) {
    throw new StartupError(`cannot open the job store: ${(error as Error).message}`);
  }
  const jobs = new WorkerJobs(store.backend, runtime.commands, logger, { repeating: repeatingJobs(runtime, config, logger, () => new Date()) });
  try {
    await jobs.start();
  } catch (error) {
    await store.close();
    throw new StartupError(`cannot start the job scheduler: ${(error as Error).message}`);
  }
  return {
    async stop() {
      await jobs.stop();
      await store.close();
    },
  };
};

const serve = async (mode: 'start' | 'api' | 'worker', config: Config, logger: Logger) => {
  const runtime: Runtime = await openRuntime(config);
  // `start` keeps the HTTP event loop free of the embedded read models' synchronous writes by
  // projecting on a thread; a `worker` process, or MongoDB's asynchronous writes, need none.
  const projectorThread = mode === 'start' && config.mongoUrl === undefined;
  const projector = mode === 'api' ? null
    : projectorThread ? new ProjectorThread({
      dataDir: config.dataDir, eventStoreUrl: config.eventStoreUrl, eventStoreNamespace: config.eventStoreNamespace, mongoUrl: config.mongoUrl,
      logLevel: config.logLevel, leaseTtlMs: config.projectionLeaseMs, vapid: runtime.vapid, vapidSubject: config.vapidSubject,
    }, runtime.log, logger)
    : new Projector(runtime.log, runtime.runners, runtime.readModels.leases, logger, { leaseTtlMs: config.projectionLeaseMs });
  projector?.start();
  const jobs = mode === 'api' ? null : await startWorkerJobs(runtime, config, logger);
  // With a projector thread, the notification reactor runs there too.
  const notifier = mode === 'api' || projectorThread ? null : new Projector(runtime.log, [notificationsRunner({
    log: runtime.log, readModels: runtime.readModels, logger, vapid: runtime.vapid, vapidSubject: config.vapidSubject,
  })], runtime.readModels.leases, logger, { leaseTtlMs: config.projectionLeaseMs });
  notifier?.start();
  let server: http.Server | null = null;
  onSignals(logger, config, async () => {
    if (server) await closeServer(server);
    await jobs?.stop();
    await notifier?.stop();
    await projector?.stop();
    await runtime.close();
  });
  if (mode === 'worker') {
    logger.info({ projections: runtime.runners.map((r) => r.name) }, 'worker started');
    return;
  }
  const app = createApp({
    log: runtime.log,
    readModels: runtime.readModels,
    commands: runtime.commands,
    logger,
    jwtSecret: runtime.jwtSecret,
    jwtTtlSeconds: config.jwtTtlSeconds,
    bodyLimitBytes: config.bodyLimitBytes,
    vapidPublicKey: runtime.vapid.publicKey,
    anomalyDefaults: config.anomalyDefaults,
    now: () => new Date(),
  });
  server = http.createServer(app.callback());
  server.keepAliveTimeout = 5_000;
  await listen(server, config, logger);
  // After listening: on a fresh read store the admin check waits for the projector's replay.
  ensureAdmin(runtime, config.admin, logger).catch((err: unknown) => logger.error({ err }, 'could not create the admin user'));
};

const rebuild = async (config: Config) => {
  const runtime = await openRuntime(config);
  const started = Date.now();
  let lastPrint = 0;
  const { head } = await rebuildReadModels(runtime, ({ projections, position, head }) => {
    const now = Date.now();
    if (now - lastPrint < 250 && position !== head) return;
    lastPrint = now;
    const pct = head === null ? 100 : Math.floor((Number(position) / Number(head)) * 100);
    process.stderr.write(`rebuild ${projections.join(', ')}: ${position}/${head ?? 0} (${pct}%)\n`);
  });
  await runtime.close();
  process.stderr.write(`rebuild done: ${runtime.runners.length} read models, log head ${head ?? 'empty'}, ${Date.now() - started} ms\n`);
};

const main = async (argv: string[]): Promise<number> => {
  const command = argv[0] ?? 'start';
  if (command === '-h' || command === '--help' || command === 'help' || argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === '-v' || command === '--version') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  if (!['start', 'api', 'worker', 'rebuild'].includes(command)) {
    process.stderr.write(`watchlog: unknown command "${command}"\n\n${HELP}`);
    return 2;
  }
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`watchlog: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'rebuild') {
    await rebuild(config);
    return 0;
  }
  const logger = pino({ level: config.logLevel, base: { service: 'watchlog', mode: command } });
  await serve(command as 'start' | 'api' | 'worker', config, logger);
  return -1;
};

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    const message = error instanceof StartupError ? error.message : (error as Error).stack ?? String(error);
    process.stderr.write(`watchlog: ${message}\n`);
    process.exit(1);
  },
);
