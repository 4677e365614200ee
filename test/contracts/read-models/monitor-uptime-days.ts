import { randomUUID } from 'node:crypto';
import { DAY_MS } from '../../../src/domain/monitor-uptime.ts';
import { recorded, type WithModels } from './harness.ts';
import { pending } from './monitors.ts';

export const monitorUptimeDaysContract = (withModels: WithModels): void => {
  withModels(
    "monitors: each monitor's day buckets from a day to today, oldest first, for a status page's bars",
    async (t, m) => {
      const project = randomUUID();
      const [id, other, idle] = [randomUUID(), randomUUID(), randomUUID()];
      const day = (n: number) => Date.UTC(2026, 2, 1) + n * DAY_MS;
      // Checks on days 0, 1, 3 and 5 (two OK and one failed on day 1), and one on day 2 of `other`.
      const checks: Array<{ monitor: string; day: number; ok: boolean; ms: number }> = [
        { monitor: id, day: 0, ok: true, ms: 10 },
        { monitor: id, day: 1, ok: true, ms: 20 },
        { monitor: id, day: 1, ok: false, ms: 9000 },
        { monitor: id, day: 1, ok: true, ms: 40 },
        { monitor: other, day: 2, ok: false, ms: 5000 },
        { monitor: id, day: 3, ok: false, ms: 7000 },
        { monitor: id, day: 5, ok: true, ms: 30 },
      ];
      const created = recorded();
      const counted = checks.map(() => recorded());
      const apply = async () => {
        await m.stores.monitors.commit([created], (_r, w) => {
          for (const monitorId of [id, other, idle]) w.created({ ...pending(project), id: monitorId }, null);
        });
        await m.stores.monitors.commit(counted, (r, w) => {
          const c = checks[counted.indexOf(r)]!;
          const checkedAt = new Date(day(c.day) + 3_600_000).toISOString();
          w.counted(c.monitor, { checked_at: checkedAt, ok: c.ok, response_ms: c.ms }, r.position);
        });
      };
      await apply();
      await apply();

      const bucket = (n: number, ok: number, total: number, ms: number) => ({
        start: day(n),
        ok,
        total,
        ok_response_ms: ms,
      });
      const now = new Date(day(4) + 60_000);
      const days = await m.monitors.uptimeDays([id, other, idle], day(1), now);
      t.deepEqual(Object.fromEntries(days), {
        [id]: [bucket(1, 2, 3, 60), bucket(3, 0, 1, 0)],
        [other]: [bucket(2, 0, 1, 0)],
        [idle]: [],
      });
      t.deepEqual(
        (await m.monitors.uptimeDays([id], day(0), new Date(day(5)))).get(id),
        [bucket(0, 1, 1, 10), bucket(1, 2, 3, 60), bucket(3, 0, 1, 0), bucket(5, 1, 1, 30)],
        "today's bucket is in from its first millisecond",
      );
      const unknown = randomUUID();
      t.deepEqual([...(await m.monitors.uptimeDays([unknown], day(0), now))], [[unknown, []]]);
      t.deepEqual([...(await m.monitors.uptimeDays([], day(0), now))], []);
    },
  );
};
