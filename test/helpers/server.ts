import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import pino, { type Logger } from 'pino';
import { startTarget } from './target.ts';
import { loopbackResolver } from './egress.ts';
import { egressPolicy } from '../../src/checks/egress.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { ensureAdmin } from '../../src/compose/bootstrap.ts';
import { ProjectorThread } from '../../src/compose/projector-thread.ts';
import { startProjectors, type Projectors, type ProjectorsConfig } from '../../src/compose/projectors.ts';
import { checkpointsOf, httpServerFor, pageEffectsOf } from '../../src/compose/roles.ts';
import { openRuntime, watchRuntime, type Runtime } from '../../src/compose/runtime.ts';
import { startWorkerJobs } from '../../src/compose/jobs.ts';
import { createTelemetry, type Telemetry } from '../../src/metrics/registry.ts';
import { startMetricsServer } from '../../src/metrics/server.ts';
import type { HttpServer } from '../../src/server/http-server.ts';
import type { WorkerJobs } from '../../src/jobs/worker-jobs.ts';
import type { Projector } from '../../projections/projector.ts';
import type { ReadModelKey } from '../../src/views/read-models.ts';
import { TEST_SCRYPT } from './passwords.ts';

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };

export const tempDir = (prefix = 'watchlog-test-') => mkdtempSync(path.join(tmpdir(), prefix));

export interface TestServer {
  url: string;
  dataDir: string;
  config: Config;
  runtime: Runtime;
  /** The HTTP server, with its drain. */
  http: HttpServer;
  /** The projectors on this thread; null with `projectorThread`. */
  projector: Projector | null;
  jobs: WorkerJobs | null;
  notifier: Projector | null;
  /** The status pages' reactor (automatic incidents, subscriber mail), with `notifications`. */
  pageEffects: Projector | null;
  /** The projectors' thread, with `projectorThread`. */
  projectorThread: ProjectorThread | null;
  /** Anomaly scans completed so far (with `jobs`). */
  scans(): number;
  /** The process's metrics, as `GET /metrics` serves them. */
  telemetry: Telemetry;
  /** `GET /metrics` on the metrics port, when WATCHLOG_METRICS_PORT is in `env`. */
  metricsUrl: string | null;
  /** Stops the server and projector and closes the stores; the data dir stays unless `remove`. */
  stop(options?: { remove?: boolean }): Promise<void>;
}

/** The real app on 127.0.0.1 with a free port, embedded stores in a fresh data dir, and an admin. */
export interface TestServerOptions {
  env?: Record<string, string>;
  dataDir?: string;
  /** The service clock (receive time of ingested events). */
  now?: () => Date;
  /** Also run the worker's Agenda jobs: monitor checks, the anomaly scan, log trim (fast polling,
   *  short locks). */
  jobs?: boolean;
  /** The anomaly scan's interval when `jobs` is set. */
  anomalyScanMs?: number;
  /** Also run the checkpoint sealer (WATCHLOG_CHECKPOINT_INTERVAL_MS in `env` sets how often). */
  checkpoints?: boolean;
  /** The anomaly scan's clock, when it should differ from the service clock: a test can ingest a
   *  burst before letting the scan see its time. */
  scanNow?: () => Date;
  /** Also run the notification reactor (3 tries, short backoff, 2 s a try, unless `notifier` says otherwise). */
  notifications?: boolean;
  notifier?: ProjectorsConfig['notifier'];
  /** The server's logger (default: silent), for a test that reads what is logged. */
  logger?: Logger;
  /** Project on a thread of its own, as `watchlog start` does (a fault test can kill it). */
  projectorThread?: boolean;
  /** Also collect prom-client's process metrics (off by default: many servers share a process). */
  processMetrics?: boolean;
}

/** With WATCHLOG_EVENTSTORE_URL / WATCHLOG_MONGO_URL set, the suites run on those servers: each
 *  data dir gets its own stream namespace and database, so servers and runs never see each
 *  other's events. */
const serverAdapters = (dataDir: string): Record<string, string> => {
  const id = createHash('sha256').update(dataDir).digest('hex').slice(0, 12);
  const env: Record<string, string> = {};
  const { WATCHLOG_EVENTSTORE_URL: log, WATCHLOG_MONGO_URL: mongo } = process.env;
  if (log) Object.assign(env, { WATCHLOG_EVENTSTORE_URL: log, WATCHLOG_EVENTSTORE_NAMESPACE: `t${id}-` });
  if (mongo)
    env.WATCHLOG_MONGO_URL = mongo.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)(\/[^?]*)?/, `$1/watchlog_test_${id}`);
  return env;
};

