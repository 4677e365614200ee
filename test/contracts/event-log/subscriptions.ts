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

  withLog('a subscription delivers batches of at most the size asked for', async (t, { log }) => {
    const start = await log.headPosition();
    const stream = `s-${randomUUID()}`;
    await log.append(
      stream,
      Array.from({ length: 7 }, () => event()),
      'any',
    );
    const subscription = log.subscribeAll(start, 3);
    const sizes: number[] = [];
    let seen = 0;
    for await (const batch of subscription) {
      sizes.push(batch.length);
      seen += batch.filter((e) => e.stream === stream).length;
      if (seen >= 7) break;
    }
    await subscription.close();
    t.true(
      sizes.every((n) => n >= 1 && n <= 3),
      `batches of ${sizes.join(', ')}`,
    );
    t.is(seen, 7);
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
