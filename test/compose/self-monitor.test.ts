import test from 'ava';
import { ADMIN, api, eventually, projectWithKey } from '../helpers/server.ts';
import { runCli, serviceSetup, startService, waitForLog } from '../helpers/process.ts';

test("a monitor of watchlog's own /healthz stays UP across a restart: checks start once the API listens", async (t) => {
  const { url, env } = await serviceSetup(t);
  const first = await startService(t, env, 60_000);
  const token = (await api<{ token: string }>(url, 'POST', '/v1/auth/login', { body: ADMIN })).body.token;
  const { projectId } = await projectWithKey(url, token, 'self');
  const monitor = (
    await api(url, 'POST', '/v1/monitors', {
      token,
      body: {
        project_id: projectId,
        name: 'watchlog',
        url: `${url}/healthz`,
        interval_seconds: 10,
        timeout_seconds: 2,
      },
    })
  ).body;
  const history = async () =>
    ((await api(url, 'GET', `/v1/monitors/${monitor.id}/history`, { token })).body as unknown[]).length;
  await eventually(async () => ((await history()) >= 1 ? true : undefined), 30_000);

  first.child.kill('SIGTERM');
  t.is(await first.exited, 0);
  const second = runCli(['start'], env);
  t.teardown(() => second.child.kill('SIGKILL'));
  const listening = await waitForLog(second, 'listening', 60_000);
  // The job was due while watchlog was down: it runs at once after the restart, once the API listens.
  await eventually(async () => ((await history()) >= 2 ? true : undefined), 30_000);
  const [latest] = (
    await api<Array<{ checked_at: string; ok: boolean }>>(url, 'GET', `/v1/monitors/${monitor.id}/history?limit=1`, {
      token,
    })
  ).body;
  t.true(Date.parse(latest!.checked_at) >= (listening.time as number), 'checked after the server listened');
  t.true(latest!.ok);
  const down = await api(url, 'GET', `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.down`, { token });
  t.is(down.body.pagination.totalItems, 0, 'no DOWN, so no notification either');
  t.is((await api(url, 'GET', `/v1/monitors/${monitor.id}`, { token })).body.status, 'UP');
  second.child.kill('SIGTERM');
  await second.exited;
});
