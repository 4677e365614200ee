import test from 'ava';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { JobParameters } from 'agenda';
import { SqliteBackend } from '../src/index.ts';
import { agendaBackendContract } from './contract.ts';

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'agenda-sqlite-test-'));

agendaBackendContract(
  'sqlite',
  async () => {
    const dir = tempDir();
    const file = path.join(dir, 'jobs.db');
    const backend = new SqliteBackend(file);
    const seconds: SqliteBackend[] = [];
    return {
      backend,
      // Its own connection to the file, as another process would have.
      openSecond: async () => {
        const second = new SqliteBackend(file);
        seconds.push(second);
        return second;
      },
      cleanup: async () => {
        for (const b of [backend, ...seconds]) await b.disconnect();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  {
    ensureUniqueIndex: (backend, name, dataPath) => backend.ensureUniqueIndex(name, dataPath),
    updateSchedule: (backend, id, changes) => backend.updateSchedule(id, changes),
  },
);

const job = (name: string, fields: Partial<JobParameters> = {}): JobParameters => ({
  name,
  priority: 0,
  nextRunAt: new Date(),
  type: 'normal',
  data: {},
  ...fields,
});

const withFile = (title: string, body: (t: import('ava').ExecutionContext, file: string) => Promise<void>) =>
  test(title, async (t) => {
    const dir = tempDir();
    try {
      await body(t, path.join(dir, 'jobs.db'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

withFile('a backend on a path owns its file: WAL, closed on disconnect, reopened on connect', async (t, file) => {
  const backend = new SqliteBackend(file);
  t.is(backend.name, 'SQLite');
  t.true(backend.ownsConnection);
  await t.throwsAsync(backend.repository.getQueueSize(), { message: /not connected/ });
  await backend.connect();
  await backend.connect();
  const saved = await backend.repository.saveJob(job('kept', { data: { n: 1 } }), undefined);
  await backend.disconnect();
  await backend.disconnect();
  await t.throwsAsync(backend.repository.getQueueSize(), { message: /not connected/ });

  const peek = new Database(file, { readonly: true });
  t.is(peek.pragma('journal_mode', { simple: true }), 'wal');
  peek.close();

  await backend.connect();
  t.deepEqual((await backend.repository.getJobById(String(saved._id)))?.data, { n: 1 });
  await backend.disconnect();
});

withFile('a backend on an open Database leaves it to its owner', async (t, file) => {
  const db = new Database(file);
  try {
    const backend = new SqliteBackend(db);
    t.false(backend.ownsConnection);
    await backend.connect();
    await backend.repository.saveJob(job('shared'), undefined);
    await backend.disconnect();
    t.true(db.open);
    t.is(db.prepare('SELECT count(*) AS n FROM agenda_jobs').pluck().get(), 1);
  } finally {
    db.close();
  }
});

withFile('unique keys are plain field paths: operators and unknown fields are refused', async (t, file) => {
  const backend = new SqliteBackend(file);
  t.teardown(() => backend.disconnect());
  await backend.connect();
  const { repository } = backend;
  const refused = [
    { 'data.k': { $gt: 1 } },
    { 'data.$where': 1 },
    { 'data.a-b': 1 },
    { $or: [] },
    { 'data..k': 1 },
    { nosuchfield: 1 },
    { 'name.x': 1 },
    { 'data.k': [{ $ne: 1 }] },
  ];
  for (const unique of refused) {
    await t.throwsAsync(repository.saveJob(job('u', { unique }), undefined), undefined, JSON.stringify(unique));
  }
  t.is((await repository.queryJobs({})).total, 0);

  const nested = { data: { tags: ['a', 'b'], deep: { id: 7 } } };
  const first = await repository.saveJob(
    job('u', { ...nested, unique: { 'data.tags.1': 'b', 'data.deep.id': 7, priority: 0 } }),
    undefined,
  );
  const again = await repository.saveJob(
    job('u', { ...nested, unique: { 'data.tags.1': 'b', 'data.deep.id': 7, priority: 0 } }),
    undefined,
  );
  t.is(again._id, first._id);
  const whole = await repository.saveJob(job('u', { ...nested, unique: { 'data.deep': { id: 7 } } }), undefined);
  t.is(whole._id, first._id, 'a sub-document is compared whole');
  t.is((await repository.queryJobs({ data: { tags: ['a', 'b'] } })).total, 1);
});

withFile('ensureUniqueIndex refuses what it cannot put into DDL safely', async (t, file) => {
  const backend = new SqliteBackend(file);
  t.teardown(() => backend.disconnect());
  await backend.connect();
  for (const dataPath of ['a.b', "x') --", '1st', '']) {
    await t.throwsAsync(backend.ensureUniqueIndex('check', dataPath), undefined, dataPath);
  }
  await t.throwsAsync(backend.ensureUniqueIndex('bad\nname', 'id'));
  await t.throwsAsync(backend.ensureUniqueIndex('', 'id'));
  // A quote in a job name is data, not SQL.
  await backend.ensureUniqueIndex("o'clock", 'id');
  await backend.repository.saveJob(job("o'clock", { data: { id: 1 } }), undefined);
  await t.throwsAsync(backend.repository.saveJob(job("o'clock", { data: { id: 1 } }), undefined), {
    any: true,
    message: /UNIQUE/,
  });
});

/** A worker thread with its own connection to the file: real parallelism, unlike several
 *  connections in one thread, whose synchronous calls never overlap. All of them wait at a
 *  barrier so that they race from the same instant. */
const RACER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { register } = await import(workerData.tsx);
  register();
  const { SqliteBackend } = await import(workerData.backend);
  const backend = new SqliteBackend(workerData.file);
  await backend.connect();
  const repo = backend.repository;
  const barrier = new Int32Array(workerData.barrier);
  Atomics.add(barrier, 0, 1);
  Atomics.notify(barrier, 0);
  Atomics.wait(barrier, 1, 0);
  for (let i = 0; i < 30; i++) {
    const monitorId = 'm' + (i % 10);
    await repo.saveJob({ name: 'check', priority: 0, nextRunAt: new Date(), type: 'normal',
      data: { monitorId, by: workerData.name }, unique: { 'data.monitorId': monitorId } }, undefined);
  }
  for (let i = 0; i < 10; i++) {
    await repo.saveJob({ name: 'sweep' + i, priority: 0, nextRunAt: new Date(), type: 'single', repeatInterval: 60000,
      data: { by: workerData.name } }, undefined);
  }
  const locked = [];
  for (;;) {
    const job = await repo.getNextJobToRun('race', new Date(Date.now() + 60000), new Date(0), undefined,
      { lastModifiedBy: workerData.name });
    if (!job) break;
    locked.push(String(job._id));
  }
  await backend.disconnect();
  parentPort.postMessage(locked);
})();`;

withFile('workers on their own connections lock each job once and upsert each unique job once', async (t, file) => {
  const JOBS = 500;
  const backend = new SqliteBackend(file);
  t.teardown(() => backend.disconnect());
  await backend.connect();
  for (let i = 0; i < JOBS; i++)
    await backend.repository.saveJob(job('race', { nextRunAt: new Date(Date.now() - 1000) }), undefined);

  // [0]: workers at the barrier, [1]: 1 once they may go.
  const barrier = new SharedArrayBuffer(8);
  const arrived = new Int32Array(barrier);
  const names = ['w1', 'w2', 'w3'];
  const racers = names.map((name) => {
    const worker = new Worker(RACER, {
      eval: true,
      workerData: {
        name,
        file,
        barrier,
        tsx: import.meta.resolve('tsx/esm/api'),
        backend: new URL('../src/index.ts', import.meta.url).href,
      },
    });
    return new Promise<string[]>((resolve, reject) => {
      worker.once('message', (message: unknown) => {
        if (Array.isArray(message)) resolve(message.map(String));
        else reject(new Error(`worker ${name} sent ${String(message)}`));
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`worker ${name} exited with ${code} before reporting`)));
    });
  });
  const deadline = Date.now() + 20_000;
  while (Atomics.load(arrived, 0) < names.length) {
    if (Date.now() > deadline) throw new Error('the workers did not start');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  Atomics.store(arrived, 1, 1);
  Atomics.notify(arrived, 1);
  const results = await Promise.all(racers);

  const all = results.flat();
  t.is(all.length, JOBS, 'every due job was handed out');
  t.is(new Set(all).size, JOBS, 'and none twice');
  t.log('jobs locked per worker:', results.map((ids) => ids.length).join(', '));
  const lockedBy = new Map<string, string | undefined>();
  for (const row of (await backend.repository.queryJobs({ name: 'race' })).jobs)
    lockedBy.set(String(row._id), row.lastModifiedBy);
  for (const [i, ids] of results.entries()) {
    t.true(
      ids.every((id) => lockedBy.get(id) === names[i]),
      `the rows say ${names[i]} locked what it reported`,
    );
  }
  t.is(
    (await backend.repository.queryJobs({ name: 'check' })).total,
    10,
    'one job per monitor id, without a unique index',
  );
  const singles = await backend.repository.queryJobs({ search: 'sweep' });
  t.is(singles.total, 10, "every() from three threads at once: one 'single' job per name");
});

withFile(
  "a file from before the single-job index: connect keeps the oldest of each name's 'single' jobs",
  async (t, file) => {
    const before = new SqliteBackend(file);
    await before.connect();
    await before.disconnect();
    const raw = new Database(file);
    raw.exec(`DROP INDEX agenda_jobs_single_name;
    INSERT INTO agenda_jobs (id, name, priority, type, next_run_at) VALUES
      ('first', 'scan', 0, 'single', 1), ('second', 'scan', 0, 'single', 2), ('other', 'trim', 0, 'single', 3),
      ('plain1', 'scan', 0, 'normal', 4), ('plain2', 'scan', 0, 'normal', 5)`);
    raw.close();

    const backend = new SqliteBackend(file);
    t.teardown(() => backend.disconnect());
    await backend.connect();
    const ids = async (name: string) =>
      (await backend.repository.queryJobs({ name })).jobs.map((j) => String(j._id)).sort();
    t.deepEqual(await ids('scan'), ['first', 'plain1', 'plain2'], 'normal jobs are not touched');
    t.deepEqual(await ids('trim'), ['other']);
    const saved = await backend.repository.saveJob(
      job('scan', { type: 'single', nextRunAt: new Date(Date.now() + 60_000) }),
      undefined,
    );
    t.is(String(saved._id), 'first', 'every() goes on updating the job it kept');
    const plain = await backend.repository.saveJob(job('trim'), undefined);
    await t.throwsAsync(
      backend.repository.saveJob({ ...plain, type: 'single' }, undefined),
      { any: true, message: /UNIQUE/ },
      'the index now exists',
    );
  },
);
