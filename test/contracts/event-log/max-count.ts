import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import { collect, event, type WithLog } from './harness.ts';

export const maxCountContract = (withLog: WithLog): void => {
  withLog('maxCount keeps only the last events of a stream', async (t, { log }) => {
    const stream = `checks-${randomUUID()}`;
    await log.setStreamMaxCount(stream, 3);
    for (let i = 0; i < 5; i += 1) await log.append(stream, [event('CheckRecorded', { i })], 'any');
    const kept = await log.readStream(stream);
    t.deepEqual(
      kept.map((e) => (e.data as { i: number }).i),
      [2, 3, 4],
    );
  });

  withLog(
    'readAll and subscriptions skip what maxCount hides, before any trim: a replay sees what readStream sees',
    async (t, { log }) => {
      const before = await log.headPosition();
      const [capped, other] = [`checks-${randomUUID()}`, `audit-${randomUUID()}`];
      await log.setStreamMaxCount(capped, 2);
      for (let i = 0; i < 5; i += 1) {
        await log.append(capped, [event('CheckRecorded', { i })], 'any');
        await log.append(other, [event('AuditEventRecorded', { i })], 'any');
      }
      const mine = (events: readonly RecordedEvent[]) =>
        events
          .filter((e) => e.stream === capped || e.stream === other)
          .map((e) => `${e.stream === capped ? 'c' : 'o'}${(e.data as { i: number }).i}`);
      const expected = ['o0', 'o1', 'o2', 'c3', 'o3', 'c4', 'o4'];
      t.deepEqual(mine(await log.readAll(before, 100)), expected);
      const page = await log.readAll(before, 3);
      t.is(page.length, 3, 'a page is filled past the hidden events, not cut short');
      t.false(mine(page).some((e) => ['c0', 'c1', 'c2'].includes(e)));
      t.deepEqual(mine(await collect(log, before, 7)).slice(0, 7), expected);
    },
  );

  withLog('readLast answers the newest event of a stream, after a trim too, and null for none', async (t, { log }) => {
    const stream = `checks-${randomUUID()}`;
    t.is(await log.readLast(stream), null);
    await log.setStreamMaxCount(stream, 2);
    for (let i = 0; i < 4; i += 1) await log.append(stream, [event('CheckRecorded', { i })], 'any');
    await log.append(`checks-${randomUUID()}`, [event('CheckRecorded', { i: 99 })], 'any');
    const last = await log.readLast(stream);
    t.deepEqual([last?.data, last?.revision], [{ i: 3 }, 3]);
    await log.trim();
    t.deepEqual((await log.readLast(stream))?.data, { i: 3 });
  });

  withLog('trim removes only what maxCount already hides', async (t, { log }) => {
    const stream = `checks-${randomUUID()}`;
    await log.setStreamMaxCount(stream, 2);
    for (let i = 0; i < 5; i += 1) await log.append(stream, [event('CheckRecorded', { i })], 'any');
    const deleted = await log.trim();
    t.true(Number.isInteger(deleted) && deleted >= 0);
    t.deepEqual(
      (await log.readStream(stream)).map((e) => (e.data as { i: number }).i),
      [3, 4],
    );
    const next = await log.append(stream, [event('CheckRecorded', { i: 5 })], 'any');
    t.is(next.revision, 5, 'revisions go on after a trim');
  });
};
