import test, { type ExecutionContext } from 'ava';
import { Agenda, type AgendaBackend, type AgendaOptions, type JobParameters, type JobRepository } from 'agenda';

/** What a test file hands the contract: a fresh, not yet connected backend on empty storage. */
export interface OpenedBackend<B extends AgendaBackend> {
  backend: B;
  /** Stops using the storage and removes it; runs after every Agenda of the test was stopped. */
  cleanup: () => Promise<void>;
  /** Another backend on the same storage, as a second process would have it; cleanup closes it. */
  openSecond?: () => Promise<AgendaBackend>;
}

/** When a job runs and whether it may; never who holds it. */
export interface ScheduleChanges {
  repeatInterval?: number;
  nextRunAt?: Date;
  disabled?: boolean;
}

export interface AgendaBackendContractOptions<B extends AgendaBackend> {
  /** The adapter's database-enforced "one `name` job per data.<dataPath> value", where it has one. */
  ensureUniqueIndex?: (backend: B, name: string, dataPath: string) => Promise<void>;
  /** The adapter's change of a stored job's schedule that leaves its lock alone (Agenda's saves
   *  reset it), where it has one; resolves false when no job has that id. */
  updateSchedule?: (backend: B, id: string, changes: ScheduleChanges) => Promise<boolean>;
}

type AgendaSettings = Omit<Partial<AgendaOptions>, 'backend'>;

interface Harness {
  backend: AgendaBackend;
  repo: JobRepository;
  /** An Agenda on the backend (or on `on`), polling every 100 ms, locks living 1 s; stopped by
   *  the harness after the test. Each Agenda needs a backend of its own: stop() may close it. */
  agenda: (options?: AgendaSettings, on?: AgendaBackend) => Agenda;
  /** Another connected backend on the same storage, as another process has it, or the same one. */
  otherBackend: () => Promise<AgendaBackend>;
  /** The repository of another connected backend on the same storage, or the same one. */
  otherRepo: () => Promise<JobRepository>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls instead of sleeping for a fixed time: fast when the machine is, patient when it is loaded. */
const until = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
};

/** A date `offsetMs` from now. */
const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

const job = (name: string, fields: Partial<JobParameters> = {}): JobParameters => ({
  name,
  priority: 0,
  nextRunAt: new Date(),
  type: 'normal',
  data: {},
  ...fields,
});

const idOf = (saved: JobParameters | null | undefined): string => {
  if (!saved?._id) throw new Error('job without an id');
  return String(saved._id);
};

