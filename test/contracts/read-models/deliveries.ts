import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const deliveriesContract = (withModels: WithModels): void => {
  withModels(
    'delivery log: created once, tries by number, status changes; ' +
      'by channel (paged, newest first, by status), by event, scoped',
    async (t, m) => {
      const [project, other, channel, event] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const delivery = (i: number, over: Record<string, unknown> = {}) => ({
        id: randomUUID(),
        channel_id: channel,
        channel_type: 'slack' as const,
        project_id: project,
        event_id: i === 0 ? event : randomUUID(),
        event_type: 'monitor.down' as const,
        title: `m${i} is DOWN`,
        status: 'pending' as const,
        reason: null,
        attempts: [],
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        updated_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        ...over,
      });
      const rows = [0, 1, 2, 3].map((i) => delivery(i));
      const foreign = delivery(4, { project_id: other });
      const skipped = delivery(5, { status: 'skipped', reason: 'not sent: within the quiet period' });
      const batch = recorded();
      const apply = () =>
        m.stores.deliveries.commit([batch], (_r, w) => {
          for (const d of [...rows, foreign, skipped]) w.created(d);
          w.created({ ...rows[0]!, title: 'changed' });
        });
      await apply();
      await apply();
      const attempt = (n: number, outcome: 'delivered' | 'failed', at: string) => ({
        attempt: n,
        at,
        outcome,
        status: outcome === 'failed' ? 503 : 200,
        error: outcome === 'failed' ? 'answered 503' : null,
        response: 'ok',
        duration_ms: 7,
      });
      const tries = recorded();
      await m.stores.deliveries.commit([tries], (_r, w) => {
        w.attempted(rows[0]!.id, attempt(1, 'failed', '2026-01-01T01:00:00.000Z'), 'pending');
        w.attempted(rows[0]!.id, attempt(2, 'failed', '2026-01-01T01:00:01.000Z'), 'failed');
        w.attempted(rows[1]!.id, attempt(1, 'delivered', '2026-01-01T01:00:02.000Z'), 'delivered');
        w.statusChanged(rows[2]!.id, 'cancelled', 'channel deleted', '2026-01-01T01:00:03.000Z');
      });
      const got = await m.deliveries.get(rows[0]!.id, { all: true });
      t.like(got, { title: 'm0 is DOWN', status: 'failed', updated_at: '2026-01-01T01:00:01.000Z' });
      t.deepEqual(got!.attempts, [
        attempt(1, 'failed', '2026-01-01T01:00:00.000Z'),
        attempt(2, 'failed', '2026-01-01T01:00:01.000Z'),
      ]);
      const retry = recorded();
      await m.stores.deliveries.commit([retry], (_r, w) => {
        w.statusChanged(rows[0]!.id, 'pending', null, '2026-01-01T02:00:00.000Z');
        w.attempted(rows[0]!.id, attempt(3, 'delivered', '2026-01-01T02:00:01.000Z'), 'delivered');
      });
      t.like(await m.deliveries.get(rows[0]!.id, { all: true }), { status: 'delivered', reason: null });
      t.is((await m.deliveries.get(rows[0]!.id, { all: true }))!.attempts.length, 3);

      const all = await m.deliveries.forChannel(channel, { page: 1, limit: 10 }, { all: true });
      t.deepEqual(
        all.data.map((d) => d.id),
        [skipped, foreign, ...[...rows].reverse()].map((d) => d.id),
      );
      t.deepEqual(all.pagination, { page: 1, limit: 10, totalItems: 6, totalPage: 1 });
      const scoped = await m.deliveries.forChannel(
        channel,
        { page: 2, limit: 2 },
        { all: false, projectIds: [project] },
      );
      t.deepEqual(
        scoped.data.map((d) => d.id),
        [rows[2]!.id, rows[1]!.id],
      );
      t.deepEqual(scoped.pagination, { page: 2, limit: 2, totalItems: 5, totalPage: 3 });
      t.deepEqual(
        (await m.deliveries.forChannel(channel, { page: 1, limit: 10, status: 'cancelled' }, { all: true })).data.map(
          (d) => d.id,
        ),
        [rows[2]!.id],
      );
      t.deepEqual(
        (await m.deliveries.forChannel(channel, { page: 1, limit: 10 }, { all: false, projectIds: [] })).data,
        [],
      );
      t.deepEqual(
        (await m.deliveries.forEvent(event, { all: true })).map((d) => d.id),
        [rows[0]!.id],
      );
      t.deepEqual(await m.deliveries.forEvent(event, { all: false, projectIds: [other] }), []);
      t.is(await m.deliveries.get(foreign.id, { all: false, projectIds: [project] }), null);
    },
  );
};
