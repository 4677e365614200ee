import test from 'ava';
import { randomUUID } from 'node:crypto';
import { LeaseLostError } from '../../src/views/store/port.ts';
import type { ReadModels } from '../../src/views/read-models.ts';

/** The Leases contract and the lease fencing of ProjectionStore.commit, for every read-store adapter. */
export const leasesContract = (adapter: string, open: () => Promise<{ readModels: ReadModels; cleanup: () => Promise<void> }>): void => {
  const withModels = (title: string, body: (t: import('ava').ExecutionContext, m: ReadModels) => Promise<void>) =>
    test(`${adapter} leases: ${title}`, async (t) => {
      const { readModels, cleanup } = await open();
      try {
        await body(t, readModels);
      } finally {
        await cleanup();
      }
    });

  withModels('one holder at a time; renewal by the holder; release frees it', async (t, { leases }) => {
    const name = `p-${randomUUID()}`;
    t.true(await leases.acquire(name, 'a', 10_000));
    t.false(await leases.acquire(name, 'b', 10_000));
    t.true(await leases.acquire(name, 'a', 10_000));
    await leases.release(name, 'b');
    t.false(await leases.acquire(name, 'b', 10_000), 'only the holder can release');
    await leases.release(name, 'a');
    t.true(await leases.acquire(name, 'b', 10_000));
  });

  withModels('holderOf says who holds a lease and until when; nobody once released', async (t, { leases }) => {
    const name = `p-${randomUUID()}`;
    t.is(await leases.holderOf(name), null);
    const before = Date.now();
    t.true(await leases.acquire(name, 'a', 10_000));
    const held = await leases.holderOf(name);
    t.is(held?.holder, 'a');
    t.true(held!.expiresAt >= before + 10_000 && held!.expiresAt <= Date.now() + 10_000);
    await leases.release(name, 'a');
    t.is(await leases.holderOf(name), null);
  });

  withModels('releaseAll frees every lease of one holder, and only those', async (t, { leases }) => {
    const [a, b, c] = [`p-${randomUUID()}`, `p-${randomUUID()}`, `p-${randomUUID()}`];
    t.true(await leases.acquire(a, 'dead-thread', 10_000));
    t.true(await leases.acquire(b, 'dead-thread', 10_000));
    t.true(await leases.acquire(c, 'other', 10_000));
    await leases.releaseAll('dead-thread');
    t.true(await leases.acquire(a, 'successor', 10_000));
    t.true(await leases.acquire(b, 'successor', 10_000));
    t.false(await leases.acquire(c, 'successor', 10_000));
  });

  withModels('an expired lease can be taken over', async (t, { leases }) => {
    const name = `p-${randomUUID()}`;
    t.true(await leases.acquire(name, 'a', 50));
    await new Promise((r) => setTimeout(r, 80));
    t.true(await leases.acquire(name, 'b', 10_000));
    t.false(await leases.acquire(name, 'a', 10_000));
  });

  withModels('a commit by a holder that lost its lease writes nothing', async (t, m) => {
    const store = m.stores.access;
    const event = {
      id: randomUUID(), type: 'ProjectCreated', stream: 's', revision: 0, position: '1',
      data: {}, metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
    };
    t.true(await m.leases.acquire(store.name, 'new-holder', 10_000));
    await t.throwsAsync(
      store.commit([event], (_e, w) => w.projectCreated({ id: 'p1', name: 'x', created_at: '2026-01-01T00:00:00.000Z' }), 'old-holder'),
      { instanceOf: LeaseLostError },
    );
    t.is(await store.checkpoint(), null);
    t.deepEqual(await m.access.listProjects({ all: true }), []);
    await store.commit([event], (_e, w) => w.projectCreated({ id: 'p1', name: 'x', created_at: '2026-01-01T00:00:00.000Z' }), 'new-holder');
    t.is(await store.checkpoint(), '1');
    t.is((await m.access.listProjects({ all: true })).length, 1);
  });
};
