import test from 'ava';
import type { AgendaBackend } from 'agenda';
import {
  type AgendaBackendContractOptions,
  type ContractSuite,
  at,
  idOf,
  job,
  type ScheduleChanges,
  sleep,
  until,
} from './harness.ts';

/** The adapter's own calls beyond Agenda's interface, skipped where it has none. */
export const extensionTests = <B extends AgendaBackend>(
  { title, withBackend }: ContractSuite<B>,
  options: AgendaBackendContractOptions<B>,
): void => {
  const scheduleTitle = 'updateSchedule: a running job keeps its lock while its interval and disabled flag change';
  const { updateSchedule } = options;
  if (updateSchedule === undefined) {
    test.skip(title(`${scheduleTitle} (not supported)`), () => {
      // Listed as skipped, so that the report shows what the adapter does not offer.
    });
  } else {
    withBackend(scheduleTitle, async (t, { repo, agenda, otherBackend, otherRepo }, { backend }) => {
      // Longer than the test: a lock this young is live, and only its expiry may hand the job on.
      const lockLifetime = 4_000;
      let release = () => {
        // Replaced by the promise's resolve just below.
      };
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let runs = 0;
      const running = agenda({ defaultLockLifetime: lockLifetime });
      // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
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
      // biome-ignore lint/nursery/noMisusedPromises: define() has an overload for async processors
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
    test.skip(title(`${uniqueIndexTitle} (not supported)`), () => {
      // Listed as skipped, so that the report shows what the adapter does not offer.
    });
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
