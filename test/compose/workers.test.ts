import test from 'ava';
import Database from 'better-sqlite3';
import path from 'node:path';
import { api, eventually, login, projectWithKey, sampleEvent } from '../helpers/server.ts';
import { runCli, serviceSetup, waitForLog, type CliProcess } from '../helpers/process.ts';

// Long enough that a busy CI machine does not make a live holder miss its renewals (every third
// of it), and that a killed holder's lease is still unexpired when its standby takes it over.
const LEASE_MS = 9000;

/** A projection's lease row: the pid in its holder id (`host:pid:thread:nonce`), and its expiry. */
const leaseOf = (dataDir: string, projection: string): { pid: number; expiresAt: number } | undefined => {
  const db = new Database(path.join(dataDir, 'views.db'), { readonly: true });
  try {
    const row = db
      .prepare<[string], { holder: string; expires_at: number }>(
        'SELECT holder, expires_at FROM leases WHERE projection = ?',
      )
      .get(projection);
    return row ? { pid: Number(row.holder.split(':')[1]), expiresAt: row.expires_at } : undefined;
  } finally {
    db.close();
  }
};
const leaseHolderPid = (dataDir: string, projection: string) => leaseOf(dataDir, projection)?.pid;

const acquisitions = (p: CliProcess, projection: string) =>
  p
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg?: string; projection?: string })
    .filter((e) => e.msg === 'projection lease acquired' && e.projection === projection).length;

test('two workers on one data dir: each projection runs in exactly one; a killed holder is taken over', async (t) => {
  const { dataDir, port, env } = await serviceSetup(t, {
    WATCHLOG_PROJECTION_LEASE_MS: String(LEASE_MS),
    WATCHLOG_LOG_LEVEL: 'debug',
  });
  const url = `http://127.0.0.1:${port}`;
  const workers = [runCli(['worker'], env), runCli(['worker'], env)];
  const apiProcess = runCli(['api'], env);
  t.teardown(() => {
    for (const p of [...workers, apiProcess]) p.child.kill('SIGKILL');
  });
  await Promise.all(workers.map((w) => waitForLog(w, 'worker started')));
  await waitForLog(apiProcess, 'admin user created', 45_000);

  const token = await login(url);
  const { projectId, apiKey } = await projectWithKey(url, token);
  const ingest = (n: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        api(url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ identifier: `u-${i}` }) }),
      ),
    );
  const count = async () =>
    (await api(url, 'GET', `/v1/audit?project_id=${projectId}`, { token })).body.pagination.totalItems as number;

  await ingest(50);
  await eventually(async () => ((await count()) === 50 ? true : undefined), 10_000);
  // Wait two of the standby's attempts (one every third of the lease): it must keep failing.
  await new Promise((r) => setTimeout(r, (LEASE_MS * 2) / 3 + 500));
  for (const projection of ['audit-events', 'access']) {
    t.deepEqual(workers.map((w) => acquisitions(w, projection)).sort(), [0, 1], projection);
  }

  const held = leaseOf(dataDir, 'audit-events')!;
  const holder = workers.find((w) => w.child.pid === held.pid)!;
  const standby = workers.find((w) => w !== holder)!;
  holder.child.kill('SIGKILL');
  await holder.exited;
  // The holder's process is gone: its lease is taken over at the standby's next attempt, before
  // it expires.
  await eventually(
    async () => (leaseHolderPid(dataDir, 'audit-events') === standby.child.pid ? true : undefined),
    LEASE_MS,
  );
  t.true(Date.now() < held.expiresAt, "taken over before the dead holder's lease expired");
  await ingest(30);
  await eventually(async () => ((await count()) === 80 ? true : undefined), LEASE_MS * 2);
  t.is(await count(), 80);

  // A rebuild runs beside the live workers: each moves to the new read models once published.
  const rebuild = runCli(['rebuild'], env);
  t.is(await rebuild.exited, 0, rebuild.stderr());
  await Promise.all(
    [standby, apiProcess].map((p) => waitForLog(p, 'moved to the read models a rebuild published', 20_000)),
  );
  await ingest(20);
  await eventually(async () => ((await count()) === 100 ? true : undefined), LEASE_MS * 2);
  t.is(await count(), 100);

  standby.child.kill('SIGTERM');
  apiProcess.child.kill('SIGTERM');
  t.is(await standby.exited, 0);
  t.is(await apiProcess.exited, 0);
});

const checkpointOf = (dataDir: string, projection: string): string | null => {
  const db = new Database(path.join(dataDir, 'views.db'), { readonly: true });
  try {
    return (
      db
        .prepare<[string], { position: string }>('SELECT position FROM checkpoints WHERE projection = ?')
        .get(projection)?.position ?? null
    );
  } finally {
    db.close();
  }
};

// An upgrade that changes a read model's schema, met by a process of the new version while one
// of the old still projects it: the new one must not drop the tables under the old one's writes.
test(
  'a read model of another version is not dropped under a live worker: ' +
    'a new process refuses to start and says why; once the worker stops, it is rebuilt',
  async (t) => {
    const { dataDir, port, env } = await serviceSetup(t, {
      WATCHLOG_PROJECTION_LEASE_MS: String(LEASE_MS),
    });
    const first = runCli(['start'], env);
    t.teardown(() => first.child.kill('SIGKILL'));
    await waitForLog(first, 'admin user created', 45_000);
    await login(`http://127.0.0.1:${port}`);
    first.child.kill('SIGTERM');
    t.is(await first.exited, 0);

    const worker = runCli(['worker'], env);
    t.teardown(() => worker.child.kill('SIGKILL'));
    await waitForLog(worker, 'worker started');
    await eventually(async () => (leaseHolderPid(dataDir, 'access') === worker.child.pid ? true : undefined), LEASE_MS);
    const built = checkpointOf(dataDir, 'access');
    t.not(built, null);
    const versionOf = () => {
      const views = new Database(path.join(dataDir, 'views.db'), { readonly: true });
      try {
        return views
          .prepare<[], { version: number }>("SELECT version FROM read_model_versions WHERE projection = 'access'")
          .get()?.version;
      } finally {
        views.close();
      }
    };
    const current = versionOf();
    const db = new Database(path.join(dataDir, 'views.db'));
    db.prepare("UPDATE read_model_versions SET version = version - 1 WHERE projection = 'access'").run();
    db.close();

    const newer = runCli(['api'], env);
    t.teardown(() => newer.child.kill('SIGKILL'));
    t.is(await newer.exited, 1);
    t.regex(
      newer.stderr(),
      new RegExp(
        '^watchlog: read models built by another version of watchlog and projected by a running process: ' +
          'access \\(held by [^)]+\\); stop the older workers',
      ),
    );
    // The worker went on projecting (a checkpoint the sealer signed moves it); dropped, it would be null.
    t.true(Number(checkpointOf(dataDir, 'access')) >= Number(built), 'nothing dropped under the worker');

    worker.child.kill('SIGTERM');
    t.is(await worker.exited, 0);
    const upgraded = runCli(['start'], env);
    t.teardown(() => upgraded.child.kill('SIGKILL'));
    await waitForLog(upgraded, 'listening', 45_000);
    // Dropped and rebuilt at this version at start-up, then replayed by this process's projector:
    // signing in reads it.
    t.is(versionOf(), current);
    await login(`http://127.0.0.1:${port}`);
    upgraded.child.kill('SIGTERM');
    t.is(await upgraded.exited, 0);
  },
);
