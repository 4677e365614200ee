import type { AgendaBackend } from 'agenda';
import { type ContractSuite, at, idOf, job, sleep, until } from './harness.ts';

/** Handing due jobs to workers and locking them: one worker each, in order, and again once its worker died. */
export const lockingTests = <B extends AgendaBackend>({ withBackend }: ContractSuite<B>): void => {
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

  withBackend(
    'jobs whose lock expired and due unlocked ones are handed out in one nextRunAt order',
    async (t, { repo }) => {
      const expiredFirst = await repo.saveJob(job('mixed', { nextRunAt: at(-5_000) }), undefined);
      const expiredThird = await repo.saveJob(job('mixed', { nextRunAt: at(-3_000) }), undefined);
      const lockTime = at(-60_000);
      for (let i = 0; i < 2; i++) await repo.getNextJobToRun('mixed', at(100), at(-120_000), lockTime, undefined);
      const dueSecond = await repo.saveJob(job('mixed', { nextRunAt: at(-4_000) }), undefined);
      const dueFourth = await repo.saveJob(job('mixed', { nextRunAt: at(-1_000) }), undefined);
      const next = () => repo.getNextJobToRun('mixed', at(100), at(-30_000), undefined, undefined);
      t.deepEqual(
        [idOf(await next()), idOf(await next()), idOf(await next()), idOf(await next())],
        [idOf(expiredFirst), idOf(dueSecond), idOf(expiredThird), idOf(dueFourth)],
      );
      t.is(await next(), undefined);
    },
  );

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
      // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
      a.define('recover', async () => {
        ran.push('recover');
      });
      // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
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
};
