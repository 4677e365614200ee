import { randomUUID } from 'node:crypto';
import { collect, event, type WithLog } from './harness.ts';

export const subscriptionsContract = (withLog: WithLog): void => {
  withLog('catch-up subscription delivers history, then live appends, in order', async (t, { log }) => {
    const start = await log.headPosition();
    const stream = `s-${randomUUID()}`;
    await log.append(stream, [event(), event()], 'any');
    const seen = collect(log, start, 5);
    await new Promise((r) => setTimeout(r, 30));
    await log.append(stream, [event()], 'any');
    await log.append(stream, [event(), event()], 'any');
    const events = await seen;
    t.deepEqual(
      events.map((e) => e.revision),
      [0, 1, 2, 3, 4],
    );
    t.true(events.every((e) => e.stream === stream));
  });

  withLog('a subscription can be closed while waiting', async (t, { log }) => {
    const subscription = log.subscribeAll(await log.headPosition());
    const iterating = (async () => {
      let batches = 0;
      for await (const _ of subscription) batches += 1;
      return batches;
    })();
    await new Promise((r) => setTimeout(r, 20));
    await subscription.close();
    t.is(await iterating, 0);
  });

  withLog('onAppend hears each append made through this handle, until removed', async (t, { log }) => {
    let heard = 0;
    const remove = log.onAppend(() => {
      heard += 1;
    });
    await log.append(`s-${randomUUID()}`, [event()], 'no_stream');
    await Promise.all([
      log.append(`s-${randomUUID()}`, [event()], 'any'),
      log.append(`s-${randomUUID()}`, [event()], 'any'),
    ]);
    t.true(heard >= 2, 'a group commit may tell its appends at once');
    const before = heard;
    remove();
    await log.append(`s-${randomUUID()}`, [event()], 'any');
    t.is(heard, before);
  });
};
