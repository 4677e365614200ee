import test, { type ExecutionContext } from 'ava';
import { rmSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { SqliteBackend } from '@watchlog/agenda-sqlite';
import {
  CHECK_JOB,
  RECONCILE_JOB,
  WorkerJobs,
  scheduleChangesFor,
  type RepeatingJob,
  type WorkerJobsOptions,
} from '../../src/jobs/worker-jobs.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import type { MonitorView } from '../../src/views/monitors/port.ts';
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

const monitorView = (id: string, interval_seconds: number, enabled: boolean): MonitorView => ({
  id,
  project_id: 'p1',
  name: id,
  url: 'http://127.0.0.1:9/',
  interval_seconds,
  timeout_seconds: 5,
  expected_status: 200,
  enabled,
  status: 'PENDING',
  status_since: null,
  last_checked_at: null,
  last_status_code: null,
  last_response_ms: null,
  last_error: null,
  last_certificate: null,
  type: 'http',
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-01T00:00:00.000Z',
});

type Monitors = ConstructorParameters<typeof WorkerJobs>[1]['monitors'];

/** Workers sharing one jobs.db, each on its own connection as separate processes are, and an
 *  event log their checks never reach (no monitor's stream exists). */
const jobStore = (t: ExecutionContext) => {
  const dir = tempDir('watchlog-reconcile-');
  const file = path.join(dir, 'jobs.db');
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  const backends: SqliteBackend[] = [];
  const workers: WorkerJobs[] = [];
  t.teardown(async () => {
    for (const worker of workers) await worker.stop();
    for (const backend of backends) await backend.disconnect();
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const connection = async () => {
    const backend = new SqliteBackend(file);
    backends.push(backend);
    await backend.connect();
    await backend.ensureUniqueIndex(CHECK_JOB, 'monitor_id');
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

test("a monitor's job follows its interval and enabled flag field by field", (t) => {
  const now = new Date('2025-01-01T00:00:00.000Z');
  t.is(
    scheduleChangesFor({ repeatInterval: 60_000, disabled: false }, { interval_seconds: 60, enabled: true }, now),
    null,
  );
  t.is(
    scheduleChangesFor({ repeatInterval: 60_000 }, { interval_seconds: 60, enabled: true }, now),
    null,
    'never disabled is enabled',
  );
  t.deepEqual(
    scheduleChangesFor({ repeatInterval: 60_000, disabled: false }, { interval_seconds: 30, enabled: true }, now),
    { repeatInterval: 30_000, nextRunAt: now },
    'a new interval starts over now',
  );
  t.deepEqual(
    scheduleChangesFor(
      { repeatInterval: 3_600_000, disabled: false },
      { interval_seconds: 3600, enabled: true, type: 'heartbeat' },
      now,
    ),
    { repeatInterval: 10_000, nextRunAt: now },
    'a heartbeat monitor is watched every 10 s, whatever its interval',
  );
  t.deepEqual(
    scheduleChangesFor({ repeatInterval: 60_000, disabled: false }, { interval_seconds: 60, enabled: false }, now),
    { disabled: true },
    'pausing only sets the flag',
  );
  t.deepEqual(
    scheduleChangesFor({ repeatInterval: 60_000, disabled: true }, { interval_seconds: 60, enabled: true }, now),
    { disabled: false, nextRunAt: now },
    'enabled again: checked at once',
  );
});

test(
  "a check running on another worker keeps its job's lock " + "while its monitor's interval and enabled flag change",
  async (t) => {
    const store = jobStore(t);
    let monitors = [monitorView('m1', 60, true)];
    // Not started: this worker only reconciles, so the check is nobody's but the other worker's.
    const jobs = await store.worker({ list: async () => monitors, get: async () => null });
    const stored = async () => (await jobs.agenda.queryJobs({ name: CHECK_JOB, data: { monitor_id: 'm1' } })).jobs;
    await jobs.reconcile();
    t.like((await stored())[0], { repeatInterval: 60_000, disabled: false });

    const other = (await store.connection()).repository;
    // A live worker keeps touching its lock; one dated a minute ahead stays fresh however slow the machine.
    const lockTime = new Date(Date.now() + 60_000);
    const running = await other.getNextJobToRun(CHECK_JOB, new Date(Date.now() + 1000), new Date(0), lockTime, {
      lastModifiedBy: 'other-worker',
    });
    t.truthy(running, 'the other worker runs the check');
    const third = (await store.connection()).repository;

    const steps: Array<[Partial<MonitorView>, Record<string, unknown>]> = [
      [{ interval_seconds: 30 }, { repeatInterval: 30_000, disabled: false }],
      [{ enabled: false }, { repeatInterval: 30_000, disabled: true }],
      [{ enabled: true }, { repeatInterval: 30_000, disabled: false }],
    ];
    for (const [change, expected] of steps) {
      monitors = monitors.map((m) => ({ ...m, ...change }));
      await jobs.reconcile();
      const after = await stored();
      t.is(after.length, 1);
      t.like(after[0], expected);
      t.is(after[0]?.lockedAt?.getTime(), lockTime.getTime(), `the lock survives ${JSON.stringify(change)}`);
      t.is(after[0]?.lastModifiedBy, 'other-worker');
      t.is(
        await third.getNextJobToRun(
          CHECK_JOB,
          new Date(Date.now() + 60_000),
          new Date(Date.now() - 2000),
          undefined,
          undefined,
        ),
        undefined,
        'and no third worker takes it',
      );
    }
  },
);

test(
  'workers starting together on an empty store keep one of each repeating job, ' + 'and reconcile one at a time',
  async (t) => {
    const store = jobStore(t);
    let inFlight = 0;
    let most = 0;
    let reconciliations = 0;
    const monitors: Monitors = {
      list: async () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        reconciliations += 1;
        // Long enough that reconciliations started by several workers would overlap.
        await sleep(30);
        inFlight -= 1;
        return [];
      },
      get: async () => null,
    };
    const sweep: RepeatingJob = { name: 'sweep', everyMs: 60_000, run: async () => undefined };
    const options: WorkerJobsOptions = { processEveryMs: 20, reconcileEveryMs: 20, repeating: [sweep] };
    const workers = await Promise.all([1, 2, 3].map(() => store.worker(monitors, options)));
    await Promise.all(workers.map((w) => w.start()));
    await until(() => reconciliations >= 10, 'ten reconciliations', 15_000);
    t.is(most, 1, 'never two reconciliations at once');
    const [first] = workers;
    for (const name of ['sweep', RECONCILE_JOB]) {
      t.deepEqual(
        (await first!.agenda.queryJobs({ name })).jobs.map((j) => j.type),
        ['single'],
        name,
      );
    }
  },
);

test(
  "a worker starting while another runs a repeating job leaves that job's lock alone, " +
    'and changes only its interval',
  async (t) => {
    const store = jobStore(t);
    const monitors: Monitors = { list: async () => [], get: async () => null };
    const sweep: RepeatingJob = { name: 'sweep', everyMs: 60_000, run: async () => undefined };
    const before = await store.worker(monitors, { repeating: [sweep] });
    await before.agenda.every(60_000, 'sweep');
    const other = (await store.connection()).repository;
    const lockTime = new Date(Date.now() + 60_000);
    t.truthy(
      await other.getNextJobToRun('sweep', new Date(Date.now() + 1000), new Date(0), lockTime, {
        lastModifiedBy: 'other-worker',
      }),
    );

    const starting = await store.worker(monitors, { repeating: [{ ...sweep, everyMs: 30_000 }] });
    await starting.start();
    const { jobs } = await starting.agenda.queryJobs({ name: 'sweep' });
    t.is(jobs.length, 1);
    t.like(jobs[0], { type: 'single', repeatInterval: 30_000, lastModifiedBy: 'other-worker' });
    t.is(jobs[0]?.lockedAt?.getTime(), lockTime.getTime());
  },
);

test(
  'with a schedule version, the jobs are compared again when it changes, after a failed comparison, ' +
    'and after fullReconcileEveryMs, not otherwise',
  async (t) => {
    const store = jobStore(t);
    let monitors = [monitorView('m1', 60, true)];
    let version = 'v1';
    let listed = 0;
    let failNext = false;
    const jobs = await store.worker(
      {
        list: async () => {
          listed += 1;
          if (failNext) {
            failNext = false;
            throw new Error('read model unavailable');
          }
          return monitors;
        },
        get: async () => null,
        scheduleVersion: async () => version,
      },
      { fullReconcileEveryMs: 300 },
    );
    const stored = async () =>
      (await jobs.agenda.queryJobs({ name: CHECK_JOB })).jobs.map((j) => (j.data as { monitor_id: string }).monitor_id);
    await jobs.reconcile();
    await jobs.reconcile();
    t.is(listed, 1, 'the same version: no second comparison');
    t.deepEqual(await stored(), ['m1']);

    monitors = [...monitors, monitorView('m2', 60, true)];
    version = 'v2';
    await jobs.reconcile();
    t.is(listed, 2);
    t.deepEqual((await stored()).sort(), ['m1', 'm2']);

    version = 'v3';
    failNext = true;
    await jobs.reconcile();
    await jobs.reconcile();
    t.is(listed, 4, 'a failed comparison is made again at the same version');

    await sleep(350);
    await jobs.reconcile();
    t.is(listed, 5, 'and every fullReconcileEveryMs whatever the version');
  },
);
