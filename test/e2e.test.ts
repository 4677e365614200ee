import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../src/domain/notification.ts';
import { rmSync } from 'node:fs';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, tempDir } from './helpers/server.ts';
import { freePort, runCli, serviceSetup, startService, waitForLog } from './helpers/process.ts';

test.serial(
  'the real server: login, project, key, ingest, list and detail; SIGTERM stops it cleanly; a restart keeps everything',
  async (t) => {
    const dataDir = tempDir();
    const port = await freePort();
    const env = {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    };
    const url = `http://127.0.0.1:${port}`;
    const first = runCli(['start'], env);
    t.teardown(() => first.child.kill('SIGKILL'));
    const listening = await waitForLog(first, 'listening');
    t.like(listening, {
      port,
      url,
      role: 'start',
      data_dir: dataDir,
      log: 'sqlite (log.db)',
      read_models: 'sqlite (views.db)',
      runs: ['api', 'projectors (own thread)', 'jobs', 'notifications'],
    });
    t.regex(String(listening.version), /^\d+\.\d+\.\d+/);
    t.is(
      first
        .stdout()
        .split('\n')
        .filter((l) => l.includes('"projection lease acquired"')).length,
      0,
      'lease messages are debug',
    );
    await waitForLog(first, 'admin user created', 45_000);

    const token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);
    const ingested = await api(url, 'POST', '/v1/audit', {
      apiKey,
      body: sampleEvent({ request_body: { password: 'p' } }),
    });
    t.is(ingested.status, 202);
    const listed = await eventually(async () => {
      const r = await api(url, 'GET', `/v1/audit?project_id=${projectId}`, { token });
      return r.body.data.length === 1 ? r.body : undefined;
    });
    t.is(listed.data[0].id, ingested.body.id);
    t.is(listed.data[0].event_type, 'http');
    const detail = await api(url, 'GET', `/v1/audit/${ingested.body.id}`, { token });
    t.is(detail.status, 200);
    t.deepEqual(detail.body.request_body, { password: '********' });

    // Appends in flight when SIGTERM arrives are finished and acknowledged, not dropped.
    const inFlight = Array.from({ length: 20 }, () => api(url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() }));
    await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGTERM');
    const settled = await Promise.allSettled(inFlight);
    const accepted = settled.filter((s) => s.status === 'fulfilled' && s.value.status === 202).length;
    t.is(await first.exited, 0);
    t.true(first.stdout().includes('"msg":"stopped"'));

    const second = runCli(['start'], env);
    t.teardown(() => second.child.kill('SIGKILL'));
    await waitForLog(second, 'listening');
    // The JWT secret was generated once into the data dir: the old token still works.
    const after = await eventually(async () => {
      const r = await api(url, 'GET', `/v1/audit?project_id=${projectId}`, { token });
      return r.body.pagination.totalItems === 1 + accepted ? r.body : undefined;
    });
    t.is(after.pagination.totalItems, 1 + accepted);
    const users = await api(url, 'GET', '/v1/users', { token });
    t.is(users.body.length, 1);
    second.child.kill('SIGTERM');
    t.is(await second.exited, 0);
    rmSync(dataDir, { recursive: true, force: true });
  },
);

test.serial('--help prints usage; bad configuration fails fast with a clear message', async (t) => {
  const help = runCli(['--help'], {});
  t.is(await help.exited, 0);
  t.regex(help.stdout(), /Usage: watchlog <command>/);
  t.regex(help.stdout(), /rebuild/);
  const own = runCli(['worker', '--help'], {});
  t.is(await own.exited, 0);
  t.regex(own.stdout(), /^watchlog worker — [\s\S]*Usage: watchlog worker\n/);

  const bad = runCli(['start'], { PORT: 'abc', WATCHLOG_JWT_SECRET: 'short' });
  t.is(await bad.exited, 2);
  t.regex(bad.stderr(), /PORT: expected integer 0-65535, got "abc"/);
  t.regex(bad.stderr(), /WATCHLOG_JWT_SECRET/);
  t.false(bad.stderr().includes('short'));

  const unknown = runCli(['launch'], {});
  t.is(await unknown.exited, 2);
  t.regex(unknown.stderr(), /unknown command "launch"/);
});

