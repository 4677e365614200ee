import type { AgendaBackend, JobParameters, JobRepository } from 'agenda';
import { type ContractSuite, at, idOf, job, sleep, until } from './harness.ts';

/** Jobs selected by name, ids, data and state (cancel(), disable(), enable(), removeJobs, queryJobs), and counted. */
export const queryingTests = <B extends AgendaBackend>({ withBackend }: ContractSuite<B>): void => {
  withBackend('a unique repeating job runs at once and again, and cancel() stops it', async (t, { repo, agenda }) => {
    let runs = 0;
    const a = agenda();
    // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
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
    // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
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
};
