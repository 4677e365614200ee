import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.ts';
import { createProject } from '../../src/commands/projects.ts';
import { openRuntime } from '../../src/compose/runtime.ts';
import { READ_MODELS } from '../../src/compose/read-models.ts';
import { parseExposition, type Exposition } from '../helpers/prometheus.ts';
import { TEST_SCRYPT } from '../helpers/passwords.ts';
import { freePort, runCli, waitForLog } from '../helpers/process.ts';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, tempDir } from '../helpers/server.ts';

/** Metrics of real processes: a worker (no HTTP server) on its metrics port, and `watchlog start`,
 *  whose projections and notifications run on a thread of their own while its main thread serves
 *  /metrics. Serial: process-spawning tests compete for a loaded machine's cores. */

const TOKEN = 'cli-metrics-token-0123456789';

const scrape = async (url: string, token?: string): Promise<Exposition> => {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status}`);
  return parseExposition(await res.text());
};

/** A scrape once every projection has reached the log head. */
const caughtUp = (url: string, token?: string) =>
  eventually(async () => {
    const m = await scrape(url, token).catch(() => undefined);
    const lags = m?.find('watchlog_projection_lag_positions') ?? [];
    return lags.length > 0 && lags.every((s) => s.value === 0) ? m : undefined;
  }, 30_000);

test.serial("a worker serves its projections' metrics on WATCHLOG_METRICS_PORT", async (t) => {
  const dataDir = tempDir();
  // A log with something in it before the worker starts.
  const config = loadConfig({ WATCHLOG_DATA_DIR: dataDir });
  const runtime = await openRuntime(config, { writerThread: false, scrypt: TEST_SCRYPT });
  for (const name of ['one', 'two', 'three'])
    await createProject(runtime.commands, name, { actor: 'test', correlationId: 'test', now: () => new Date() });
  const head = Number(await runtime.log.headPosition());
  await runtime.close();

  const port = await freePort();
  const worker = runCli(['worker'], { WATCHLOG_DATA_DIR: dataDir, WATCHLOG_METRICS_PORT: String(port) });
  t.teardown(() => {
    worker.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  const started = await waitForLog(worker, 'worker started', 30_000);
  const url = `http://127.0.0.1:${port}/metrics`;
  t.is(started.metrics_url, url);

  const m = await caughtUp(url);
  t.is(m.value('watchlog_build_info', { role: 'worker' }), 1);
  t.is(m.value('watchlog_log_head_position'), head);
  const projections = m.find('watchlog_projection_position').map((s) => s.labels.projection);
  t.true(
    projections.includes('access') && projections.includes('audit-events') && projections.includes('notifications'),
    projections.join(),
  );
  for (const s of m.find('watchlog_projection_position')) t.is(s.value, head, s.labels.projection);
  for (const s of m.find('watchlog_projection_lag_seconds')) t.is(s.value, 0, s.labels.projection);
  t.is(m.types.get('process_resident_memory_bytes'), 'gauge', 'the process metrics');
  t.is(m.value('watchlog_anomaly_scans_total', { outcome: 'failed' }), 0);

  worker.child.kill('SIGTERM');
  t.is(await worker.exited, 0);
});

test.serial(
  "watchlog start: the main thread's /metrics has the projector thread's positions and deliveries, " +
    "the writer thread's commits",
  async (t) => {
    const dataDir = tempDir();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const received: string[] = [];
    const hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const server = runCli(['start'], {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
      WATCHLOG_METRICS_TOKEN: TOKEN,
    });
    t.teardown(() => {
      server.child.kill('SIGKILL');
      hook.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    await waitForLog(server, 'admin user created', 45_000);
    t.is((await api(base, 'GET', '/metrics')).status, 401);

    const token = await login(base);
    const { projectId, apiKey } = await projectWithKey(base, token);
    for (let i = 0; i < 3; i++)
      t.is((await api(base, 'POST', '/v1/audit', { apiKey, body: sampleEvent() })).status, 202);
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    t.is(
      (
        await api(base, 'POST', '/v1/channels', {
          token,
          body: { project_id: projectId, type: 'webhook', url: hookUrl },
        })
      ).status,
      201,
    );
    const closed = await freePort();
    t.is(
      (
        await api(base, 'POST', '/v1/monitors', {
          token,
          body: { project_id: projectId, name: 'down', url: `http://127.0.0.1:${closed}/`, timeout_seconds: 1 },
        })
      ).status,
      201,
    );
    await eventually(async () => (received.length === 1 ? true : undefined), 20_000);

    const m = await eventually(async () => {
      const scraped = await caughtUp(`${base}/metrics`, TOKEN);
      return scraped.value('watchlog_notifications_total', { channel_type: 'webhook', outcome: 'sent' }) === 1
        ? scraped
        : undefined;
    }, 20_000);
    const head = m.value('watchlog_log_head_position');
    t.true(head > 0);
    for (const s of m.find('watchlog_projection_position')) t.is(s.value, head, s.labels.projection);
    t.is(
      m.find('watchlog_projection_position').length,
      Object.values(READ_MODELS).filter((entry) => entry.projection !== null).length + 2,
      "every read model, the notification reactor and the status pages' reactor",
    );
    t.is(m.value('watchlog_ingest_accepted_total'), 3);
    t.true(
      m.value('watchlog_log_appended_events_total') >= 3,
      'commits on the writer thread are counted on the main thread',
    );
    t.true(m.value('watchlog_monitor_checks_total', { outcome: 'down' }) >= 1);
    t.is(m.value('watchlog_build_info', { role: 'start' }), 1);

    server.child.kill('SIGTERM');
    t.is(await server.exited, 0);
  },
);
