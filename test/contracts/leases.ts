import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import { LeaseLostError, SchemaBusyError, type StoreFaults } from '../../src/views/store/port.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import type { MonitorView, MonitorsWriter } from '../../src/views/monitors/port.ts';

/** Read models on one storage: `another` opens a second handle on the same storage, as another
 *  process would, with faults injected into its stores. */
export interface SharedReadModels {
  readModels: ReadModels;
  another(faults: StoreFaults): Promise<ReadModels>;
  /** Marks a projection's read model as built by an older version of watchlog. */
  ageSchema(projection: string): Promise<void>;
  cleanup: () => Promise<void>;
}

/** The Leases contract and the lease fencing of ProjectionStore, for every read-store adapter. */
export const leasesContract = (adapter: string, open: () => Promise<SharedReadModels>): void => {
  const withModels = (
    title: string,
    body: (t: import('ava').ExecutionContext, m: ReadModels, shared: SharedReadModels) => Promise<void>,
  ) =>
    test(`${adapter} leases: ${title}`, async (t) => {
      const shared = await open();
      try {
        await body(t, shared.readModels, shared);
      } finally {
        await shared.cleanup();
      }
    });

  withModels('one holder at a time; a renewal keeps the token, a new holder raises it', async (t, { leases }) => {
    const name = `p-${randomUUID()}`;
    const first = await leases.acquire(name, 'a', 10_000);
    t.is(first?.holder, 'a');
    t.is(await leases.acquire(name, 'b', 10_000), null);
    t.deepEqual(await leases.acquire(name, 'a', 10_000), first, 'renewed: the same token');
    await leases.release(name, 'b');
    t.is(await leases.acquire(name, 'b', 10_000), null, 'only the holder can release');
    await leases.release(name, 'a');
    const second = await leases.acquire(name, 'b', 10_000);
    t.is(second?.holder, 'b');
    t.true(second!.token > first!.token);
    await leases.release(name, 'b');
    const third = await leases.acquire(name, 'a', 10_000);
    t.true(third!.token > second!.token, 'taken again after a release: a greater token, even by an earlier holder');
  });

  withModels('holderOf says who holds a lease and until when; nobody once released', async (t, { leases }) => {
    const name = `p-${randomUUID()}`;
    t.is(await leases.holderOf(name), null);
    const before = Date.now();
    t.truthy(await leases.acquire(name, 'a', 10_000));
    const held = await leases.holderOf(name);
    t.is(held?.holder, 'a');
    t.true(held!.expiresAt >= before + 10_000 && held!.expiresAt <= Date.now() + 10_000);
    await leases.release(name, 'a');
    t.is(await leases.holderOf(name), null);
  });

  withModels('releaseAll frees every lease of one holder, and only those', async (t, { leases }) => {
    const [a, b, c] = [`p-${randomUUID()}`, `p-${randomUUID()}`, `p-${randomUUID()}`];
    t.truthy(await leases.acquire(a, 'dead-thread', 10_000));
    t.truthy(await leases.acquire(b, 'dead-thread', 10_000));
    t.truthy(await leases.acquire(c, 'other', 10_000));
    await leases.releaseAll('dead-thread');
    t.truthy(await leases.acquire(a, 'successor', 10_000));
    t.truthy(await leases.acquire(b, 'successor', 10_000));
    t.is(await leases.acquire(c, 'successor', 10_000), null);
  });

  withModels('an expired lease can be taken over, with a greater token', async (t, { leases }) => {
    const name = `p-${randomUUID()}`;
    const first = await leases.acquire(name, 'a', 50);
    await new Promise((r) => setTimeout(r, 80));
    const second = await leases.acquire(name, 'b', 10_000);
    t.true(second!.token > first!.token);
    t.is(await leases.acquire(name, 'a', 10_000), null);
  });

  const meta = { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 };
  const recorded = (position: number): RecordedEvent => ({
    id: randomUUID(),
    type: 'MonitorEvent',
    stream: 's',
    revision: position - 1,
    position: String(position),
    data: {},
    metadata: meta,
  });

  withModels('a commit by a holder that lost its lease writes nothing', async (t, m) => {
    const store = m.stores.access;
    const event = recorded(1);
    const current = (await m.leases.acquire(store.name, 'new-holder', 10_000))!;
    await t.throwsAsync(
      store.commit(
        [event],
        (_e, w) => w.projectCreated({ id: 'p1', name: 'x', created_at: '2026-01-01T00:00:00.000Z' }),
        { holder: 'old-holder', token: current.token - 1 },
      ),
      { instanceOf: LeaseLostError },
    );
    t.is(await store.checkpoint(), null);
    t.deepEqual(await m.access.listProjects({ all: true }), []);
    await store.commit(
      [event],
      (_e, w) => w.projectCreated({ id: 'p1', name: 'x', created_at: '2026-01-01T00:00:00.000Z' }),
      current,
    );
    t.is(await store.checkpoint(), '1');
    t.is((await m.access.listProjects({ all: true })).length, 1);
  });

  // Four events of two monitors: both created; the first renamed "old" and DOWN; then "new" and
  // UP; the second deleted. Holder A takes the lease and starts a batch of the first two events;
  // it pauses after checking its lease (a GC pause, a stopped VM) past the lease's time. B takes
  // the lease over and projects all four. A resumes: none of its writes may land (the first
  // monitor must not go back to "old", the second must not come back, the checkpoint must not go
  // back to 2), and the read model must equal a clean build of the same events.
  withModels(
    'a holder that pauses past its lease mid-batch is fenced: ' +
      'its writes are refused, the read model equals a clean build',
    async (t, m, shared) => {
      const store = m.stores.monitors;
      const [kept, removed, projectId] = [randomUUID(), randomUUID(), randomUUID()];
      const events = [recorded(1), recorded(2), recorded(3), recorded(4)];
      const monitor = (id: string): MonitorView => ({
        id,
        project_id: projectId,
        name: 'created',
        url: 'http://127.0.0.1:9/',
        interval_seconds: 60,
        timeout_seconds: 10,
        expected_status: 200,
        enabled: true,
        status: 'PENDING',
        status_since: null,
        last_checked_at: null,
        last_status_code: null,
        last_response_ms: null,
        last_error: null,
        last_certificate: null,
        type: 'http',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      const apply = (e: RecordedEvent, w: MonitorsWriter) => {
        if (e.position === '1') {
          w.created(monitor(kept), null);
          w.created(monitor(removed), null);
        }
        if (e.position === '2') {
          w.updated(kept, { name: 'old' }, '2026-01-01T00:00:02.000Z');
          w.status(kept, 'DOWN', '2026-01-01T00:00:02.000Z');
        }
        if (e.position === '3') {
          w.updated(kept, { name: 'new' }, '2026-01-01T00:00:03.000Z');
          w.status(kept, 'UP', '2026-01-01T00:00:03.000Z');
        }
        if (e.position === '4') w.deleted(removed);
      };

      let resume: () => void = () => undefined;
      let paused: () => void = () => undefined;
      const isPaused = new Promise<void>((r) => {
        paused = r;
      });
      const resumed = new Promise<void>((r) => {
        resume = r;
      });
      const a = await shared.another({
        async beforeWrites(projection) {
          if (projection !== store.name) return;
          paused();
          await resumed;
        },
      });
      t.teardown(() => a.close());

      const leaseA = (await a.leases.acquire(store.name, 'holder-a', 100))!;
      const batchA = a.stores.monitors.commit(events.slice(0, 2), apply, leaseA);
      await isPaused;
      await new Promise((r) => setTimeout(r, 150));
      const leaseB = await m.leases.acquire(store.name, 'holder-b', 10_000);
      t.truthy(leaseB, "A's lease expired: B takes it over");
      await store.commit(events, apply, leaseB!);
      resume();
      await t.throwsAsync(batchA, { instanceOf: LeaseLostError });

      t.is(await store.checkpoint(), '4');
      const all = { all: true } as const;
      const stored = await m.monitors.get(kept, all);
      t.is(stored?.name, 'new');
      t.is(stored?.status, 'UP');
      t.is(await m.monitors.get(removed, all), null, 'a deleted monitor stays deleted');

      const clean = await open();
      t.teardown(() => clean.cleanup());
      await clean.readModels.stores.monitors.commit(events, apply);
      t.deepEqual(
        await m.monitors.list(all),
        await clean.readModels.monitors.list(all),
        'the same as a clean build of the same events',
      );
      t.is(await store.checkpoint(), await clean.readModels.stores.monitors.checkpoint());
    },
  );

  withModels('a read model is migrated and reset only under its lease, with the current token', async (t, m) => {
    const store = m.stores.channels;
    const current = (await m.leases.acquire(store.name, 'holder', 10_000))!;
    await store.commit([recorded(1)], () => undefined, current);
    await t.throwsAsync(store.migrate({ holder: 'holder', token: current.token - 1 }), { instanceOf: LeaseLostError });
    await t.throwsAsync(store.reset({ holder: 'other', token: current.token }), { instanceOf: LeaseLostError });
    t.is(await store.checkpoint(), '1', 'refused: nothing dropped');
    await store.migrate(current);
    t.is(await store.checkpoint(), '1', 'the same version: kept');
    await store.reset(current);
    t.is(await store.checkpoint(), null);
  });

  // A newer version opening the store (an API replica, a worker) while an older worker still
  // projects must not drop what that worker writes into; the next holder of the lease migrates.
  withModels(
    'a read model of another version is not dropped while its holder lives; the next holder migrates it',
    async (t, m, shared) => {
      const store = m.stores.channels;
      const holder = (await m.leases.acquire(store.name, 'older-worker', 10_000))!;
      await store.commit([recorded(1)], () => undefined, holder);
      await shared.ageSchema(store.name);
      t.false(await store.schemaCurrent());

      // The embedded store prepares its queries on this version's tables, so it refuses to open;
      // MongoDB opens and leaves the read model to its projector.
      const opened = await shared.another({}).then(
        (models) => models,
        (error: unknown) => error,
      );
      if (opened instanceof Error) t.true(opened instanceof SchemaBusyError, String(opened));
      else await (opened as ReadModels).close();
      t.is(await store.checkpoint(), '1', 'nothing dropped under the older worker');
      t.false(await store.schemaCurrent());

      await m.leases.release(store.name, 'older-worker');
      const next = (await m.leases.acquire(store.name, 'newer-worker', 10_000))!;
      await store.migrate(next);
      t.true(await store.schemaCurrent());
      t.is(await store.checkpoint(), null, 'dropped by the new holder: the projector replays the log into it');
    },
  );
};
