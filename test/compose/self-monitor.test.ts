import test from 'ava';
import { rmSync } from 'node:fs';
import { ADMIN, api, eventually, projectWithKey, tempDir } from '../helpers/server.ts';
import { freePort, runCli, waitForLog } from '../helpers/process.ts';

test('a monitor of watchlog\'s own /healthz stays UP across a restart: checks start once the API listens', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { PORT: String(port), WATCHLOG_DATA_DIR: dataDir, WATCHLOG_ADMIN_EMAIL: ADMIN.email, WATCHLOG_ADMIN_PASSWORD: ADMIN.password };
  const first = runCli(['start'], env);
  t.teardown(() => first.child.kill('SIGKILL'));
  await waitForLog(first, 'admin user created', 60_000);
  const token = (await api<{ token: string }>(url, 'POST', '/v1/auth/login', { body: ADMIN })).body.token;
  const { projectId } = await projectWithKey(url, token, 'self');
  const monitor = (await api(url, 'POST', '/v1/monitors', { token, body: { project_id: projectId, name: 'watchlog', url: `${url}/healthz`, interval_seconds: 10, timeout_seconds: 2 } })).body;
  const history = async () => ((await api(url, 'GET', `/v1/monitors/${monitor.id}/history`, { token })).body as unknown[]).length;
  await eventually(async () => ((await history()) >= 1 ? true : undefined), 30_000);

  first.child.kill('SIGTERM');
  t.is(await first.exited, 0);
  const second = runCli(['start'], env);
  t.teardown(() => second.child.kill('SIGKILL'));
  const listening = await waitForLog(second, 'listening', 60_000);
  // The job was due while watchlog was down: it runs at once after the restart, once the API listens.
  await eventually(async () => ((await history()) >= 2 ? true : undefined), 30_000);
  const [latest] = (await api<Array<{ checked_at: string; ok: boolean }>>(url, 'GET', `/v1/monitors/${monitor.id}/history?limit=1`, { token })).body;
  t.true(Date.parse(latest!.checked_at) >= (listening.time as number), 'checked after the server listened');
  t.true(latest!.ok);
  const down = await api(url, 'GET', `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.down`, { token });
  t.is(down.body.pagination.totalItems, 0, 'no DOWN, so no notification either');
  t.is((await api(url, 'GET', `/v1/monitors/${monitor.id}`, { token })).body.status, 'UP');
  second.child.kill('SIGTERM');
  await second.exited;
  rmSync(dataDir, { recursive: true, force: true });
});
