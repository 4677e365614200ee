import test from 'ava';
import { rmSync } from 'node:fs';
import { api, eventually, login, projectWithKey, sampleEvent, tempDir } from '../helpers/server.ts';
import { freePort, runCli, serviceSetup, waitForLog } from '../helpers/process.ts';

/** `watchlog start` as a process: it serves, stops cleanly, restarts on its data; a port in use,
 *  and `watchlog rebuild`. One at a time: each starts a whole server. */

test.serial(
  'the real server: login, project, key, ingest, list and detail; SIGTERM stops it cleanly; a restart keeps everything',
  async (t) => {
    const { dataDir, port, env } = await serviceSetup(t);
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
  },
);

test.serial('a port in use is a clear startup error', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const env = { PORT: String(port), WATCHLOG_DATA_DIR: dataDir };
  const first = runCli(['start'], env);
  t.teardown(() => first.child.kill('SIGKILL'));
  await waitForLog(first, 'listening', 60_000);
  const second = runCli(['api'], env);
  t.is(await second.exited, 1);
  t.regex(second.stderr(), new RegExp(`port ${port} on 127.0.0.1 is already in use`));
  first.child.kill('SIGTERM');
  await first.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

test.serial('rebuild prints progress and exits', async (t) => {
  const { env } = await serviceSetup(t);
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
});