// The first process runs from the TypeScript through tsx, as in development (the others run the build).
test.serial('a port in use is a clear startup error', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const env = { PORT: String(port), WATCHLOG_DATA_DIR: dataDir };
  const first = runCli(['start'], env, { source: true });
  t.teardown(() => first.child.kill('SIGKILL'));
  await waitForLog(first, 'listening');
  const second = runCli(['api'], env);
  t.is(await second.exited, 1);
  t.regex(second.stderr(), new RegExp(`port ${port} on 127.0.0.1 is already in use`));
  first.child.kill('SIGTERM');
  await first.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test.serial('rebuild prints progress and exits', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const env = {
    PORT: String(port),
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_ADMIN_EMAIL: ADMIN.email,
    WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
  };
  const server = runCli(['start'], env);
  t.teardown(() => server.child.kill('SIGKILL'));
  await waitForLog(server, 'admin user created', 45_000);
  server.child.kill('SIGTERM');
  await server.exited;
  const rebuild = runCli(['rebuild'], env);
  t.is(await rebuild.exited, 0);
  t.regex(rebuild.stderr(), /rebuild \[#{20}\] 100% (\d+)\/\1 \(\d+ ev\/s, ETA 0 s\): [a-z-]+/);
  // Each line names what its lane moved: the two lanes together, every read model.
  const named = new Set(
    [...rebuild.stderr().matchAll(/^rebuild \[.*\): ([a-z-, ]+)$/gm)].flatMap((m) => m[1]!.split(', ')),
  );
  for (const projection of ['access', 'audit-events', 'tree', 'stats-buckets'])
    t.true(named.has(projection), projection);
  t.regex(rebuild.stderr(), /rebuild: published: running processes move to it within a second/);
  t.regex(rebuild.stderr(), /rebuild done: \d+ read models in views-\d+\.db, log head \d+/);
  rmSync(dataDir, { recursive: true, force: true });
});

test.serial('an unreachable KurrentDB or MongoDB stops start-up with a clear message', async (t) => {
  const dataDir = tempDir();
  const closed = await freePort();
  const mongo = runCli(['start'], { WATCHLOG_DATA_DIR: dataDir, WATCHLOG_MONGO_URL: `mongodb://127.0.0.1:${closed}` });
  const kurrent = runCli(['start'], {
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_EVENTSTORE_URL: `kurrentdb://127.0.0.1:${closed}?tls=false`,
  });
  t.is(await mongo.exited, 1);
  t.regex(mongo.stderr(), /cannot reach MongoDB \(WATCHLOG_MONGO_URL\)/);
  t.is(await kurrent.exited, 1);
  t.regex(kurrent.stderr(), /cannot reach KurrentDB \(WATCHLOG_EVENTSTORE_URL\)/);
  const bad = runCli(['start'], {
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_MONGO_URL: 'postgres://x',
    WATCHLOG_EVENTSTORE_URL: 'http://x',
  });
  t.is(await bad.exited, 2);
  t.regex(bad.stderr(), /WATCHLOG_MONGO_URL: expected mongodb:\/\/ or mongodb\+srv:\/\/ URL, got \(hidden\)/);
  t.regex(bad.stderr(), /WATCHLOG_EVENTSTORE_URL/);
  rmSync(dataDir, { recursive: true, force: true });
});

test.serial(
  'the real server checks a new monitor at once and notifies a signed webhook from its projector thread',
  async (t) => {
    const dataDir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const received: Array<{ body: string; signature: string | undefined }> = [];
    const hook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ body, signature: req.headers['x-watchlog-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    const server = runCli(['start'], {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    });
    t.teardown(() => {
      server.child.kill('SIGKILL');
      hook.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    await waitForLog(server, 'admin user created', 45_000);
    const token = await login(url);
    const { projectId } = await projectWithKey(url, token);
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    t.is(
      (
        await api(url, 'POST', '/v1/channels', {
          token,
          body: { project_id: projectId, type: 'webhook', url: hookUrl, secret: 'e2e-secret' },
        })
      ).status,
      201,
    );
    const closed = await freePort();
    await api(url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'down-from-start', url: `http://127.0.0.1:${closed}/`, timeout_seconds: 1 },
    });

    await eventually(async () => (received.length === 1 ? true : undefined), 15_000);
    const notification = JSON.parse(received[0]!.body) as { type: string; monitor: { name: string }; error: string };
    t.like(notification, { type: 'monitor.down', monitor: { name: 'down-from-start' } });
    t.regex(notification.error, /connection refused/);
    t.true(verifySignature('e2e-secret', received[0]!.body, received[0]!.signature));
    server.child.kill('SIGTERM');
    t.is(await server.exited, 0);
  },
);

test.serial(
  'the real server runs the anomaly scan on its schedule: a brute force is an alert, logged, within one interval',
  async (t) => {
    const { url, env } = await serviceSetup(t, {
      WATCHLOG_ANOMALY_SCAN_SECONDS: '5',
      WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":5}}',
    });
    const server = await startService(t, env);
    const token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);
    for (let i = 0; i < 5; i++) {
      t.is(
        (
          await api(url, 'POST', '/v1/audit', {
            apiKey,
            body: sampleEvent({ identifier: 'mallory', status_code: 401 }),
          })
        ).status,
        202,
      );
    }
    const alert = await eventually(async () => {
      const r = await api(url, 'GET', `/v1/audit/anomalies?project_id=${projectId}`, { token });
      return r.body.data.length > 0 ? r.body.data[0] : undefined;
    }, 20_000);
    t.like(alert, {
      path: 'brute_force',
      event_type: 'system.alert',
      request_body: { identifier: 'mallory', count: 5, window_secs: 60, threshold: 5 },
    });
    const logged = await waitForLog(server, 'anomaly detected');
    t.like(logged, { project_id: projectId, rule: 'brute_force', subject: 'mallory' });
    server.child.kill('SIGTERM');
    t.is(await server.exited, 0);
  },
);
