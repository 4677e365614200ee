import test from 'ava';
import Database from 'better-sqlite3';
import path from 'node:path';
import { rmSync } from 'node:fs';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, tempDir } from '../helpers/server.ts';
import { freePort, runCli, waitForLog, type CliProcess } from '../helpers/process.ts';

// Long enough that a busy CI machine does not make a live holder miss its renewals.
const LEASE_MS = 4000;

/** The pid in the holder id (`host:pid:thread:nonce`) of a projection's lease. */
const leaseHolderPid = (dataDir: string, projection: string): number | undefined => {
  const db = new Database(path.join(dataDir, 'views.db'), { readonly: true });
  try {
    const row = db.prepare<[string], { holder: string }>('SELECT holder FROM leases WHERE projection = ?').get(projection);
    return row ? Number(row.holder.split(':')[1]) : undefined;
  } finally {
    db.close();
  }
};

const acquisitions = (p: CliProcess, projection: string) =>
  p.stdout().split('\n').filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; projection?: string })
    .filter((e) => e.msg === 'projection lease acquired' && e.projection === projection).length;

test('two workers on one data dir: each projection runs in exactly one; a killed holder is taken over', async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const env = {
    PORT: String(port), WATCHLOG_DATA_DIR: dataDir, WATCHLOG_ADMIN_EMAIL: ADMIN.email, WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    WATCHLOG_PROJECTION_LEASE_MS: String(LEASE_MS),
  };
  const url = `http://127.0.0.1:${port}`;
  const workers = [runCli(['worker'], env), runCli(['worker'], env)];
  const apiProcess = runCli(['api'], env);
  t.teardown(() => [...workers, apiProcess].forEach((p) => p.child.kill('SIGKILL')));
  await Promise.all(workers.map((w) => waitForLog(w, 'worker started')));
  await waitForLog(apiProcess, 'admin user created', 45_000);

  const token = await login(url);
  const { projectId, apiKey } = await projectWithKey(url, token);
  const ingest = (n: number) => Promise.all(Array.from({ length: n }, (_, i) =>
    api(url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ identifier: `u-${i}` }) })));
  const count = async () => (await api(url, 'GET', `/v1/audit?project_id=${projectId}`, { token })).body.pagination.totalItems as number;

  await ingest(50);
  await eventually(async () => ((await count()) === 50 ? true : undefined), 10_000);
  // Wait a few lease periods: the standby must keep failing to take the lease.
  await new Promise((r) => setTimeout(r, LEASE_MS * 2));
  for (const projection of ['audit-events', 'access']) {
    t.deepEqual(workers.map((w) => acquisitions(w, projection)).sort(), [0, 1], projection);
  }

  const holder = workers.find((w) => w.child.pid === leaseHolderPid(dataDir, 'audit-events'))!;
  const standby = workers.find((w) => w !== holder)!;
  holder.child.kill('SIGKILL');
  await holder.exited;
  await ingest(30);
  await eventually(async () => ((await count()) === 80 ? true : undefined), LEASE_MS * 5);
  t.is(leaseHolderPid(dataDir, 'audit-events'), standby.child.pid, 'the standby took the projection over');
  t.is(await count(), 80);

  // A rebuild refuses to run beside a live worker.
  const rebuild = runCli(['rebuild'], env);
  t.is(await rebuild.exited, 1);
  t.regex(rebuild.stderr(), /leased by a running worker/);

  standby.child.kill('SIGTERM');
  apiProcess.child.kill('SIGTERM');
  t.is(await standby.exited, 0);
  t.is(await apiProcess.exited, 0);
  rmSync(dataDir, { recursive: true, force: true });
});
