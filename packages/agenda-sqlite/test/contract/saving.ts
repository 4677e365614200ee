import type { AgendaBackend, JobParameters } from 'agenda';
import { type ContractSuite, at, idOf, job, sleep } from './harness.ts';

/** saveJob: by id, 'single' jobs by name (every()), unique jobs by their key, debounced saves. */
export const savingTests = <B extends AgendaBackend>({ withBackend }: ContractSuite<B>): void => {
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
    // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
    a.define('hourly', async () => {
      // Never run: the Agenda is not started, only every() is under test.
    });
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
};
