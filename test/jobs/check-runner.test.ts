import test from 'ava';
import pino from 'pino';
import { CheckRunner } from '../../src/jobs/check-runner.ts';
import { SHARDS } from '../../src/jobs/check-schedule.ts';
import type { MonitorSchedule } from '../../src/views/monitors/port.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A monitor last checked almost an interval ago: due in `inMs` (not overdue when its shard is
 *  taken, so not spread over the catch-up window). */
const dueIn = (id: string, inMs = 30, from = Date.now()): MonitorSchedule => ({
  id,
  type: 'http',
  interval_seconds: 60,
  enabled: true,
  status: 'UP',
  last_checked_at: new Date(from - 60_000 + inMs).toISOString(),
  last_error: null,
  updated_at: '2025-01-01T00:00:00.000Z',
});

test('over its concurrency, due checks wait their turn in the order they fell due, each run once', async (t) => {
  const from = Date.now();
  const monitors = Array.from({ length: 12 }, (_, i) => dueIn(`m-${i}`, 30 + 3 * i, from));
  const started: string[] = [];
  let inFlight = 0;
  let most = 0;
  const runner = new CheckRunner(
    { scheduled: async () => monitors },
    async (id) => {
      started.push(id);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await sleep(5);
      inFlight -= 1;
      return null;
    },
    pino({ level: 'silent' }),
    { concurrency: 2, syncEveryMs: 10, fullSyncEveryMs: 60_000 },
  );
  t.teardown(() => runner.stop());
  runner.start();
  for (let shard = 0; shard < SHARDS; shard++) await runner.hold(shard);
  // Syncs every 10 ms meanwhile find nothing new: no monitor is armed a second time.
  await sleep(200);
  t.is(most, 2);
  t.deepEqual(
    started,
    monitors.map((m) => m.id),
    'each checked once, none twice, in due order',
  );
  for (const m of monitors)
    t.true((runner.dueAt(m.id) ?? 0) > Date.now() + 53_000, 'then due one interval on, give or take a tenth');
  runner.release(0);
  const inShard0 = monitors.filter((m) => runner.dueAt(m.id) === null).length;
  t.true(inShard0 < monitors.length, 'a released shard is no longer scheduled here; the others are');
});

test('a check that fails is logged and scheduled again at its next phase time', async (t) => {
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line).msg) });
  const runner = new CheckRunner(
    { scheduled: async () => [dueIn('broken')] },
    async () => {
      throw new Error('log unavailable');
    },
    logger,
    { concurrency: 5, syncEveryMs: 1000, fullSyncEveryMs: 60_000 },
  );
  t.teardown(() => runner.stop());
  for (let shard = 0; shard < SHARDS; shard++) await runner.hold(shard);
  await sleep(50);
  t.deepEqual(errors, ['a monitor check failed; it runs again at its next time']);
  t.true((runner.dueAt('broken') ?? 0) > Date.now() + 53_000);
});
