import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import type { ReadModels } from '../../../src/views/read-models.ts';
import type { StatusPageView, StatusPagesWriter } from '../../../src/views/status-pages/port.ts';
import { recorded, type WithModels } from './harness.ts';

const page = (
  project_id: string,
  monitors: string[],
  over: Partial<StatusPageView> & Pick<StatusPageView, 'slug'>,
): StatusPageView => ({
  id: randomUUID(),
  project_id,
  title: 'Status',
  description: null,
  groups: [{ name: 'Services', monitor_ids: monitors }],
  published: false,
  show_uptime_days: 90,
  custom_domain: null,
  auto_incidents: false,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...over,
});

/** Commits one batch of `writes`, each at a position of its own: returns their positions. */
const batch = async (
  m: ReadModels,
  writes: ReadonlyArray<(w: StatusPagesWriter, position: string) => void>,
): Promise<{ positions: string[]; records: RecordedEvent[] }> => {
  const records = writes.map(() => recorded());
  await m.stores.statusPages.commit(records, (r, w) => writes[records.indexOf(r)]!(w, r.position));
  return { positions: records.map((r) => r.position), records };
};

const versionsOf = async (m: ReadModels, ids: readonly string[]) =>
  Promise.all(ids.map((id) => m.statusPages.version(id)));

