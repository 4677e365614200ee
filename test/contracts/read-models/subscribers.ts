import { randomUUID } from 'node:crypto';
import type { ReadModels } from '../../../src/views/read-models.ts';
import type { SubscribersWriter } from '../../../src/views/subscribers/port.ts';
import { recorded, type WithModels } from './harness.ts';

/** Commits one batch of `writes`, each at a position of its own. */
const batch = async (m: ReadModels, writes: ReadonlyArray<(w: SubscribersWriter) => void>): Promise<void> => {
  const records = writes.map(() => recorded());
  await m.stores.subscribers.commit(records, (r, w) => writes[records.indexOf(r)]!(w));
};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

export const subscribersContract = (withModels: WithModels): void => {
  withModels(
    'subscribers: a page list newest first and paged, by status, counts, recipients by page, lookups; ' +
      'removed ones leave every answer but withEmail, an erasure takes them too',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const [page1, page2] = [randomUUID(), randomUUID()];
      const [a, b, c, d, e] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const ask =
        (id: string, page: string, email: string, minute: number, project = p) =>
        (w: SubscribersWriter) =>
          w.requested({ id, page_id: page, project_id: project, email, at: at(minute) });
      const writes = [
        ask(a, page1, 'a@example.com', 0),
        ask(b, page1, 'b@example.com', 1),
        ask(c, page1, 'c@example.com', 2),
        ask(d, page2, 'a@example.com', 3),
        ask(e, randomUUID(), 'a@example.com', 4, q),
        (w: SubscribersWriter) => w.confirmed(a, at(5)),
        (w: SubscribersWriter) => w.confirmed(d, at(5)),
        (w: SubscribersWriter) => w.unsubscribed(b, at(6)),
        (w: SubscribersWriter) => w.delivery(a, { id: 'd1', type: 'incident.opened', status: 'pending', at: at(7) }),
        (w: SubscribersWriter) => w.deliveryStatus(a, 'd0', 'failed', at(8)),
        (w: SubscribersWriter) => w.deliveryStatus(a, 'd1', 'delivered', at(8)),
      ];
      await batch(m, writes);
      // A batch written again (a replay) lands on the same rows.
      await batch(m, writes);

      const list = await m.subscribers.list(page1, { page: 1, limit: 2 });
      t.deepEqual(
        list.data.map((s) => s.id),
        [c, b],
      );
      t.deepEqual(list.pagination, { page: 1, limit: 2, totalItems: 3, totalPage: 2 });
      t.deepEqual(
        (await m.subscribers.list(page1, { page: 2, limit: 2 })).data.map((s) => s.id),
        [a],
      );
      t.deepEqual(
        (await m.subscribers.list(page1, { page: 1, limit: 10, status: 'unsubscribed' })).data.map((s) => s.id),
        [b],
      );
      t.deepEqual(await m.subscribers.counts(page1), { pending: 1, confirmed: 1, unsubscribed: 1 });
      t.deepEqual(await m.subscribers.counts(randomUUID()), { pending: 0, confirmed: 0, unsubscribed: 0 });
      t.deepEqual(await m.subscribers.get(a), {
        id: a,
        page_id: page1,
        project_id: p,
        email: 'a@example.com',
        status: 'confirmed',
        created_at: at(0),
        updated_at: at(5),
        requested_at: at(0),
        confirmed_at: at(5),
        unsubscribed_at: null,
        last_delivery: { id: 'd1', type: 'incident.opened', status: 'delivered', at: at(8) },
      });
      t.like(await m.subscribers.get(b), { status: 'unsubscribed', unsubscribed_at: at(6), confirmed_at: null });
      t.deepEqual(await m.subscribers.confirmed([page2, page1]), [
        { id: d, page_id: page2, email: 'a@example.com' },
        { id: a, page_id: page1, email: 'a@example.com' },
      ]);
      t.deepEqual(await m.subscribers.withEmail(p, 'a@example.com'), [a, d]);

      await batch(m, [(w) => w.removed(a), (w) => w.pageDeleted(page2)]);
      t.is(await m.subscribers.get(a), null);
      t.deepEqual(await m.subscribers.counts(page1), { pending: 1, confirmed: 0, unsubscribed: 1 });
      t.deepEqual(await m.subscribers.confirmed([page2, page1]), []);
      t.deepEqual((await m.subscribers.list(page2, { page: 1, limit: 10 })).data, []);
      t.deepEqual(await m.subscribers.withEmail(p, 'a@example.com'), [a, d], 'kept for an erasure');

      // Asked for again after its removal: pending, its first request and last delivery kept.
      await batch(m, [ask(a, page1, 'a@example.com', 9)]);
      t.like(await m.subscribers.get(a), {
        status: 'pending',
        created_at: at(0),
        requested_at: at(9),
        confirmed_at: null,
        last_delivery: { id: 'd1', status: 'delivered' },
      });

      await batch(m, [(w) => w.erased(p, 'a@example.com')]);
      t.deepEqual(await m.subscribers.withEmail(p, 'a@example.com'), []);
      t.is(await m.subscribers.get(a), null);
      t.deepEqual(await m.subscribers.withEmail(q, 'a@example.com'), [e], "another project's stays");
      await batch(m, [ask(a, page1, 'a@example.com', 10)]);
      t.like(await m.subscribers.get(a), { status: 'pending', created_at: at(10), last_delivery: null }, 'anew');
    },
  );
};
