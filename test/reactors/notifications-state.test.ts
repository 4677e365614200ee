import test from 'ava';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { REACTORS, openSqliteReactorStates } from '../../src/compose/reactors.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import type { ReactorStates } from '../../src/reactors/port.ts';
import { tempDir } from '../helpers/server.ts';

/** The notification reactor's state store, on every adapter: SQLite always, MongoDB when
 *  WATCHLOG_MONGO_URL names a server (its own database each time, dropped afterwards). */

const contract = (adapter: string, open: () => Promise<{ states: ReactorStates; cleanup(): Promise<void> }>) => {
  let position = 0;
  const recorded = (): RecordedEvent => {
    position += 1;
    return {
      id: randomUUID(),
      type: 'DeliveryScheduled',
      stream: 's',
      revision: 0,
      position: String(position),
      data: {},
      metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
    };
  };

  test(`${adapter}: queued in order, settled, queued again; the last DOWN sent; failures in a row`, async (t) => {
    const { states, cleanup } = await open();
    t.teardown(cleanup);
    const store = states.stores.notifications;
    const state = states.notifications;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const [ch1, ch2, monitor] = [randomUUID(), randomUUID(), randomUUID()];
    const first = recorded();
    const second = recorded();
    await store.commit([first, second], (r, w) => {
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
    t.deepEqual(await state.pending(), [
      { delivery_id: a, channel_id: ch1 },
      { delivery_id: c, channel_id: ch1 },
    ]);
    t.is(await state.lastDownSent(ch1, monitor), '2026-01-01T00:10:00.000Z');
    t.is(await state.lastDownSent(ch2, monitor), null);
    t.is(await state.failuresInARow(ch1), 3);
    t.is(await state.failuresInARow(ch2), 0);
    const third = recorded();
    await store.commit([third], (r, w) => {
      w.settled(a);
      w.queued({ delivery_id: b, channel_id: ch2 }, r.position);
      w.failuresInARow(ch1, 0);
    });
    t.deepEqual(await state.pending(), [
      { delivery_id: c, channel_id: ch1 },
      { delivery_id: b, channel_id: ch2 },
    ]);
    t.is(await state.failuresInARow(ch1), 0);
    t.is(await store.checkpoint(), third.position);
  });

  test(`${adapter}: the status pages' reactor: mail queued and settled; automatic incidents by monitor`, async (t) => {
    const { states, cleanup } = await open();
    t.teardown(cleanup);
    const store = states.stores.pageEffects;
    const state = states.pageEffects;
    const [a, b, c, s1, s2] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const [m1, m2, i1, i2, i3] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const first = recorded();
    await store.commit([first], (r, w) => {
      w.queued({ delivery_id: a, subscriber_id: s1 }, r.position);
      w.queued({ delivery_id: b, subscriber_id: s2 }, r.position);
      w.autoOpened(m1, i1);
      w.autoOpened(m1, i2);
      w.autoOpened(m2, i3);
    });
    // The same batch again (a replay), then the next.
    await store.commit([first], (r, w) => w.queued({ delivery_id: a, subscriber_id: s1 }, r.position));
    const second = recorded();
    await store.commit([second], (r, w) => {
      w.queued({ delivery_id: c, subscriber_id: s1 }, r.position);
      w.settled(a);
      w.autoResolved(m1);
    });
    t.deepEqual(await state.pending(), [
      { delivery_id: b, subscriber_id: s2 },
      { delivery_id: c, subscriber_id: s1 },
    ]);
    t.deepEqual(await state.autoOpen(m1), []);
    t.deepEqual(await state.autoOpen(m2), [i3]);
    t.is(await store.checkpoint(), second.position);
  });

  test(`${adapter}: the reactors' leases are kept beside their state`, async (t) => {
    const { states, cleanup } = await open();
    t.teardown(cleanup);
    const lease = await states.leases.acquire('notifications', 'holder-1', 60_000);
    t.truthy(lease);
    t.is(await states.leases.acquire('notifications', 'holder-2', 60_000), null);
    t.is((await states.leases.holderOf('notifications'))?.holder, 'holder-1');
  });
};

contract('sqlite', async () => {
  const dir = tempDir();
  const states = await openSqliteReactorStates(path.join(dir, 'state.db'));
  return {
    states,
    cleanup: async () => {
      await states.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

test("every reactor state's MongoDB adapter loads when asked for", async (t) => {
  for (const [key, entry] of Object.entries(REACTORS)) {
    const adapter = await entry.mongo();
    t.is(typeof adapter.queries, 'function', key);
    t.is(typeof adapter.batchWriter, 'function', key);
    t.truthy(adapter.schema, key);
  }
});

const url = process.env.WATCHLOG_MONGO_URL;
if (url === undefined) {
  test.skip('mongo: the notification reactor state contract is skipped, WATCHLOG_MONGO_URL is not set', (t) =>
    t.pass());
} else {
  contract('mongo', async () => {
    const { openMongoStores } = await import('../../src/compose/mongo-read-models.ts');
    const dbName = `watchlog_test_${randomUUID().slice(0, 8)}`;
    const { readModels, reactorStates } = await openMongoStores(url, { dbName });
    return {
      states: reactorStates,
      cleanup: async () => {
        await reactorStates.close();
        await readModels.close();
        const client = await new MongoClient(url).connect();
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  });
}
