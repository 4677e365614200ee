import test from 'ava';
import { rmSync } from 'node:fs';
import { ADMIN, api, eventually, tempDir } from '../helpers/server.ts';
import { freePort, runCli, waitForLog } from '../helpers/process.ts';

/** Readiness of real processes: the moment /readyz says ready, the admin can log in; an `api`
 *  process with no worker beside it never says ready, says why by name, and warns once. The two
 *  run at once: the second mostly waits. */

const readyz = (url: string) => api(url, 'GET', '/readyz');

test('watchlog start: once /readyz says ready, the first login succeeds (no retry)', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = runCli(['start'], {
    PORT: String(port),
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_ADMIN_EMAIL: ADMIN.email,
    WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
  });
  t.teardown(() => {
    server.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
  await waitForLog(server, 'listening', 60_000);
  const statuses = new Set<number>();
  await eventually(async () => {
    const res = await readyz(url);
    statuses.add(res.status);
    return res.status === 200 ? true : undefined;
  }, 60_000);
  const login = await api(url, 'POST', '/v1/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } });
  t.is(login.status, 200, JSON.stringify(login.body));
  t.true([...statuses].every((s) => s === 200 || s === 503));
});

test(
  'watchlog api without a worker: /readyz is 503 naming every read model without a projector, ' +
    'and one warning says a worker is needed',
  async (t) => {
    const dataDir = tempDir();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const apiOnly = runCli(['api'], {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
      WATCHLOG_PROJECTION_LEASE_MS: '1000',
    });
    t.teardown(() => {
      apiOnly.child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });
    await waitForLog(apiOnly, 'listening', 60_000);
    const warning = await waitForLog(
      apiOnly,
      'no projector runs these read models: start a `watchlog worker` (this `api` process does not project), ' +
        'or changes will not show and readiness stays false',
      30_000,
    );
    t.true((warning.projections as string[]).includes('access'));
    const res = await readyz(url);
    t.is(res.status, 503);
    t.is(res.body.status, 'not_ready');
    t.like(res.body.read_models.access, { ok: false, projector: false });
    // Two more looks at the leases (one a second): nothing says when they happened, so wait for them.
    await new Promise((r) => setTimeout(r, 2500));
    t.is(
      apiOnly
        .stdout()
        .split('\n')
        .filter((l) => l.includes('no projector runs these read models')).length,
      1,
      'one warning, not one per check',
    );

    // A worker starts: readiness follows, and the warning is answered once.
    const worker = runCli(['worker'], { WATCHLOG_DATA_DIR: dataDir, WATCHLOG_PROJECTION_LEASE_MS: '1000' });
    t.teardown(() => worker.child.kill('SIGKILL'));
    await eventually(async () => ((await readyz(url)).status === 200 ? true : undefined), 60_000);
    await waitForLog(apiOnly, 'projectors run every read model again', 30_000);
  },
);