/** Agenda's storage contract (the JobRepository semantics of the official MongoDB backend), for every backend. */
export const agendaBackendContract = <B extends AgendaBackend>(
  adapter: string,
  open: () => Promise<OpenedBackend<B>>,
  options: AgendaBackendContractOptions<B> = {},
): void => {
  const title = (name: string) => `${adapter} agenda backend: ${name}`;
  const withBackend = (
    name: string,
    body: (t: ExecutionContext, h: Harness, opened: OpenedBackend<B>) => Promise<void>,
  ) =>
    test(title(name), async (t) => {
      const opened = await open();
      const agendas: Agenda[] = [];
      try {
        const { backend } = opened;
        await backend.connect();
        const otherBackend = async (): Promise<AgendaBackend> => {
          if (!opened.openSecond) return backend;
          const other = await opened.openSecond();
          await other.connect();
          return other;
        };
        await body(
          t,
          {
            backend,
            repo: backend.repository,
            agenda: (agendaOptions = {}, on = backend) => {
              // Agenda watches each running job with a timer of lockLifetime / 2 that stop() does not
              // clear: with the default 10 minutes, the test process would not exit for 5 minutes.
              const agenda = new Agenda({
                processEvery: 100,
                defaultLockLifetime: 1_000,
                ...agendaOptions,
                backend: on,
              });
              agendas.push(agenda);
              return agenda;
            },
            otherBackend,
            otherRepo: async () => (await otherBackend()).repository,
          },
          opened,
        );
      } finally {
        for (const agenda of agendas) await agenda.stop();
        await opened.cleanup();
      }
    });

  withBackend(
    'saveJob inserts, updates the same row by id, and does not recreate a removed job',
    async (t, { repo }) => {
      const saved = await repo.saveJob(job('report', { data: { n: 1 }, nextRunAt: at(60_000) }), {
        lastModifiedBy: 'w1',
      });
      const id = idOf(saved);
      const read = await repo.getJobById(id);
      t.like(read, { name: 'report', type: 'normal', priority: 0, data: { n: 1 }, lastModifiedBy: 'w1' });
      t.true(read?.nextRunAt instanceof Date);
      t.is(read?.nextRunAt?.getTime(), saved.nextRunAt?.getTime());
      for (const absent of [
        'lockedAt',
        'lastRunAt',
        'lastFinishedAt',
        'failedAt',
        'failCount',
        'failReason',
        'disabled',
      ] as const) {
        t.is(read?.[absent], undefined, absent);
      }

      const updated = await repo.saveJob({ ...saved, data: { n: 2 }, priority: 10 }, undefined);
      t.is(idOf(updated), id);
      t.deepEqual(updated.data, { n: 2 });
      t.is(updated.priority, 10);
      t.is((await repo.queryJobs({ name: 'report' })).total, 1);

      t.is(await repo.removeJobs({ id }), 1);
      const again = await repo.saveJob({ ...saved, data: { n: 3 } }, undefined);
      t.deepEqual(again.data, { n: 3 }, 'the caller gets its job back');
      t.is(await repo.getJobById(id), null);
      t.is((await repo.queryJobs({ name: 'report' })).total, 0);
    },
  );

  withBackend("a 'single' job is upserted by name, and its overdue schedule is kept", async (t, { repo, agenda }) => {
    const first = await repo.saveJob(
      job('digest', { type: 'single', nextRunAt: at(60_000), data: { v: 1 } }),
      undefined,
    );
    const second = await repo.saveJob(
      job('digest', { type: 'single', nextRunAt: at(120_000), data: { v: 2 } }),
      undefined,
    );
    t.is(idOf(second), idOf(first));
    t.deepEqual(second.data, { v: 2 });
    t.true((second.nextRunAt?.getTime() ?? 0) > (first.nextRunAt?.getTime() ?? 0), 'a future nextRunAt is saved');

    const third = await repo.saveJob(
      job('digest', { type: 'single', nextRunAt: at(-5_000), data: { v: 3 } }),
      undefined,
    );
    t.is(idOf(third), idOf(first));
    t.is(third.nextRunAt?.getTime(), second.nextRunAt?.getTime(), 'a past nextRunAt does not move the stored one');
    t.deepEqual(third.data, { v: 3 });
    t.is((await repo.queryJobs({ name: 'digest' })).total, 1);

    await repo.saveJob(job('other-digest', { type: 'single' }), undefined);
    t.is((await repo.queryJobs({ name: 'other-digest' })).total, 1);

    const a = agenda();
    a.define('hourly', async () => {});
    await a.every('1 hour', 'hourly', { round: 1 });
    await a.every('1 hour', 'hourly', { round: 2 });
    const { jobs, total } = await repo.queryJobs({ name: 'hourly' });
    t.is(total, 1, 'every() twice, as two process starts would do, keeps one job');
    t.deepEqual(jobs[0]?.data, { round: 2 });
  });

  withBackend(
    "every() from several workers at once on an empty store leaves one 'single' job per name",
    async (t, { repo, agenda, otherBackend }) => {
      const names = Array.from({ length: 10 }, (_, i) => `sweep-${i}`);
      // Three workers starting together, each on its own connection as separate processes are.
      const workers = [agenda(), agenda({}, await otherBackend()), agenda({}, await otherBackend())];
      await Promise.all(workers.flatMap((worker) => names.map((name) => worker.every(60_000, name))));
      for (const name of names) {
        const { jobs } = await repo.queryJobs({ name });
        t.deepEqual(
          jobs.map((j) => j.type),
          ['single'],
          name,
        );
      }

      // The database holds the rule, not only every(): a job made 'single' under a taken name is refused.
      const normal = await repo.saveJob(job('sweep-0'), undefined);
      await t.throwsAsync(repo.saveJob({ ...normal, type: 'single' }, undefined), { any: true });
      t.deepEqual((await repo.queryJobs({ name: 'sweep-0' })).jobs.map((j) => j.type).sort(), ['normal', 'single']);
    },
  );

  withBackend(
    'a unique job is upserted by its key; insertOnly leaves the existing one alone',
    async (t, { repo, agenda }) => {
      const check = (monitorId: string, v: number, fields: Partial<JobParameters> = {}) =>
        job('check', { data: { monitorId, v }, unique: { 'data.monitorId': monitorId }, ...fields });
      const m1 = await repo.saveJob(check('m1', 1), undefined);
      const m1Again = await repo.saveJob(check('m1', 2), undefined);
      t.is(idOf(m1Again), idOf(m1));
      t.deepEqual(m1Again.data, { monitorId: 'm1', v: 2 });
      const m2 = await repo.saveJob(check('m2', 1), undefined);
      t.not(idOf(m2), idOf(m1));
      t.is((await repo.queryJobs({ name: 'check' })).total, 2);

      const kept = await repo.saveJob(check('m1', 3, { uniqueOpts: { insertOnly: true } }), undefined);
      t.is(idOf(kept), idOf(m1));
      t.deepEqual(kept.data, { monitorId: 'm1', v: 2 }, 'the stored job is returned');
      t.deepEqual((await repo.getJobById(idOf(m1)))?.data, { monitorId: 'm1', v: 2 });
      const inserted = await repo.saveJob(check('m3', 3, { uniqueOpts: { insertOnly: true } }), undefined);
      t.deepEqual(inserted.data, { monitorId: 'm3', v: 3 });

      // Matching is typed: the number 1 is not the string '1'.
      await repo.saveJob(job('typed', { data: { k: '1' }, unique: { 'data.k': '1' } }), undefined);
      await repo.saveJob(job('typed', { data: { k: 1 }, unique: { 'data.k': 1 } }), undefined);
      t.is((await repo.queryJobs({ name: 'typed' })).total, 2);

      await t.throwsAsync(repo.saveJob(job('check', { unique: { $where: 'true' } }), undefined));
      t.is((await repo.queryJobs({ name: 'check' })).total, 3);

      const a = agenda();
      await a.create('probe', { monitorId: 'm9' }).unique({ 'data.monitorId': 'm9' }).save();
      await a.create('probe', { monitorId: 'm9' }).unique({ 'data.monitorId': 'm9' }).save();
      t.is((await repo.queryJobs({ name: 'probe' })).total, 1);
    },
  );

  withBackend(
    'debounce: trailing pushes nextRunAt, maxWait forces a run, leading keeps the first schedule',
    async (t, { repo }) => {
      const trailing = (debounce: { delay: number; maxWait?: number }) =>
        job('trailing', { data: { key: 'd' }, unique: { 'data.key': 'd' }, uniqueOpts: { debounce } });
      const before = Date.now();
      const first = await repo.saveJob(trailing({ delay: 10_000 }), undefined);
      t.true((first.nextRunAt?.getTime() ?? 0) >= before + 10_000);
      t.true(first.debounceStartedAt instanceof Date);
      const second = await repo.saveJob(trailing({ delay: 10_000 }), undefined);
      t.is(idOf(second), idOf(first));
      t.true((second.nextRunAt?.getTime() ?? 0) >= (first.nextRunAt?.getTime() ?? 0));
      t.is(second.debounceStartedAt?.getTime(), first.debounceStartedAt?.getTime(), 'the window keeps its start');

      await sleep(30);
      const forced = await repo.saveJob(trailing({ delay: 10_000, maxWait: 20 }), undefined);
      t.is(idOf(forced), idOf(first));
      t.true((forced.nextRunAt?.getTime() ?? Infinity) <= Date.now(), 'due now once maxWait is exceeded');
      t.is(forced.debounceStartedAt, undefined, 'and the window is closed');

      const leading = (nextRunAt: Date, v: number) =>
        job('leading', {
          nextRunAt,
          data: { key: 'l', v },
          unique: { 'data.key': 'l' },
          uniqueOpts: { debounce: { delay: 10_000, strategy: 'leading' } },
        });
      const scheduled = new Date();
      const lead = await repo.saveJob(leading(scheduled, 1), undefined);
      t.is(lead.nextRunAt?.getTime(), scheduled.getTime());
      t.true(lead.debounceStartedAt instanceof Date);
      const lead2 = await repo.saveJob(leading(at(5_000), 2), undefined);
      t.is(idOf(lead2), idOf(lead));
      t.is(lead2.nextRunAt?.getTime(), scheduled.getTime());
      t.deepEqual(lead2.data, { key: 'l', v: 2 });
      t.is((await repo.queryJobs({})).total, 2);
    },
  );

  withBackend(
    'a due job is locked exactly once, however many workers ask at the same time',
    async (t, { repo, otherRepo }) => {
      const due = await repo.saveJob(job('race', { nextRunAt: at(-1_000) }), undefined);
      const repos = [repo, await otherRepo()];
      const now = new Date();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          repos[i % repos.length]!.getNextJobToRun('race', at(100), at(-60_000), now, { lastModifiedBy: `w${i}` }),
        ),
      );
      const locked = results.filter((r) => r !== undefined);
      t.is(locked.length, 1);
      t.is(idOf(locked[0]), idOf(due));
      t.is(locked[0]?.lockedAt?.getTime(), now.getTime());
      t.is((await repo.getJobById(idOf(due)))?.lockedAt?.getTime(), now.getTime());
      t.is(
        await repos[1]!.getNextJobToRun('race', at(100), at(-60_000), undefined, undefined),
        undefined,
        'not handed out again while its lock is younger than the deadline',
      );
    },
  );

  withBackend(
    'jobs are handed out by nextRunAt then priority; future and disabled ones are not',
    async (t, { repo }) => {
      const late = await repo.saveJob(job('order', { nextRunAt: at(-1_000) }), undefined);
      const earlyLow = await repo.saveJob(job('order', { nextRunAt: at(-5_000), priority: 0 }), undefined);
      const earlyHigh = await repo.saveJob(job('order', { nextRunAt: earlyLow.nextRunAt, priority: 10 }), undefined);
      await repo.saveJob(job('order', { nextRunAt: at(60_000) }), undefined);
      await repo.saveJob(job('order', { nextRunAt: at(-10_000), disabled: true }), undefined);
      await repo.saveJob(job('another-name', { nextRunAt: at(-10_000) }), undefined);
      const next = () => repo.getNextJobToRun('order', at(100), at(-60_000), undefined, undefined);
      t.is(idOf(await next()), idOf(earlyHigh));
      t.is(idOf(await next()), idOf(earlyLow));
      t.is(idOf(await next()), idOf(late));
      t.is(await next(), undefined);
    },
  );

  withBackend("a dead worker's lock expires: the job is handed out again after lockDeadline", async (t, { repo }) => {
    const saved = await repo.saveJob(job('crashy', { nextRunAt: at(-1_000) }), undefined);
    const lockTime = new Date(Date.now() - 60_000);
    const locked = await repo.getNextJobToRun('crashy', at(100), at(-120_000), lockTime, undefined);
    t.is(locked?.lockedAt?.getTime(), lockTime.getTime());
    t.is(
      await repo.getNextJobToRun('crashy', at(100), new Date(lockTime.getTime() - 1), undefined, undefined),
      undefined,
      'a lock younger than the deadline is respected',
    );
    const recovered = await repo.getNextJobToRun(
      'crashy',
      at(100),
      new Date(lockTime.getTime() + 1),
      undefined,
      undefined,
    );
    t.is(idOf(recovered), idOf(saved));
    t.true((recovered?.lockedAt?.getTime() ?? 0) > lockTime.getTime(), 'with a fresh lock');
  });

  withBackend('lockJob, unlockJob and unlockJobs', async (t, { repo }) => {
    const saved = await repo.saveJob(job('manual', { nextRunAt: at(60_000) }), undefined);
    t.truthy((await repo.lockJob(saved, undefined))?.lockedAt);
    t.is(await repo.lockJob(saved, undefined), undefined, 'already locked');
    await repo.unlockJob(saved);
    t.is((await repo.getJobById(idOf(saved)))?.lockedAt, undefined);
    t.is(await repo.lockJob({ ...saved, nextRunAt: at(1) }, undefined), undefined, 'rescheduled meanwhile');
    t.truthy(await repo.lockJob(saved, undefined));
    await repo.unlockJobs([idOf(saved)]);
    t.is((await repo.getJobById(idOf(saved)))?.lockedAt, undefined);

    // A one-time job being run has no nextRunAt: unlockJob leaves it locked, unlockJobs (stop()) does not.
    const once = await repo.saveJob(job('once', { nextRunAt: null }), undefined);
    t.truthy(await repo.lockJob(once, undefined));
    await repo.unlockJob(once);
    t.truthy((await repo.getJobById(idOf(once)))?.lockedAt);
    await repo.unlockJobs([idOf(once)]);
    t.is((await repo.getJobById(idOf(once)))?.lockedAt, undefined);
    t.truthy(await repo.lockJob({ ...saved, disabled: true }, undefined), 'the stored flag counts, not the argument');
    await repo.disableJobs({ id: idOf(saved) });
    await repo.unlockJob(saved);
    t.is(await repo.lockJob(saved, undefined), undefined, 'a disabled job is not locked');
  });

  withBackend(
    'an Agenda recovers a job locked by a dead worker, and leaves a live lock alone',
    async (t, { repo, agenda }) => {
      const recover = await repo.saveJob(job('recover', { nextRunAt: at(-1_000) }), undefined);
      await repo.saveJob(job('held', { nextRunAt: at(-1_000) }), undefined);
      await repo.getNextJobToRun('recover', at(100), at(-120_000), new Date(Date.now() - 60_000), undefined);
      // A live worker keeps touching its lock; one dated a minute ahead stays fresh for the whole test.
      await repo.getNextJobToRun('held', at(100), at(-120_000), at(60_000), undefined);
      const ran: string[] = [];
      const a = agenda();
      a.define('recover', async () => {
        ran.push('recover');
      });
      a.define('held', async () => {
        ran.push('held');
      });
      await a.start();
      await until(() => ran.includes('recover'), 'the recovered job to run');
      await until(
        async () => (await repo.getJobById(idOf(recover)))?.lastFinishedAt !== undefined,
        'the run to be recorded',
      );
      const after = await repo.getJobById(idOf(recover));
      t.is(after?.lockedAt, undefined);
      t.is(after?.nextRunAt, null, 'a one-time job is done');
      await sleep(300);
      t.deepEqual(ran, ['recover'], 'three scans later, the live lock still holds');
    },
  );

  withBackend('a unique repeating job runs at once and again, and cancel() stops it', async (t, { repo, agenda }) => {
    let runs = 0;
    const a = agenda();
    a.define('tick', async () => {
      runs++;
    });
    const schedule = () =>
      a.create('tick', { k: 1 }).unique({ 'data.k': 1 }).repeatEvery(200, { skipImmediate: false }).save();
    await schedule();
    await schedule();
    const [stored] = (await repo.queryJobs({ name: 'tick' })).jobs;
    t.is((await repo.queryJobs({ name: 'tick' })).total, 1, 'saved twice, one job');
    t.is(stored?.repeatInterval, 200);
    await a.start();
    await until(() => runs >= 1, 'the first run', 3_000);
    await until(() => runs >= 2, 'the second run');
    t.is(await a.cancel({ data: { k: 1 } }), 1);
    t.is((await repo.queryJobs({ name: 'tick' })).total, 0);
    // A run that was already past its start may still finish; after that, none.
    await sleep(200);
    const settled = runs;
    await sleep(500);
    t.is(runs, settled);
    t.is((await repo.queryJobs({ name: 'tick' })).total, 0, 'not written back by a finishing run');
  });

  withBackend('disable() pauses a repeating job and enable() resumes it', async (t, { repo, agenda }) => {
    let runs = 0;
    const a = agenda();
    a.define('pausable', async () => {
      runs++;
    });
    await a.create('pausable', { k: 2 }).unique({ 'data.k': 2 }).repeatEvery(200, { skipImmediate: false }).save();
    await a.start();
    await until(() => runs >= 1, 'a first run');
    t.is(await a.disable({ name: 'pausable' }), 1);
    // Once nobody holds its lock, nobody can take it: from then on the count is final.
    await until(
      async () => (await repo.queryJobs({ name: 'pausable' })).jobs[0]?.lockedAt === undefined,
      'the lock to be released',
    );
    const paused = runs;
    await sleep(500);
    t.is(runs, paused);
    t.is((await repo.queryJobs({ state: 'paused' })).total, 1);
    t.is(await a.enable({ name: 'pausable' }), 1);
    await until(() => runs > paused, 'a run after enable()');
  });

  withBackend(
    'removeJobs, disableJobs and enableJobs select by name, ids and partial data; nothing without criteria',
    async (t, { repo }) => {
      const a1 = await repo.saveJob(job('a', { data: { group: 'x', n: 1, nested: { z: true } } }), undefined);
      const a2 = await repo.saveJob(job('a', { data: { group: 'y', n: 2 } }), undefined);
      const b1 = await repo.saveJob(job('b', { data: { group: 'x', n: 3 } }), undefined);
      await repo.saveJob(job('c', { data: 'plain' }), undefined);
      const total = async () => (await repo.queryJobs({})).total;

      t.is(await repo.removeJobs({}), 0);
      t.is(await repo.removeJobs({ ids: [], names: [] }), 0);
      t.is(await repo.disableJobs({}), 0);
      t.is(await repo.enableJobs({}), 0);
      t.is(await total(), 4);

      t.is(await repo.disableJobs({ data: { group: 'x' } }), 2);
      t.is(await repo.disableJobs({ data: { nested: { z: true } } }), 0, 'already disabled: nothing changed');
      t.is(await repo.disableJobs({ data: { n: '2' } }), 0, 'typed: "2" is not 2');
      t.deepEqual((await repo.queryJobs({ state: 'paused' })).jobs.map(idOf).sort(), [idOf(a1), idOf(b1)].sort());
      t.is(await repo.enableJobs({ ids: [idOf(a1)] }), 1);
      t.is(await repo.enableJobs({ name: 'b' }), 1);
      t.is((await repo.queryJobs({ state: 'paused' })).total, 0);

      t.is(await repo.removeJobs({ name: 'a', data: { n: 3 } }), 0, 'criteria are combined');
      t.is(await repo.removeJobs({ data: { n: 2 } }), 1);
      t.is(await repo.getJobById(idOf(a2)), null);
      t.is(await repo.removeJobs({ data: 'plain' }), 1);
      t.is(await repo.removeJobs({ notNames: ['a'] }), 1);
      t.is(await repo.getJobById(idOf(b1)), null);
      t.is(await repo.removeJobs({ names: ['a', 'nope'] }), 1);
      t.is(await total(), 0);
    },
  );

  withBackend(
    'queryJobs filters by computed state and paginates; overview, queue size and names',
    async (t, { repo }) => {
      const past = at(-60_000);
      const future = at(60_000);
      const save = (priority: number, fields: Partial<JobParameters>) =>
        repo.saveJob(job('states', { priority, ...fields }), undefined);
      const queued = await save(1, { nextRunAt: past, data: { tag: 'q' } });
      await save(2, { nextRunAt: future });
      await save(3, { nextRunAt: past, lockedAt: new Date() });
      await save(4, { nextRunAt: null, failedAt: past, lastFinishedAt: past, failCount: 1, failReason: 'boom' });
      await save(5, { nextRunAt: null, lastFinishedAt: past });
      await save(6, { nextRunAt: future, repeatInterval: '1 hour' });
      await save(7, { nextRunAt: future, disabled: true });
      const other = await repo.saveJob(job('other', { nextRunAt: past }), undefined);

      const priorities = async (query: Parameters<JobRepository['queryJobs']>[0]) => {
        const result = await repo.queryJobs({ name: 'states', sort: { priority: 'asc' }, ...query });
        return { total: result.total, priorities: result.jobs.map((j) => j.priority) };
      };
      t.deepEqual(await priorities({ state: 'queued' }), { total: 1, priorities: [1] });
      t.deepEqual(await priorities({ state: 'scheduled' }), { total: 2, priorities: [2, 7] });
      t.deepEqual(await priorities({ state: 'running' }), { total: 1, priorities: [3] });
      t.deepEqual(await priorities({ state: 'failed' }), { total: 1, priorities: [4] });
      t.deepEqual(await priorities({ state: 'completed' }), { total: 1, priorities: [5] });
      t.deepEqual(await priorities({ state: 'repeating' }), { total: 1, priorities: [6] });
      t.deepEqual(await priorities({ state: 'paused' }), { total: 1, priorities: [7] });
      t.deepEqual(await priorities({ state: 'scheduled', skip: 1, limit: 1 }), { total: 2, priorities: [7] });
      t.deepEqual(await priorities({ sort: { priority: 'desc' }, skip: 1, limit: 2 }), {
        total: 7,
        priorities: [6, 5],
      });
      t.deepEqual(await priorities({ includeDisabled: false }), { total: 6, priorities: [1, 2, 3, 4, 5, 6] });

      const states = (await repo.queryJobs({ name: 'states', sort: { priority: 'asc' } })).jobs.map((j) => j.state);
      t.deepEqual(states, ['queued', 'scheduled', 'running', 'failed', 'completed', 'repeating', 'scheduled']);
      t.is((await repo.queryJobs({ search: 'STAT' })).total, 7);
      t.is((await repo.queryJobs({ names: ['states', 'other'] })).total, 8);
      t.deepEqual(
        (await repo.queryJobs({ ids: [idOf(queued), idOf(other)] })).jobs.map(idOf).sort(),
        [idOf(queued), idOf(other)].sort(),
      );
      t.deepEqual((await repo.queryJobs({ data: { tag: 'q' } })).jobs.map(idOf), [idOf(queued)]);
      t.is((await repo.queryJobs({ id: idOf(other) })).jobs[0]?.name, 'other');

      const overview = (await repo.getJobsOverview()).sort((x, y) => x.name.localeCompare(y.name));
      t.deepEqual(overview, [
        {
          name: 'other',
          total: 1,
          running: 0,
          scheduled: 0,
          queued: 1,
          completed: 0,
          failed: 0,
          repeating: 0,
          paused: 0,
        },
        {
          name: 'states',
          total: 7,
          running: 1,
          scheduled: 2,
          queued: 1,
          completed: 1,
          failed: 1,
          repeating: 1,
          paused: 1,
        },
      ]);
      t.is(await repo.getQueueSize(), 3, 'every job whose nextRunAt has passed');
      t.deepEqual((await repo.getDistinctJobNames()).sort(), ['other', 'states']);
      t.is(await repo.purgeAllJobs(), 8);
      t.is(await repo.getQueueSize(), 0);
    },
  );

  const scheduleTitle = 'updateSchedule: a running job keeps its lock while its interval and disabled flag change';
  const { updateSchedule } = options;
  if (updateSchedule === undefined) {
    test.skip(title(`${scheduleTitle} (not supported)`), () => {});
  } else {
    withBackend(scheduleTitle, async (t, { repo, agenda, otherBackend, otherRepo }, { backend }) => {
      // Longer than the test: a lock this young is live, and only its expiry may hand the job on.
      const lockLifetime = 4_000;
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let runs = 0;
      const running = agenda({ defaultLockLifetime: lockLifetime });
      running.define('probe', async () => {
        runs += 1;
        await released;
      });
      const saved = await running
        .create('probe', { monitorId: 'm1' })
        .unique({ 'data.monitorId': 'm1' })
        .repeatEvery(60_000, { skipImmediate: false })
        .save();
      const id = String(saved.attrs._id);
      await running.start();
      await until(() => runs === 1, 'the run to start');
      const locked = await repo.getJobById(id);
      const lockedAt = locked?.lockedAt?.getTime();
      t.truthy(lockedAt, 'the running job is locked');

      let elsewhere = 0;
      const second = agenda({ defaultLockLifetime: lockLifetime }, await otherBackend());
      second.define('probe', async () => {
        elsewhere += 1;
      });
      await second.start();
      const other = await otherRepo();
      // As WorkerJobs changes a monitor's job: a new interval starting over now, paused, resumed.
      const changes: ScheduleChanges[] = [
        { repeatInterval: 30_000, nextRunAt: new Date() },
        { disabled: true },
        { disabled: false, nextRunAt: new Date() },
      ];
      for (const change of changes) {
        const what = JSON.stringify(change);
        t.true(await updateSchedule(backend, id, change), what);
        const stored = await repo.getJobById(id);
        t.is(stored?.lockedAt?.getTime(), lockedAt, `the lock survives ${what}`);
        t.is(stored?.lastModifiedBy, locked?.lastModifiedBy);
        if (change.repeatInterval !== undefined) t.is(stored?.repeatInterval, change.repeatInterval);
        if (change.nextRunAt !== undefined) t.is(stored?.nextRunAt?.getTime(), change.nextRunAt.getTime());
        if (change.disabled !== undefined) t.is(stored?.disabled, change.disabled);
        t.is(
          await other.getNextJobToRun('probe', at(60_000), at(-lockLifetime), undefined, { lastModifiedBy: 'other' }),
          undefined,
          `no other worker takes it after ${what}`,
        );
        if (stored) t.is(await other.lockJob(stored, undefined), undefined);
      }
      await sleep(300);
      t.is(elsewhere, 0, 'three scans of a second Agenda left it alone');

      release();
      await until(async () => (await repo.getJobById(id))?.lastFinishedAt !== undefined, 'the run to be recorded');
      const finished = await repo.getJobById(id);
      t.is(finished?.lockedAt, undefined, 'the run that held the lock released it');
      t.like(finished, { repeatInterval: 30_000, disabled: false }, 'and kept the new schedule');
      t.is(runs, 1);
      t.is(elsewhere, 0);

      const gone = await repo.saveJob(job('gone'), undefined);
      await repo.removeJobs({ id: idOf(gone) });
      t.false(await updateSchedule(backend, idOf(gone), { disabled: true }), 'a removed job is not recreated');
      t.is(await repo.getJobById(idOf(gone)), null);
    });
  }

  const uniqueIndexTitle = 'ensureUniqueIndex: the database rejects a second job with the same data value';
  const { ensureUniqueIndex } = options;
  if (ensureUniqueIndex === undefined) {
    test.skip(title(`${uniqueIndexTitle} (not supported)`), () => {});
  } else {
    withBackend(uniqueIndexTitle, async (t, { repo, otherRepo }, { backend }) => {
      await ensureUniqueIndex(backend, 'check', 'monitorId');
      await ensureUniqueIndex(backend, 'check', 'monitorId');
      await repo.saveJob(job('check', { data: { monitorId: 'm1' } }), undefined);
      // Drivers' errors need not be native Errors (better-sqlite3's SqliteError is not).
      await t.throwsAsync(repo.saveJob(job('check', { data: { monitorId: 'm1', other: true } }), undefined), {
        any: true,
      });
      await t.throwsAsync(
        (await otherRepo()).saveJob(job('check', { data: { monitorId: 'm1' } }), undefined),
        { any: true },
        'from another connection too',
      );
      await repo.saveJob(job('check', { data: { monitorId: 'm2' } }), undefined);
      await repo.saveJob(job('other', { data: { monitorId: 'm1' } }), undefined);
      const upserted = await repo.saveJob(
        job('check', { data: { monitorId: 'm1', v: 2 }, unique: { 'data.monitorId': 'm1' } }),
        undefined,
      );
      t.deepEqual(upserted.data, { monitorId: 'm1', v: 2 });
      t.is((await repo.queryJobs({ name: 'check' })).total, 2);
    });
  }
};
