import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const monitorsContract = (withModels: WithModels): void => {
  withModels(
    'monitors: state, last check, history newest first and capped, removal; replays change nothing',
    async (t, m) => {
      const project = randomUUID();
      const id = randomUUID();
      const other = randomUUID();
      const base = {
        project_id: project,
        name: 'orders',
        url: 'http://127.0.0.1:9/',
        interval_seconds: 60,
        timeout_seconds: 10,
        expected_status: 200,
        enabled: true,
        status: 'PENDING' as const,
        status_since: null,
        last_checked_at: null,
        last_status_code: null,
        last_response_ms: null,
        last_error: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      };
      const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      const check = (i: number) => ({
        checked_at: at(i),
        status_code: i % 2 ? 503 : 200,
        response_ms: i,
        ok: i % 2 === 0,
        error: null,
      });
      const created = recorded();
      const checks = Array.from({ length: 205 }, (_, i) => ({ r: recorded(), i }));
      const apply = async () => {
        await m.stores.monitors.commit([created], (_r, w) => {
          w.created({ ...base, id });
          w.created({ ...base, id: other, project_id: randomUUID(), created_at: at(1) });
        });
        await m.stores.monitors.commit(
          checks.map((c) => c.r),
          (r, w) => {
            const c = checks.find((x) => x.r === r)!;
            w.checked(id, check(c.i), r.position);
            w.counted(id, Date.UTC(2026, 0, 1), check(c.i).ok, r.position);
          },
        );
      };
      await apply();
      await apply();
      const down = recorded();
      await m.stores.monitors.commit([down], (_r, w) => {
        w.status(id, 'DOWN', at(203));
        w.updated(id, { enabled: false, name: 'orders-api' }, at(204));
      });
      const view = await m.monitors.get(id, { all: true });
      t.like(view, {
        id,
        name: 'orders-api',
        enabled: false,
        status: 'DOWN',
        status_since: at(203),
        last_checked_at: at(204),
        last_status_code: 200,
        last_response_ms: 204,
        updated_at: at(204),
        interval_seconds: 60,
      });
      t.is(await m.monitors.get(id, { all: false, projectIds: [randomUUID()] }), null);
      const history = await m.monitors.history(id, 500);
      t.is(history.length, 200);
      t.deepEqual(history[0], check(204));
      t.is(history[199]!.checked_at, at(5));
      t.deepEqual(
        (await m.monitors.history(id, 3)).map((h) => h.response_ms),
        [204, 203, 202],
      );
      t.is(await m.monitors.countInProject(project), 1);
      t.deepEqual(
        (await m.monitors.list({ all: true })).map((x) => x.id),
        [id, other],
      );
      t.deepEqual(
        (await m.monitors.list({ all: true }, project)).map((x) => x.id),
        [id],
      );
      t.deepEqual(await m.monitors.list({ all: false, projectIds: [] }), []);
      // All 205 checks counted once (103 OK), despite the replay.
      t.deepEqual(Object.fromEntries(await m.monitors.uptime([id, other], new Date(at(3600)))), {
        [id]: { uptime_24h: 103 / 205, uptime_7d: 103 / 205 },
        [other]: { uptime_24h: null, uptime_7d: null },
      });
      const older = [recorded(), recorded()];
      await m.stores.monitors.commit(older, (r, w) => {
        // An hour more than 168 hours before the newest is dropped at once.
        w.counted(id, Date.UTC(2026, 0, 1) - 169 * 3_600_000, true, r.position);
      });
      t.deepEqual((await m.monitors.uptime([id], new Date(Date.UTC(2026, 0, 1) - 168 * 3_600_000))).get(id), {
        uptime_24h: null,
        uptime_7d: null,
      });

      const removed = recorded();
      const late = recorded();
      await m.stores.monitors.commit([removed, late], (r, w) => {
        if (r === removed) w.deleted(id);
        else w.checked(id, check(300), r.position);
      });
      t.is(await m.monitors.get(id, { all: true }), null);
      t.deepEqual(await m.monitors.history(id, 10), []);
      t.deepEqual((await m.monitors.uptime([id], new Date(at(0)))).get(id), { uptime_24h: null, uptime_7d: null });
      t.is(await m.monitors.countInProject(project), 0);
    },
  );
};
