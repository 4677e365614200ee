import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';
import { uptimeAt } from '../../../src/domain/monitor-uptime.ts';

/** No checks in any window. */
const NONE = uptimeAt([], [], new Date(0));

/** A new http monitor of `project_id`, before any check. */
export const pending = (project_id: string) => ({
  project_id,
  name: 'orders',
  url: 'http://127.0.0.1:9/',
  type: 'http' as const,
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
  last_certificate: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
});

export const monitorsContract = (withModels: WithModels): void => {
  withModels(
    'monitors: state, last check, history newest first and capped, removal; replays change nothing',
    async (t, m) => {
      const project = randomUUID();
      const id = randomUUID();
      const other = randomUUID();
      const base = pending(project);
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
          w.created({ ...base, id }, null);
          w.created({ ...base, id: other, project_id: randomUUID(), created_at: at(1) }, null);
        });
        await m.stores.monitors.commit(
          checks.map((c) => c.r),
          (r, w) => {
            const c = checks.find((x) => x.r === r)!;
            w.checked(id, check(c.i), r.position);
            w.counted(id, check(c.i), r.position);
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
        [id]: {
          uptime_24h: 103 / 205,
          uptime_7d: 103 / 205,
          uptime_30d: 103 / 205,
          uptime_90d: 103 / 205,
          // The OK checks are the even ones, 0 to 204: their mean response time is 102 ms.
          avg_response_ms_24h: 102,
          avg_response_ms_7d: 102,
          avg_response_ms_30d: 102,
          avg_response_ms_90d: 102,
        },
        [other]: NONE,
      });
      const older = [recorded(), recorded()];
      await m.stores.monitors.commit(older, (r, w) => {
        // An hour more than 168 hours (a day more than 90 days) before the newest is dropped at once.
        const old = r === older[0] ? Date.UTC(2026, 0, 1) - 169 * 3_600_000 : Date.UTC(2026, 0, 1) - 92 * 86_400_000;
        w.counted(id, { checked_at: new Date(old).toISOString(), ok: true, response_ms: 5 }, r.position);
      });
      t.like((await m.monitors.uptime([id], new Date(Date.UTC(2026, 0, 1) - 168 * 3_600_000))).get(id), {
        uptime_24h: null,
        uptime_7d: null,
      });
      t.like((await m.monitors.uptime([id], new Date(Date.UTC(2026, 0, 1) - 91 * 86_400_000))).get(id), {
        uptime_30d: null,
        uptime_90d: null,
      });

      const removed = recorded();
      const late = recorded();
      await m.stores.monitors.commit([removed, late], (r, w) => {
        if (r === removed) w.deleted(id);
        else w.checked(id, check(300), r.position);
      });
      t.is(await m.monitors.get(id, { all: true }), null);
      t.deepEqual(await m.monitors.history(id, 10), []);
      t.deepEqual((await m.monitors.uptime([id], new Date(at(0)))).get(id), NONE);
      t.is(await m.monitors.countInProject(project), 0);
    },
  );

  withModels('monitors: options, a heartbeat token, the last certificate and what each check saw', async (t, m) => {
    const id = randomUUID();
    const hb = randomUUID();
    const project = randomUUID();
    const cert = {
      valid_from: '2026-01-01T00:00:00.000Z',
      valid_to: '2026-02-01T00:00:00.000Z',
      issuer: 'CN=test CA',
      subject: 'CN=localhost',
      names: ['localhost', '127.0.0.1'],
    };
    const base = pending(project);
    const [created, changed, checkedWithCert, checkedWithout] = [recorded(), recorded(), recorded(), recorded()];
    await m.stores.monitors.commit([created], (_r, w) => {
      w.created(
        {
          ...base,
          id,
          type: 'http',
          url: 'https://127.0.0.1:9/health',
          method: 'POST',
          headers: { 'X-Token': 'secret' },
          assertions: [{ source: 'json', path: '$.status', op: 'equals', value: 'ok' }],
          down_after: 3,
        },
        null,
      );
      w.created({ ...base, id: hb, type: 'heartbeat', url: `heartbeat:${hb}`, grace_seconds: 30 }, 'ab'.repeat(32));
    });
    await m.stores.monitors.commit([changed], (_r, w) => {
      w.updated(id, { down_after: null, up_after: 2, name: 'orders-api' }, '2026-01-01T00:01:00.000Z');
    });
    await m.stores.monitors.commit([checkedWithCert, checkedWithout], (r, w) => {
      const first = r === checkedWithCert;
      w.checked(
        id,
        {
          checked_at: first ? '2026-01-01T00:02:00.000Z' : '2026-01-01T00:03:00.000Z',
          status_code: 200,
          response_ms: 12,
          ok: first,
          error: first ? null : 'json $.status equals "ok": got "degraded"',
          assertions: [
            {
              source: 'json',
              path: '$.status',
              op: 'equals',
              value: 'ok',
              passed: first,
              received: first ? 'ok' : 'degraded',
            },
          ],
          ...(first ? { certificate: cert } : {}),
        },
        r.position,
      );
    });
    const view = await m.monitors.get(id, { all: true });
    t.like(view, {
      type: 'http',
      name: 'orders-api',
      method: 'POST',
      headers: { 'X-Token': 'secret' },
      up_after: 2,
      last_certificate: cert,
      last_error: 'json $.status equals "ok": got "degraded"',
    });
    t.is(view?.down_after, undefined, 'an option set to null is gone');
    t.deepEqual(view?.assertions, [{ source: 'json', path: '$.status', op: 'equals', value: 'ok' }]);
    const [newest, oldest] = await m.monitors.history(id, 2);
    t.is(newest?.certificate, undefined);
    t.deepEqual(oldest?.certificate, cert);
    t.like(newest?.assertions?.[0], { passed: false, received: 'degraded' });
    t.like(await m.monitors.byHeartbeatToken('ab'.repeat(32)), { id: hb, type: 'heartbeat', grace_seconds: 30 });
    t.is(await m.monitors.byHeartbeatToken('cd'.repeat(32)), null);
  });

  withModels("monitors: every monitor's schedule, an option's retry interval among it", async (t, m) => {
    const project = randomUUID();
    const plain = { ...pending(project), id: randomUUID() };
    const retrying = { ...pending(project), id: randomUUID(), retry_interval_seconds: 5, down_after: 3 };
    await m.stores.monitors.commit([recorded()], (_r, w) => {
      w.created(plain, null);
      w.created(retrying, null);
      w.updated(retrying.id, { enabled: false }, '2026-01-01T00:01:00.000Z');
      w.status(plain.id, 'UP', '2026-01-01T00:02:00.000Z');
    });
    await m.stores.monitors.commit([recorded()], (_r, w) =>
      w.checked(
        plain.id,
        { checked_at: '2026-01-01T00:03:00.000Z', status_code: 503, response_ms: 5, ok: false, error: 'down' },
        '999998',
      ),
    );
    const mine = (await m.monitors.scheduled())
      .filter((s) => s.id === plain.id || s.id === retrying.id)
      .sort((a, b) => (a.id === plain.id ? -1 : b.id === plain.id ? 1 : 0));
    t.deepEqual(mine, [
      {
        id: plain.id,
        type: 'http',
        interval_seconds: 60,
        enabled: true,
        status: 'UP',
        last_checked_at: '2026-01-01T00:03:00.000Z',
        last_error: 'down',
        updated_at: '2026-01-01T00:00:00.000Z',
      },
      {
        id: retrying.id,
        type: 'http',
        interval_seconds: 60,
        retry_interval_seconds: 5,
        enabled: false,
        status: 'PENDING',
        last_checked_at: null,
        last_error: null,
        updated_at: '2026-01-01T00:01:00.000Z',
      },
    ]);
  });

  withModels('monitors: the schedule version moves with what the check jobs follow, and only then', async (t, m) => {
    const version = async () => (await m.monitors.scheduleVersion?.()) ?? null;
    const id = randomUUID();
    const before = await version();
    t.not(before, null, 'every adapter has one');
    const view = { ...pending(randomUUID()), id };
    const seen = [before];
    const step = async (write: (w: import('../../../src/views/monitors/port.ts').MonitorsWriter) => void) => {
      await m.stores.monitors.commit([recorded()], (_r, w) => write(w));
      seen.push(await version());
    };
    await step((w) => w.created(view, null));
    await step((w) => w.updated(id, { interval_seconds: 30 }, '2026-01-01T00:01:00.000Z'));
    await step((w) => w.updated(id, { enabled: false }, '2026-01-01T00:02:00.000Z'));
    const paused = await version();
    await step((w) =>
      w.checked(
        id,
        { checked_at: '2026-01-01T00:03:00.000Z', status_code: 200, response_ms: 5, ok: true, error: null },
        '999999',
      ),
    );
    t.is(await version(), paused, 'a check is not a change of schedule');
    seen.pop();
    t.is(new Set(seen).size, seen.length, seen.join(' / '));
    await step((w) => w.deleted(id));
    // Created and deleted again: the version of before (the full comparison's minute covers it).
    t.is(await version(), before);
  });
};