export const statusPagesContract = (withModels: WithModels): void => {
  withModels(
    'status pages: scope, slug and domain lookups, the monitors pages show, changes and removal',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const [m1, m2, m3] = [randomUUID(), randomUUID(), randomUUID()];
      const a = page(p, [m1, m2], {
        slug: 'alpha',
        custom_domain: 'status.example.com',
        published: true,
        auto_incidents: true,
      });
      const b = page(p, [m2], { slug: 'beta', created_at: '2026-01-02T00:00:00.000Z' });
      const c = page(q, [m3, m1], { slug: 'gamma', published: true, created_at: '2026-01-03T00:00:00.000Z' });
      const first = recorded();
      const create = () =>
        m.stores.statusPages.commit([first], (r, w) => {
          for (const view of [a, b, c]) w.created(view, r.position);
        });
      await create();
      await create();
      // A creation met again (a replay) keeps the page as it was made, at its first version.
      await batch(m, [(w, position) => w.created({ ...a, title: 'Again' }, position)]);

      const ids = (views: StatusPageView[]) => views.map((v) => v.id);
      t.deepEqual(ids(await m.statusPages.list({ all: true })), [a.id, b.id, c.id]);
      t.deepEqual(await m.statusPages.list({ all: true }, p), [a, b]);
      t.deepEqual(ids(await m.statusPages.list({ all: false, projectIds: [q] })), [c.id]);
      t.deepEqual(await m.statusPages.list({ all: false, projectIds: [q] }, p), []);
      t.deepEqual(await m.statusPages.list({ all: false, projectIds: [] }), []);
      t.deepEqual(await m.statusPages.get(a.id, { all: false, projectIds: [p] }), a);
      t.is(await m.statusPages.get(a.id, { all: false, projectIds: [q] }), null);
      t.deepEqual(await m.statusPages.bySlug('beta'), b);
      t.is(await m.statusPages.bySlug('delta'), null);
      t.deepEqual(await m.statusPages.byDomain('status.example.com'), a);
      t.is(await m.statusPages.byDomain('other.example.com'), null);
      t.deepEqual(await versionsOf(m, [a.id, b.id, c.id]), [first.position, first.position, first.position]);
      t.is(await m.statusPages.version(randomUUID()), null);
      t.deepEqual(ids(await m.statusPages.autoIncidentPages(m1)), [a.id]);
      t.deepEqual(await m.statusPages.autoIncidentPages(m3), []);
      t.is(await m.statusPages.publishedShowing(m1), 2, 'a page of another project that lists it counts');
      t.is(await m.statusPages.publishedShowing(m2), 1);
      t.is(await m.statusPages.publishedShowing(randomUUID()), 0);

      const changed = (
        await batch(m, [
          (w, position) =>
            w.updated(
              b.id,
              { slug: 'beta-2', groups: [{ name: 'Web', monitor_ids: [m1] }], published: true, auto_incidents: true },
              '2026-01-04T00:00:00.000Z',
              position,
            ),
          (w, position) =>
            w.updated(a.id, { custom_domain: null, title: 'Alpha' }, '2026-01-04T00:00:01.000Z', position),
        ])
      ).positions[0]!;
      const b2 = await m.statusPages.get(b.id, { all: true });
      t.deepEqual(b2, {
        ...b,
        slug: 'beta-2',
        groups: [{ name: 'Web', monitor_ids: [m1] }],
        published: true,
        auto_incidents: true,
        updated_at: '2026-01-04T00:00:00.000Z',
      });
      t.is(await m.statusPages.bySlug('beta'), null);
      t.deepEqual(await m.statusPages.bySlug('beta-2'), b2);
      t.is(await m.statusPages.byDomain('status.example.com'), null);
      t.like(await m.statusPages.get(a.id, { all: true }), { title: 'Alpha', custom_domain: null });
      t.is(await m.statusPages.version(b.id), changed);
      t.is(await m.statusPages.publishedShowing(m1), 3);
      t.is(await m.statusPages.publishedShowing(m2), 1, 'a page that no longer shows it does not count');
      t.deepEqual(ids(await m.statusPages.autoIncidentPages(m1)), [a.id, b.id]);
      t.deepEqual(ids(await m.statusPages.autoIncidentPages(m2)), [a.id]);

      const touchedLate = (await batch(m, [(w) => w.deleted(a.id), (w, position) => w.touched(p, null, position)]))
        .positions[1]!;
      t.is(await m.statusPages.get(a.id, { all: true }), null);
      t.is(
        await m.statusPages.version(a.id),
        null,
        'a deleted page has no version, and a touch does not bring it back',
      );
      t.is(await m.statusPages.version(b.id), touchedLate);
      t.deepEqual(ids(await m.statusPages.list({ all: true })), [b.id, c.id]);
      t.deepEqual(ids(await m.statusPages.autoIncidentPages(m1)), [b.id]);
      t.is(await m.statusPages.publishedShowing(m2), 0);
    },
  );

  withModels(
    'status pages: a touch moves the versions of the pages of its project that show the monitor (all of them ' +
      'for none), only forward, in a batch whatever the order of its page writes',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const [m1, m2, m3] = [randomUUID(), randomUUID(), randomUUID()];
      const a = page(p, [m1], { slug: 'one' });
      const b = page(p, [m2], { slug: 'two' });
      const c = page(q, [m1], { slug: 'three' });
      const e = page(p, [m3], { slug: 'four' });
      const made = (
        await batch(m, [
          (w, position) => {
            for (const v of [a, b, c]) w.created(v, position);
          },
        ])
      ).positions[0]!;
      const all = [a.id, b.id, c.id];

      const m1Down = (await batch(m, [(w, position) => w.touched(p, m1, position)])).positions[0]!;
      t.deepEqual(await versionsOf(m, all), [m1Down, made, made], "only P's page that shows m1");

      const everyPage = (await batch(m, [(w, position) => w.touched(p, null, position)])).positions[0]!;
      t.deepEqual(await versionsOf(m, all), [everyPage, everyPage, made]);

      await batch(m, [(w, position) => w.touched(q, m2, position)]);
      t.deepEqual(await versionsOf(m, all), [everyPage, everyPage, made], 'no page of Q shows m2');

      // One batch: touches before and after page writes; each page ends at the last position
      // that concerned it.
      const { positions } = await batch(m, [
        (w, position) => w.touched(p, m1, position),
        (w, position) => w.updated(b.id, { groups: [{ name: 'All', monitor_ids: [m1, m2] }] }, 'x', position),
        (w, position) => w.touched(p, m2, position),
        (w, position) => w.created(e, position),
        (w, position) => w.touched(p, m3, position),
        (w, position) => w.touched(p, m1, position),
        (w, position) => w.updated(a.id, { title: 'One' }, 'x', position),
      ]);
      t.deepEqual(await versionsOf(m, [a.id, b.id, e.id, c.id]), [positions[6], positions[5], positions[4], made]);

      const before = await versionsOf(m, [a.id, b.id, e.id, c.id]);
      await batch(m, [(w) => w.touched(p, m1, '1')]);
      t.deepEqual(await versionsOf(m, [a.id, b.id, e.id, c.id]), before, 'a version never moves back');
      t.deepEqual(await versionsOf(m, [e.id]), [positions[4]]);
    },
  );

  withModels(
    'status pages: a batch written again after a crash before its checkpoint changes nothing',
    async (t, m, opened) => {
      const p = randomUUID();
      const [m1, m2] = [randomUUID(), randomUUID()];
      const a = page(p, [m1], { slug: 'crash-a' });
      const b = page(p, [m2], { slug: 'crash-b', published: true });
      const { records: before } = await batch(m, [(w, position) => w.created(a, position)]);
      const writes: Array<(w: StatusPagesWriter, position: string) => void> = [
        (w, position) => w.created(b, position),
        (w, position) => w.touched(p, m1, position),
        (w, position) => w.updated(b.id, { groups: [{ name: 'S', monitor_ids: [m1] }] }, 'y', position),
        (w, position) => w.touched(p, m2, position),
        (w) => w.deleted(a.id),
      ];
      const { records } = await batch(m, writes);
      const read = async () => ({
        list: await m.statusPages.list({ all: true }),
        versions: await versionsOf(m, [a.id, b.id]),
        published: [await m.statusPages.publishedShowing(m1), await m.statusPages.publishedShowing(m2)],
      });
      const after = await read();
      t.deepEqual(after.versions, [null, records[2]!.position]);
      t.deepEqual(after.published, [1, 0]);
      // Where a crash can leave the checkpoint behind the writes (MongoDB), the batch is written again.
      await opened.rewindCheckpoint?.('status-pages', before.at(-1)!.position);
      await m.stores.statusPages.commit(records, (r, w) => writes[records.indexOf(r)]!(w, r.position));
      t.deepEqual(await read(), after);
    },
  );
};