/** A test server and a monitored target answering 200, both stopped at teardown, with the
 *  admin's token. */
export const serverWithTarget = async (t: ExecutionContext, options: TestServerOptions = {}) => {
  const server = await startTestServer(options);
  const target = await startTarget(200);
  t.teardown(async () => {
    await server.stop();
    await target.close();
  });
  return { server, target, token: await login(server.url) };
};

export const startTestServer = async ({
  env = {},
  dataDir = tempDir(),
  now = () => new Date(),
  jobs: withJobs = false,
  anomalyScanMs = 300,
  scanNow = now,
  notifications = false,
  logger = pino({ level: 'silent' }),
  projectorThread: onThread = false,
  processMetrics = false,
  checkpoints: withCheckpoints = false,
  notifier = {},
}: TestServerOptions = {}): Promise<TestServer> => {
  const config = loadConfig({
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_ADMIN_EMAIL: ADMIN.email,
    WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    // Longer than the client's idle time, so fetch never reuses a socket the server is closing
    // (a race a loaded machine makes likely).
    WATCHLOG_KEEP_ALIVE_TIMEOUT_MS: '30000',
    ...serverAdapters(dataDir),
    ...env,
  });
  // Wired as `watchlog start` wires it (src/compose/roles.ts).
  const telemetry = createTelemetry({
    role: 'start',
    version: 'test',
    logger,
    defaultMetrics: processMetrics,
    clock: now,
  });
  // The configured egress rules, with the tests' resolver (its checks, deliveries and channel tests
  // never look a name up in the system's DNS).
  const runtime: Runtime = {
    ...(await openRuntime(config, { scrypt: TEST_SCRYPT, observer: telemetry })),
    egress: egressPolicy(config.egress, { resolve: loopbackResolver }),
  };
  watchRuntime(telemetry, runtime, { projections: true, notifications });
  const thread = onThread
    ? new ProjectorThread(
        {
          dataDir: config.dataDir,
          eventStoreUrl: config.eventStoreUrl,
          eventStoreNamespace: config.eventStoreNamespace,
          mongoUrl: config.mongoUrl,
          logLevel: 'silent',
          leaseTtlMs: config.projectionLeaseMs,
          vapid: runtime.vapid,
          vapidSubject: config.vapidSubject,
          egress: config.egress,
          ...config.notifications,
          ...pageEffectsOf(config, runtime),
          ...(withCheckpoints ? { checkpoints: checkpointsOf(config, runtime) } : {}),
        },
        runtime,
        logger,
        telemetry,
      )
    : null;
  thread?.start();
  const projectors: Projectors | null = thread
    ? null
    : startProjectors(runtime, logger, {
        leaseTtlMs: config.projectionLeaseMs,
        vapid: runtime.vapid,
        vapidSubject: config.vapidSubject,
        egress: runtime.egress,
        notifications,
        ...config.notifications,
        ...pageEffectsOf(config, runtime),
        notifier: { retry: { attempts: 3, minTimeoutMs: 20, maxTimeoutMs: 200 }, timeoutMs: 2000, ...notifier },
        metrics: telemetry,
        ...(notifications ? { liveBatchDelayMs: 5 } : {}),
        ...(withCheckpoints ? { checkpoints: checkpointsOf(config, runtime) } : {}),
      });
  await ensureAdmin(runtime, config.admin, logger);
  let scans = 0;
  const worker = withJobs
    ? await startWorkerJobs(runtime, { ...config, anomalyScanMs }, logger, {
        scheduler: { processEveryMs: 100, reconcileEveryMs: 100, fullReconcileEveryMs: 1000, lockLifetimeMs: 2000 },
        scanNow,
        trimEveryMs: 300,
        erasureEveryMs: 200,
        maintenanceEveryMs: 200,
        maintenanceRefreshMs: 100,
        onScan: () => {
          scans += 1;
        },
        metrics: telemetry,
      })
    : null;
  const metricsServer = await startMetricsServer(telemetry, config, logger);
  // The server `watchlog` runs: its timeouts, connection limit and drain.
  const web = httpServerFor(runtime, config, logger, now, { bootstrapped: () => true, telemetry });
  const server = web.server;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    config,
    runtime,
    http: web,
    projector: projectors?.projector ?? null,
    jobs: worker?.jobs ?? null,
    notifier: projectors?.notifier ?? null,
    pageEffects: projectors?.pageEffects ?? null,
    projectorThread: thread,
    scans: () => scans,
    telemetry,
    metricsUrl: metricsServer?.url ?? null,
    async stop({ remove = true } = {}) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await metricsServer?.close();
      await worker?.stop();
      await projectors?.stop();
      await thread?.stop();
      await runtime.close();
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

// biome-ignore lint/suspicious/noExplicitAny: tests read an answer's fields as they assert on them
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** fetch with JSON in and out; a non-JSON answer is returned as text. */
// biome-ignore lint/suspicious/noExplicitAny: as JsonResponse's
export const api = async <T = any>(
  base: string,
  method: string,
  url: string,
  options: { token?: string; apiKey?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
};

/** Logs in, retrying on 401: a server process creates its admin just after it starts listening,
 *  once its projector thread has started and the access projection has caught up, which on a
 *  loaded 2-core machine running other suites can take well over the ~3 s it takes when idle.
 *  Each 401 counts as a failed login for the account, so a test of a CLI process waits for its
 *  "admin user created" line first, and the login throttle's 429 ends the retries. */
export const login = async (base: string, email = ADMIN.email, password = ADMIN.password): Promise<string> => {
  const deadline = Date.now() + 45_000;
  for (;;) {
    const res = await api<{ token: string }>(base, 'POST', '/v1/auth/login', { body: { email, password } });
    if (res.status === 200) return res.body.token;
    if (res.status !== 401 || Date.now() > deadline)
      throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** A project and an API key for it, created through the API. */
export const projectWithKey = async (base: string, token: string, name = 'shop') => {
  const project = await api<{ id: string }>(base, 'POST', '/v1/projects', { token, body: { name } });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`);
  const key = await api<{ key: string; id: string }>(base, 'POST', `/v1/projects/${project.body.id}/api-keys`, {
    token,
    body: { name: 'sdk' },
  });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${JSON.stringify(key.body)}`);
  return { projectId: project.body.id, apiKey: key.body.key, keyId: key.body.id };
};

/** A server, a target answering 200, a project `shop`, and its monitor `checkout` of that target
 *  (`monitor`: extra fields, e.g. `{ enabled: false }`). */
export const shopWithMonitor = async (
  t: ExecutionContext,
  options: TestServerOptions = {},
  monitor: Record<string, unknown> = {},
) => {
  const { server, target, token } = await serverWithTarget(t, options);
  const { projectId } = await projectWithKey(server.url, token, 'shop');
  const created = await api<{ id: string }>(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'checkout', url: target.url, ...monitor },
  });
  if (created.status !== 201) throw new Error(`monitor: ${created.status} ${JSON.stringify(created.body)}`);
  return { server, target, token, projectId, monitorId: created.body.id };
};

export const sampleEvent = (overrides: Record<string, unknown> = {}) => ({
  path: '/api/orders',
  method: 'POST',
  status_code: 201,
  response_time: 42,
  identifier: 'user-1',
  service_name: 'orders',
  environment: 'production',
  ...overrides,
});

/** Polls until `check` returns a value that is not undefined (projections are eventually consistent). */
export const eventually = async <T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Resolves once the read models named have applied everything appended to the log so far, so
 *  that what the requests before the call changed is in their answers: the runtime says when,
 *  rather than the API being asked again and again for the answer expected. */
export const caughtUp = async (
  server: Pick<TestServer, 'runtime'>,
  readModels: readonly ReadModelKey[],
  timeoutMs = 10_000,
): Promise<void> => {
  const head = await server.runtime.log.headPosition();
  if (head !== null && !(await server.runtime.caughtUp(readModels, head, timeoutMs)))
    throw new Error(`${readModels.join(', ')} not at log position ${head} after ${timeoutMs} ms`);
};

/** Resolves once `n` more anomaly scans have completed. */
export const afterScans = async (server: Pick<TestServer, 'scans'>, n: number, timeoutMs = 15_000): Promise<void> => {
  const target = server.scans() + n;
  await eventually(async () => (server.scans() >= target ? true : undefined), timeoutMs);
};

/** A logger that keeps every line it writes, parsed, for tests that check what was logged. */
export const capturingLogger = (
  level = 'info',
): { logger: Logger; lines: Array<Record<string, unknown> & { level: number; msg?: string }> } => {
  const lines: Array<Record<string, unknown> & { level: number; msg?: string }> = [];
  const logger = pino(
    { level },
    {
      write: (line: string) => {
        lines.push(JSON.parse(line) as (typeof lines)[number]);
      },
    },
  );
  return { logger, lines };
};
