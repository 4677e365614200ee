import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const notifierContract = (withModels: WithModels): void => {
  withModels(
    'notification reactor state: queued in order, settled, queued again; last DOWN sent per channel and monitor; ' +
      'failures in a row',
    async (t, m) => {
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      const [ch1, ch2, monitor] = [randomUUID(), randomUUID(), randomUUID()];
      const first = recorded();
      const second = recorded();
      await m.stores.notifier.commit([first, second], (r, w) => {
        if (r === first) {
          w.queued({ delivery_id: a, channel_id: ch1 }, r.position);
          w.queued({ delivery_id: b, channel_id: ch2 }, r.position);
          w.downSent(ch1, monitor, '2026-01-01T00:00:00.000Z');
          w.failuresInARow(ch1, 2);
        } else {
          w.queued({ delivery_id: c, channel_id: ch1 }, r.position);
          w.queued({ delivery_id: a, channel_id: ch1 }, r.position);
          w.settled(b);
          w.downSent(ch1, monitor, '2026-01-01T00:10:00.000Z');
          w.failuresInARow(ch1, 3);
        }
      });
      t.deepEqual(await m.notifier.pending(), [
        { delivery_id: a, channel_id: ch1 },
        { delivery_id: c, channel_id: ch1 },
      ]);
      t.is(await m.notifier.lastDownSent(ch1, monitor), '2026-01-01T00:10:00.000Z');
      t.is(await m.notifier.lastDownSent(ch2, monitor), null);
      t.is(await m.notifier.failuresInARow(ch1), 3);
      t.is(await m.notifier.failuresInARow(ch2), 0);
      const third = recorded();
      await m.stores.notifier.commit([third], (r, w) => {
        w.settled(a);
        w.queued({ delivery_id: b, channel_id: ch2 }, r.position);
        w.failuresInARow(ch1, 0);
      });
      t.deepEqual(await m.notifier.pending(), [
        { delivery_id: c, channel_id: ch1 },
        { delivery_id: b, channel_id: ch2 },
      ]);
      t.is(await m.notifier.failuresInARow(ch1), 0);
      t.is(await m.stores.notifier.checkpoint(), third.position);
    },
  );
};
