import test from 'ava';
import {
  CATCH_UP_MS,
  CheckSchedule,
  SHARDS,
  dueFromView,
  PHASE_DRIFT,
  nextInPhase,
  shardOf,
  type ScheduledMonitor,
} from '../../src/jobs/check-schedule.ts';

const T0 = Date.parse('2025-01-01T00:10:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

const monitor = (id: string, extra: Partial<ScheduledMonitor> = {}): ScheduledMonitor => ({
  id,
  interval_seconds: 60,
  enabled: true,
  status: 'UP',
  last_checked_at: iso(T0 - 20_000),
  last_error: null,
  updated_at: '2025-01-01T00:00:00.000Z',
  type: 'http',
  ...extra,
});

test('a monitor id always falls in the same shard, and ids spread over every shard', (t) => {
  t.is(shardOf('m-1'), shardOf('m-1'));
  const used = new Set(Array.from({ length: 1000 }, (_, i) => shardOf(`monitor-${i}`)));
  t.is(used.size, SHARDS);
  for (const shard of used) t.true(shard >= 0 && shard < SHARDS);
});

test('each gap between checks is within a tenth of the interval, and within five checks a monitor is in phase', (t) => {
  const interval = 10_000;
  for (let i = 0; i < 500; i++) {
    const id = `m-${i}`;
    let started = T0 + ((i * 7919) % 20_000);
    for (let check = 0; check < 5; check++) {
      const next = nextInPhase(id, started, interval);
      t.true(Math.abs(next - started - interval) <= interval * PHASE_DRIFT, `${id}: ${next - started} ms`);
      started = next;
    }
    t.is(nextInPhase(id, started, interval) - started, interval, `${id}: in phase, one interval apart`);
    t.is(nextInPhase(id, started + 40, interval), started + interval, `${id}: a check 40 ms late keeps its phase`);
  }
});

test('monitors checked in the same second are spread over their interval within five checks', (t) => {
  const interval = 10_000;
  const schedule = new CheckSchedule();
  const ids = Array.from({ length: 1000 }, (_, i) => `monitor-${i}`);
  schedule.sync(
    ids.map((id) => monitor(id, { interval_seconds: 10, last_checked_at: null })),
    T0,
  );
  const perSecond = new Map<number, number>();
  for (const id of ids) {
    let at = T0 + (id.length % 3);
    for (let check = 0; check < 5; check++) at = schedule.checked(id, at, null)?.due.at ?? 0;
    const next = schedule.checked(id, at, null)?.due.at ?? 0;
    t.is(next - at, interval);
    const bucket = Math.floor((next % interval) / 1000);
    perSecond.set(bucket, (perSecond.get(bucket) ?? 0) + 1);
  }
  t.is(perSecond.size, 10);
  for (const [second, n] of perSecond) t.true(n > 60 && n < 140, `second ${second} of the interval: ${n} monitors`);
});

test('due from the read model: one interval after the last check, measured from it', (t) => {
  t.deepEqual(dueFromView(monitor('a'), T0), { at: T0 + 40_000, scheduled: true });
  t.deepEqual(dueFromView(monitor('a', { last_checked_at: iso(T0 - 90_000) }), T0), {
    at: T0 - 30_000,
    scheduled: true,
  });
});

test('due at once, unmeasured: never checked, or changed since the last check', (t) => {
  t.deepEqual(dueFromView(monitor('a', { last_checked_at: null }), T0), { at: T0, scheduled: false });
  t.deepEqual(dueFromView(monitor('a', { updated_at: iso(T0 - 5000) }), T0), { at: T0, scheduled: false });
});

test('an unconfirmed change (the last check disagrees with the status) is due after the retry interval', (t) => {
  const failing = monitor('a', { last_error: 'expected status 200, received 503' });
  t.is(dueFromView(failing, T0).at, T0 - 20_000 + 30_000, 'retry default: min(interval, 30 s)');
  t.is(dueFromView({ ...failing, retry_interval_seconds: 5 }, T0).at, T0 - 20_000 + 5000);
  t.is(dueFromView(monitor('a', { status: 'DOWN' }), T0).at, T0 - 20_000 + 30_000, 'a recovery too');
  t.is(dueFromView(monitor('a', { status: 'DOWN', last_error: 'x' }), T0).at, T0 + 40_000, 'a confirmed DOWN');
});

test('a heartbeat monitor is looked at every 10 s at most', (t) => {
  t.is(dueFromView(monitor('h', { type: 'heartbeat', interval_seconds: 300 }), T0).at, T0 - 20_000 + 10_000);
  t.is(dueFromView(monitor('h', { type: 'heartbeat', interval_seconds: 5 }), T0).at, T0 - 20_000 + 5000);
});

test('sync adds enabled monitors, reschedules a new interval at once, removes paused and deleted ones', (t) => {
  const schedule = new CheckSchedule();
  const kinds = (changes: ReturnType<CheckSchedule['sync']>) => changes.map((c) => `${c.kind} ${c.entry.id}`);
  t.deepEqual(kinds(schedule.sync([monitor('a'), monitor('b'), monitor('p', { enabled: false })], T0)), [
    'added a',
    'added b',
  ]);
  t.deepEqual(kinds(schedule.sync([monitor('a'), monitor('b')], T0 + 1000)), [], 'nothing changed');
  const changed = schedule.sync([monitor('a', { interval_seconds: 30 }), monitor('b', { enabled: false })], T0 + 2000);
  t.deepEqual(kinds(changed), ['rescheduled a', 'removed b']);
  t.deepEqual(schedule.entries.get('a')?.due, { at: T0 + 2000, scheduled: false });
  t.deepEqual(kinds(schedule.sync([], T0 + 3000)), ['removed a']);
  t.is(schedule.entries.size, 0);
});

test('a check this worker made sets the next one: its next phase time, or the retry time', (t) => {
  const schedule = new CheckSchedule();
  schedule.sync([monitor('a')], T0);
  t.deepEqual(schedule.checked('a', T0 + 40_000, null)?.due, {
    at: nextInPhase('a', T0 + 40_000, 60_000),
    scheduled: true,
  });
  t.deepEqual(schedule.checked('a', T0 + 100_000, T0 + 130_000)?.due, { at: T0 + 130_000, scheduled: true });
  t.is(schedule.checked('gone', T0, null), null);
});

test("taking a shard over: the read model's newer check wins over this worker's, an older one does not", (t) => {
  const a = monitor('a');
  const schedule = new CheckSchedule();
  schedule.sync([a], T0);
  schedule.checked('a', T0 + 40_000, null);
  const shard = shardOf('a');
  schedule.takeOver(shard, new Map([['a', a]]), T0 + 50_000);
  t.is(schedule.entries.get('a')?.due.at, nextInPhase('a', T0 + 40_000, 60_000), "this worker's check is the newest");
  const elsewhere = { ...a, last_checked_at: iso(T0 + 100_500) };
  schedule.takeOver(shard, new Map([['a', elsewhere]]), T0 + 120_000);
  t.is(schedule.entries.get('a')?.due.at, T0 + 160_500, "another worker's later check: one interval on");
});

test('taken over overdue (after a restart), monitors are spread over the catch-up window, unmeasured', (t) => {
  const ids = Array.from({ length: 200 }, (_, i) => `m-${i}`);
  const old = (id: string) => monitor(id, { interval_seconds: 60, last_checked_at: iso(T0 - 600_000) });
  const schedule = new CheckSchedule();
  schedule.sync(ids.map(old), T0);
  const now = T0 + 1000;
  for (let shard = 0; shard < SHARDS; shard++) schedule.takeOver(shard, new Map(ids.map((id) => [id, old(id)])), now);
  const dues = [...schedule.entries.values()].map((e) => e.due);
  t.true(dues.every((d) => !d.scheduled && d.at >= now && d.at < now + CATCH_UP_MS));
  const seconds = new Set(dues.map((d) => Math.floor((d.at - now) / 1000)));
  t.is(seconds.size, 10, 'every second of the window has some');
  const short = new CheckSchedule();
  short.sync(
    [old('s')].map((m) => ({ ...m, interval_seconds: 2 })),
    T0,
  );
  short.takeOver(shardOf('s'), new Map([['s', { ...old('s'), interval_seconds: 2 }]]), now);
  t.true((short.entries.get('s')?.due.at ?? 0) < now + 2000, 'within the interval when it is shorter');
});
