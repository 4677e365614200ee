import test, { type ExecutionContext } from 'ava';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { SqliteBackend } from '@watchlog/agenda-sqlite';
import { SHARDS } from '../../src/jobs/check-schedule.ts';
import { SHARD_JOB, WorkerJobs, type RepeatingJob, type WorkerJobsOptions } from '../../src/jobs/worker-jobs.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import type { MonitorSchedule } from '../../src/views/monitors/port.ts';
import { defaultEgress } from '../helpers/egress.ts';
import { tempDir } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
};

/** A monitor's schedule as the read model lists it: never checked, every `interval_seconds`. */
const scheduled = (id: string, interval_seconds: number, enabled: boolean): MonitorSchedule => ({
  id,
  type: 'http',
  interval_seconds,
  enabled,
  status: 'PENDING',
  last_checked_at: null,
  last_error: null,
  updated_at: '2025-01-01T00:00:00.000Z',
});

type Monitors = ConstructorParameters<typeof WorkerJobs>[1]['monitors'];

/** Workers sharing one jobs.db, each on its own connection as separate processes are, and an
 *  event log their checks never reach (no monitor's stream exists). */
const jobStore = (t: ExecutionContext) => {
  const dir = tempDir('watchlog-shards-');
  const file = path.join(dir, 'jobs.db');
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  const backends: SqliteBackend[] = [];
  const workers: WorkerJobs[] = [];
  t.teardown(async () => {
    for (const worker of workers) await worker.stop().catch(() => undefined);
    for (const backend of backends) await backend.disconnect();
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const connection = async () => {
    const backend = new SqliteBackend(file);
    backends.push(backend);
    await backend.connect();
    await backend.ensureUniqueIndex(SHARD_JOB, 'shard');
    return backend;
  };
  const worker = async (monitors: Monitors, options: WorkerJobsOptions = {}) => {
    const jobs = new WorkerJobs(
      await connection(),
      { log, monitors, egress: defaultEgress },
      pino({ level: 'silent' }),
      { lockLifetimeMs: 2000, ...options },
    );
    workers.push(jobs);
    return jobs;
  };
  return { connection, worker };
};

/** Which worker holds each shard (by the name it locked the job with), or null. */
const holders = async (jobs: WorkerJobs): Promise<Array<string | null>> => {
  const byShard: Array<string | null> = Array.from({ length: SHARDS }, () => null);
  for (const job of (await jobs.agenda.queryJobs({ name: SHARD_JOB })).jobs) {
    const { shard } = job.data as { shard: number };
    byShard[shard] = job.lockedAt ? (job.lastModifiedBy ?? '?') : null;
  }
  return byShard;
};

const noMonitors: Monitors = { scheduled: async () => [] };

test(
  'workers starting together keep one job per shard and one of each repeating job, ' +
    'and every shard is held by one worker',
  async (t) => {
    const store = jobStore(t);
    const sweep: RepeatingJob = { name: 'sweep', everyMs: 60_000, run: async () => undefined };
    const workers = await Promise.all(
      ['w1', 'w2', 'w3'].map((name) => store.worker(noMonitors, { name, processEveryMs: 20, repeating: [sweep] })),
    );
    await Promise.all(workers.map((w) => w.start()));
    const [first] = workers;
    await until(async () => (await holders(first!)).every((h) => h !== null), 'every shard held');
    const jobs = (await first!.agenda.queryJobs({ name: SHARD_JOB })).jobs;
    t.deepEqual(
      jobs.map((j) => (j.data as { shard: number }).shard).sort((a, b) => a - b),
      Array.from({ length: SHARDS }, (_, i) => i),
    );
    for (const holder of await holders(first!)) t.true(['w1', 'w2', 'w3'].includes(holder ?? ''));
    t.deepEqual(
      (await first!.agenda.queryJobs({ name: 'sweep' })).jobs.map((j) => j.type),
      ['single'],
    );
  },
);

test(
  "a shard's lock is renewed while its worker holds it, so another worker never takes it; " +
    'a worker that stops hands its shards over at once',
  async (t) => {
    const store = jobStore(t);
    const options: WorkerJobsOptions = { lockLifetimeMs: 300, processEveryMs: 20 };
    const a = await store.worker(noMonitors, { ...options, name: 'a' });
    await a.start();
    await until(async () => (await holders(a)).every((h) => h === 'a'), 'a holding every shard');
    const b = await store.worker(noMonitors, { ...options, name: 'b' });
    await b.start();
    // Four lock lifetimes: without renewals b would have taken the shards.
    await sleep(1200);
    t.deepEqual(
      await holders(a),
      Array.from({ length: SHARDS }, () => 'a'),
    );
    const fresh = (await a.agenda.queryJobs({ name: SHARD_JOB })).jobs.every(
      (j) => j.lockedAt !== undefined && Date.now() - j.lockedAt.getTime() < 300,
    );
    t.true(fresh, 'every lock was renewed within its lifetime');

    const stopping = Date.now();
    await a.stop();
    await until(async () => (await holders(b)).every((h) => h === 'b'), 'b holding every shard', 5000);
    t.true(Date.now() - stopping < 2000, 'taken over at its next scans, not after the locks expired');
  },
);

test('a shard whose worker died (its lock no longer renewed) is taken once the lock expires', async (t) => {
  const store = jobStore(t);
  const options: WorkerJobsOptions = { lockLifetimeMs: 2000, processEveryMs: 20 };
  const first = await store.worker(noMonitors, { ...options, name: 'first' });
  await first.start();
  await until(async () => (await holders(first)).every((h) => h === 'first'), 'the shards held');
  await first.stop();
  // A worker that locks one shard and dies at once.
  const dead = (await store.connection()).repository;
  const locked = await dead.getNextJobToRun(SHARD_JOB, new Date(Date.now() + 1000), new Date(0), new Date(), {
    lastModifiedBy: 'dead',
  });
  const shard = (locked?.data as { shard: number } | undefined)?.shard;
  if (shard === undefined) throw new Error('no shard job to lock');
  const lockedAt = Date.now();

  const survivor = await store.worker(noMonitors, { ...options, name: 'survivor' });
  await survivor.start();
  await until(
    async () => (await holders(survivor)).filter((h) => h === 'survivor').length === SHARDS - 1,
    'the other shards taken',
  );
  t.is((await holders(survivor))[shard], 'dead', "the dead worker's shard waits for its lock to expire");
  await until(async () => (await holders(survivor))[shard] === 'survivor', 'the dead shard taken', 5000);
  t.true(Date.now() - lockedAt >= 2000, 'not before the lock expired');
});

test(
  "a worker starting while another runs a repeating job leaves that job's lock alone, " +
    'and changes only its interval',
  async (t) => {
    const store = jobStore(t);
    const sweep: RepeatingJob = { name: 'sweep', everyMs: 60_000, run: async () => undefined };
    const before = await store.worker(noMonitors, { repeating: [sweep] });
    await before.agenda.every(60_000, 'sweep');
    const other = (await store.connection()).repository;
    const lockTime = new Date(Date.now() + 60_000);
    t.truthy(
      await other.getNextJobToRun('sweep', new Date(Date.now() + 1000), new Date(0), lockTime, {
        lastModifiedBy: 'other-worker',
      }),
    );

    const starting = await store.worker(noMonitors, { repeating: [{ ...sweep, everyMs: 30_000 }] });
    await starting.start();
    const { jobs } = await starting.agenda.queryJobs({ name: 'sweep' });
    t.is(jobs.length, 1);
    t.like(jobs[0], { type: 'single', repeatInterval: 30_000, lastModifiedBy: 'other-worker' });
    t.is(jobs[0]?.lockedAt?.getTime(), lockTime.getTime());
  },
);

test(
  'with a schedule version, the monitors are listed again when it changes, after a failed listing, ' +
    'and after fullReconcileEveryMs, not otherwise',
  async (t) => {
    const store = jobStore(t);
    let version = 'v1';
    let listed = 0;
    let failNext = false;
    const jobs = await store.worker(
      {
        scheduled: async () => {
          listed += 1;
          if (failNext) {
            failNext = false;
            throw new Error('read model unavailable');
          }
          return [scheduled('m1', 60, true)];
        },
        scheduleVersion: async () => version,
      },
      { fullReconcileEveryMs: 300 },
    );
    await jobs.reconcile();
    await jobs.reconcile();
    t.is(listed, 1, 'the same version: no second listing');

    version = 'v2';
    await jobs.reconcile();
    t.is(listed, 2);

    version = 'v3';
    failNext = true;
    await jobs.reconcile();
    await jobs.reconcile();
    t.is(listed, 4, 'a failed listing is made again at the same version');

    await sleep(350);
    await jobs.reconcile();
    t.is(listed, 5, 'and every fullReconcileEveryMs whatever the version');
  },
);
