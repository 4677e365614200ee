import { randomUUID } from 'node:crypto';
import { bucketOf } from '../../../src/domain/stats.ts';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import { recorded, type WithModels } from './harness.ts';

export const statsContract = (withModels: WithModels): void => {
  withModels(
    'stats buckets: contributions add up per minute; replays and overlapping replays count once',
    async (t, m) => {
      const p = randomUUID();
      const minute = Date.UTC(2026, 6, 1, 10, 0);
      const contribution = (second: number, rt: number | undefined, status: number) =>
        bucketOf({
          project_id: p,
          service_name: 'api',
          environment: 'production',
          method: 'GET',
          status_code: status,
          timestamp: new Date(minute + second * 1000).toISOString(),
          ...(rt === undefined ? {} : { response_time: rt }),
        });
      const plan: Array<[number, number | undefined, number]> = [
        [1, 10, 200],
        [2, 20, 404],
        [3, undefined, 500],
        [61, 40, 200],
      ];
      const batch = plan.map(() => recorded());
      const apply = (events: RecordedEvent[]) =>
        m.stores.stats.commit(events, (r, w) => {
          const [second, rt, status] = plan[batch.indexOf(r)]!;
          w.add(contribution(second, rt, status), r.position);
        });
      await apply(batch.slice(0, 2));
      await apply(batch);
      await apply(batch);
      const buckets = await m.stats.buckets(
        { from: minute, to: minute + 60_000, hourly: false },
        { all: false, projectIds: [p] },
      );
      const first = buckets.find((b) => b.minute === minute)!;
      t.like(first, {
        total: 3,
        errors_4xx: 1,
        errors_5xx: 1,
        rt_count: 2,
        rt_sum: 30,
        methods: { GET: 3 },
        classes: { '2xx': 1, '4xx': 1, '5xx': 1 },
      });
      t.is(
        Object.values(first.bins).reduce((a, b) => a + b, 0),
        2,
      );
      t.is(first.last_ts, minute + 3000);
      t.is(buckets.find((b) => b.minute === minute + 60_000)!.total, 1);
      t.is(
        (await m.stats.buckets({ from: minute, to: minute, hourly: false }, { all: true })).filter(
          (b) => b.project_id === p,
        ).length,
        1,
      );
      t.deepEqual(
        await m.stats.buckets(
          { from: minute, to: minute + 60_000, hourly: false },
          { all: false, projectIds: [randomUUID()] },
        ),
        [],
      );
      t.deepEqual(
        await m.stats.buckets({ from: minute, to: minute + 60_000, hourly: false, service_name: 'web' }, { all: true }),
        [],
      );
      // A range of whole hours reads the hour roll-up: one bucket with everything of the hour.
      const hourly = await m.stats.buckets(
        { from: minute, to: minute + 3_540_000, hourly: true },
        { all: false, projectIds: [p] },
      );
      t.is(hourly.length, 1);
      t.like(hourly[0], { minute, total: 4, errors_4xx: 1, errors_5xx: 1, rt_count: 3, rt_sum: 70 });
      const ragged = await m.stats.buckets(
        { from: minute + 60_000, to: minute + 3_540_000, hourly: true },
        { all: false, projectIds: [p] },
      );
      t.deepEqual(
        ragged.map((b) => [b.minute, b.total]),
        [[minute + 60_000, 1]],
      );
    },
  );

  withModels(
    "stats buckets for the anomaly scan: a project's per-minute baselines, and every service's activity since a time",
    async (t, m) => {
      const p = randomUUID();
      const at = (hh: number, mm: number, ss = 0) => Date.UTC(2026, 6, 2, hh, mm, ss);
      const plan: Array<[string, string, number]> = [
        ['api', 'production', at(10, 30, 1)],
        ['api', 'production', at(10, 30, 2)],
        ['api', 'production', at(10, 31, 5)],
        ['api', 'staging', at(10, 32, 7)],
        ['web', 'production', at(10, 30, 9)],
        ['api', 'production', at(11, 5)],
        ['old', 'production', at(9, 0)],
      ];
      const batch = plan.map(() => recorded());
      const apply = (events: RecordedEvent[]) =>
        m.stores.stats.commit(events, (r, w) => {
          const [service, environment, ms] = plan[batch.indexOf(r)]!;
          w.add(
            bucketOf({
              project_id: p,
              service_name: service,
              environment,
              method: 'GET',
              status_code: 200,
              timestamp: new Date(ms).toISOString(),
            }),
            r.position,
          );
        });
      await apply(batch.slice(0, 3));
      await apply(batch);
      await apply(batch);
      // api: 2 events at 10:30, 1 at 10:31 (10:32 is past the end): from its first minute on.
      const baselines = await m.stats.serviceBaselines(p, at(10, 29), at(10, 32));
      t.deepEqual(
        baselines.sort((a, b) => a.service_name.localeCompare(b.service_name)),
        [
          { service_name: 'api', first_minute: at(10, 30), sum: 3, sum_squares: 5 },
          { service_name: 'web', first_minute: at(10, 30), sum: 1, sum_squares: 1 },
        ],
      );
      t.deepEqual(await m.stats.serviceBaselines(randomUUID(), at(10, 29), at(10, 32)), []);
      // From 10:25: minutes up to 11:00 from the minute buckets, from 11:00 on from the hour roll-up.
      const activity = (await m.stats.serviceActivity(at(10, 25)))
        .filter((a) => a.project_id === p)
        .sort((a, b) => a.service_name.localeCompare(b.service_name));
      t.deepEqual(activity, [
        { project_id: p, service_name: 'api', environment: 'production', last_event_at: at(11, 5), events_24h: 5 },
        { project_id: p, service_name: 'web', environment: 'production', last_event_at: at(10, 30, 9), events_24h: 1 },
      ]);
      const before11 = (await m.stats.serviceActivity(at(10, 31))).find(
        (a) => a.project_id === p && a.service_name === 'api',
      );
      t.like(before11, { events_24h: 3, last_event_at: at(11, 5) });
    },
  );
};
