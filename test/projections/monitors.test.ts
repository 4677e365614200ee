import { uptimeAt } from '../../src/domain/monitor-uptime.ts';
import { monitorsProjection } from '../../projections/monitors.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { CheckResult, MonitorSettings } from '../../src/domain/monitor.ts';
import type { MonitorView } from '../../src/views/monitors/port.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

/** No checks in any window. */
const NONE = uptimeAt([], [], new Date(0));
const it = projectionTests(monitorsProjection, (m) => m.stores.monitors);

const [P, Q, ORDERS, BILLING, LEGACY, URL, REFUSED] = [
  '0b6f3a52-8c1e-4d7a-9f10-3e2d5c4b1a01',
  '0b6f3a52-8c1e-4d7a-9f10-3e2d5c4b1a02',
  '5d1c7e20-1b2a-4c3d-8e4f-5a6b7c8d9e01',
  '5d1c7e20-1b2a-4c3d-8e4f-5a6b7c8d9e02',
  '5d1c7e20-1b2a-4c3d-8e4f-5a6b7c8d9e03',
  'https://orders.example.com/health',
  'connect ECONNREFUSED 10.0.0.7:443',
];

const at = (second: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, second)).toISOString();
const ordersSettings: MonitorSettings = {
  name: 'orders',
  url: URL,
  interval_seconds: 60,
  timeout_seconds: 10,
  expected_status: 200,
  enabled: true,
};

const created = (
  monitor_id: string,
  project_id: string,
  second: number,
  settings: Partial<MonitorSettings> = {},
): DomainEvent => ({
  type: 'MonitorCreated',
  data: { monitor_id, project_id, created_at: at(second), ...ordersSettings, ...settings },
});
const check = (
  monitor_id: string,
  second: number,
  result: Omit<CheckResult, 'checked_at'> & { in_maintenance?: true },
): DomainEvent => ({
  type: 'CheckRecorded',
  data: { monitor_id, project_id: P, checked_at: at(second), ...result },
});
const established = (second: number): DomainEvent => ({
  type: 'MonitorStatusEstablished',
  data: {
    monitor_id: ORDERS,
    project_id: P,
    status: 'UP',
    checked_at: at(second),
    ok: true,
    response_ms: 120,
    status_code: 200,
  },
});
const wentDown = (monitor_id: string, second: number): DomainEvent => ({
  type: 'MonitorWentDown',
  data: {
    monitor_id,
    project_id: P,
    name: 'orders',
    url: URL,
    expected_status: 200,
    went_down_at: at(second),
    response_ms: 3,
    error: REFUSED,
  },
});
const cameUp = (second: number): DomainEvent => ({
  type: 'MonitorCameUp',
  data: {
    monitor_id: ORDERS,
    project_id: P,
    name: 'orders',
    url: URL,
    came_up_at: at(second),
    status_code: 200,
    response_ms: 95,
    downtime_seconds: 120,
  },
});
const updated = (second: number, changes: Partial<MonitorSettings>): DomainEvent => ({
  type: 'MonitorUpdated',
  data: { monitor_id: ORDERS, project_id: P, changes, updated_at: at(second) },
});
const deleted = (monitor_id: string, second: number): DomainEvent => ({
  type: 'MonitorDeleted',
  data: { monitor_id, project_id: P, deleted_at: at(second) },
});

/** A new monitor, before any check. */
const pending = (id: string, project_id: string, second: number, settings: MonitorSettings): MonitorView => ({
  id,
  project_id,
  ...settings,
  status: 'PENDING',
  status_since: null,
  last_checked_at: null,
  last_status_code: null,
  last_response_ms: null,
  last_error: null,
  last_certificate: null,
  type: 'http',
  created_at: at(second),
  updated_at: at(second),
});

const billingSettings: MonitorSettings = {
  name: 'billing',
  url: 'https://billing.example.com/',
  interval_seconds: 300,
  timeout_seconds: 30,
  expected_status: 204,
  enabled: false,
};

scenarioTests(it, {
  projectId: P,
  // orders goes up, down (refused, then a 503 that is no new transition), up again, and is renamed;
  // billing is never checked; legacy is checked once and deleted.
  events: () => [
    created(ORDERS, P, 0),
    created(BILLING, Q, 1, billingSettings),
    created(LEGACY, P, 2, { name: 'legacy', url: 'http://legacy.example.com/' }),
    check(ORDERS, 60, { ok: true, response_ms: 120, status_code: 200 }),
    established(60),
    check(LEGACY, 62, { ok: true, response_ms: 7, status_code: 200 }),
    check(ORDERS, 120, { ok: false, response_ms: 3, error: REFUSED }),
    wentDown(ORDERS, 120),
    check(ORDERS, 180, { ok: false, response_ms: 40, status_code: 503 }),
    deleted(LEGACY, 200),
    check(ORDERS, 240, { ok: true, response_ms: 95, status_code: 200 }),
    cameUp(240),
    updated(300, { name: 'orders-api', interval_seconds: 30 }),
  ],
  read: async (m) => ({
    monitors: await m.monitors.list({ all: true }),
    history: {
      orders: await m.monitors.history(ORDERS, 50),
      billing: await m.monitors.history(BILLING, 50),
      legacy: await m.monitors.history(LEGACY, 50),
    },
    uptime: Object.fromEntries(await m.monitors.uptime([ORDERS, BILLING, LEGACY], new Date(at(300)))),
  }),
  expected: () => ({
    monitors: [
      {
        ...pending(ORDERS, P, 0, ordersSettings),
        name: 'orders-api',
        interval_seconds: 30,
        status: 'UP',
        status_since: at(240),
        last_checked_at: at(240),
        last_status_code: 200,
        last_response_ms: 95,
        last_error: null,
        updated_at: at(300),
      },
      pending(BILLING, Q, 1, billingSettings),
    ],
    history: {
      orders: [
        { checked_at: at(240), status_code: 200, response_ms: 95, ok: true, error: null },
        { checked_at: at(180), status_code: 503, response_ms: 40, ok: false, error: null },
        { checked_at: at(120), status_code: null, response_ms: 3, ok: false, error: REFUSED },
        { checked_at: at(60), status_code: 200, response_ms: 120, ok: true, error: null },
      ],
      billing: [],
      legacy: [],
    },
    uptime: {
      // The OK checks answered in 95 and 120 ms: 108 on average.
      [ORDERS]: {
        uptime_24h: 0.5,
        uptime_7d: 0.5,
        uptime_30d: 0.5,
        uptime_90d: 0.5,
        avg_response_ms_24h: 108,
        avg_response_ms_7d: 108,
        avg_response_ms_30d: 108,
        avg_response_ms_90d: 108,
      },
      [BILLING]: NONE,
      [LEGACY]: NONE,
    },
  }),
});

it(
  'the status follows the transitions, each since its own time; ' + 'a first failed check goes from PENDING to DOWN',
  async (t, f) => {
    const statusOf = async (id: string) => {
      const view = await f.models.monitors.get(id, { all: true });
      return view && [view.status, view.status_since];
    };
    const seen = [];
    for (const event of [created(ORDERS, P, 0), established(60), wentDown(ORDERS, 120), cameUp(240)]) {
      await f.fold([event]);
      seen.push(await statusOf(ORDERS));
    }
    t.deepEqual(seen, [
      ['PENDING', null],
      ['UP', at(60)],
      ['DOWN', at(120)],
      ['UP', at(240)],
    ]);

    await f.fold([created(LEGACY, P, 300), wentDown(LEGACY, 360)]);
    t.deepEqual(await statusOf(LEGACY), ['DOWN', at(360)]);
  },
);

it('a check that arrives after a newer one joins the history but leaves the last check alone', async (t, f) => {
  await f.fold([
    created(ORDERS, P, 0),
    check(ORDERS, 120, { ok: false, response_ms: 40, status_code: 503 }),
    check(ORDERS, 60, { ok: true, response_ms: 120, status_code: 200 }),
  ]);
  t.like(await f.models.monitors.get(ORDERS, { all: true }), {
    last_checked_at: at(120),
    last_status_code: 503,
    last_response_ms: 40,
    last_error: null,
  });
  t.deepEqual(
    (await f.models.monitors.history(ORDERS, 50)).map((c) => c.checked_at),
    [at(120), at(60)],
  );
});

it('a check recorded after the monitor was deleted brings back neither the monitor nor its history', async (t, f) => {
  await f.fold([
    created(ORDERS, P, 0),
    check(ORDERS, 60, { ok: true, response_ms: 9, status_code: 200 }),
    deleted(ORDERS, 90),
  ]);
  await f.fold([check(ORDERS, 120, { ok: true, response_ms: 8, status_code: 200 })]);
  t.deepEqual(await f.models.monitors.list({ all: true }), []);
  t.is(await f.models.monitors.get(ORDERS, { all: true }), null);
  t.deepEqual(await f.models.monitors.history(ORDERS, 50), []);
  t.is(await f.models.monitors.countInProject(P), 0);
});

it('an update changes the settings it names and updated_at, nothing else', async (t, f) => {
  await f.fold([
    created(ORDERS, P, 0),
    updated(30, { enabled: false, expected_status: 204 }),
    updated(45, { url: 'https://orders.example.com/ready', timeout_seconds: 5 }),
  ]);
  t.deepEqual(await f.models.monitors.get(ORDERS, { all: true }), {
    ...pending(ORDERS, P, 0, ordersSettings),
    enabled: false,
    expected_status: 204,
    url: 'https://orders.example.com/ready',
    timeout_seconds: 5,
    updated_at: at(45),
  });
});

it(
  'uptime counts the checks of the last 24 and 168 whole hours plus the current one; ' + 'old hours are dropped',
  async (t, f) => {
    const hour = (h: number, minute = 0) => new Date(Date.UTC(2026, 2, 10, 0, minute) + h * 3_600_000).toISOString();
    const checkAt = (time: string, ok: boolean): DomainEvent => ({
      type: 'CheckRecorded',
      data: {
        monitor_id: ORDERS,
        project_id: P,
        checked_at: time,
        ok,
        response_ms: 5,
        ...(ok ? { status_code: 200 } : { error: REFUSED }),
      },
    });
    // Hour 0 is now's hour: 4 checks now (1 failed), 1 failed 24 hours before (in the day), one
    // failed 25 hours before (in the week only), one OK 168 hours before (the week's oldest hour),
    // and one 200 hours before, older than any window.
    await f.fold([
      created(ORDERS, P, 0),
      created(LEGACY, P, 1),
      checkAt(hour(-200), false),
      checkAt(hour(-168), true),
      checkAt(hour(-25, 59), false),
      checkAt(hour(-24), false),
      checkAt(hour(0, 1), true),
      checkAt(hour(0, 2), true),
      checkAt(hour(0, 3), false),
      checkAt(hour(0, 4), true),
    ]);
    const now = new Date(hour(0, 30));
    const uptime = await f.models.monitors.uptime([ORDERS, LEGACY], now);
    t.like(uptime.get(ORDERS), { uptime_24h: 3 / 5, uptime_7d: 4 / 7 });
    // By day: now's day (10 March) and the 9th hold 6 checks (3 OK); the 3rd holds the OK one 168
    // hours back; 200 hours back (1 March) is in the 30 days too.
    t.like(uptime.get(ORDERS), { uptime_30d: 4 / 8, uptime_90d: 4 / 8, avg_response_ms_30d: 5 });
    t.deepEqual(uptime.get(LEGACY), NONE, 'never checked');
    t.like(
      (await f.models.monitors.uptime([ORDERS], new Date(hour(24, 59)))).get(ORDERS),
      { uptime_24h: 3 / 4, uptime_7d: 3 / 6 },
      'a day later',
    );
    t.like((await f.models.monitors.uptime([ORDERS], new Date(hour(400)))).get(ORDERS), {
      uptime_24h: null,
      uptime_7d: null,
    });

    // The bucket 200 hours back was dropped when newer hours came; a check landing there again is
    // dropped at once.
    await f.fold([checkAt(hour(-200, 5), true)]);
    t.like((await f.models.monitors.uptime([ORDERS], new Date(hour(-199)))).get(ORDERS), {
      uptime_24h: null,
      uptime_7d: null,
    });

    await f.fold([deleted(ORDERS, 10)]);
    t.deepEqual((await f.models.monitors.uptime([ORDERS], now)).get(ORDERS), NONE);
  },
);

it('the schedule version moves with what the check jobs follow, and not with checks', async (t, f) => {
  const { monitors } = f.models;
  if (monitors.scheduleVersion === undefined) {
    t.pass('this read model has none: the jobs are compared on every pass');
    return;
  }
  const versions: string[] = [];
  const after = async (events: DomainEvent[]) => {
    await f.fold(events);
    versions.push(await monitors.scheduleVersion!());
  };
  await after([created(ORDERS, P, 0)]);
  await after([check(ORDERS, 60, { ok: true, response_ms: 120, status_code: 200 }), established(60)]);
  t.is(versions[1], versions[0], 'a check and a transition leave it');
  await after([updated(120, { interval_seconds: 30 })]);
  await after([updated(180, { enabled: false })]);
  await after([created(LEGACY, P, 240)]);
  await after([deleted(LEGACY, 300)]);
  for (const [i, change] of ['an interval', 'a pause', 'a creation', 'a deletion'].entries())
    t.not(versions[i + 2], versions[i + 1], `${change} moves it`);
});

it('a check under a maintenance window joins the history, marked, and the last check, but not uptime', async (t, f) => {
  await f.fold([
    created(ORDERS, P, 0),
    check(ORDERS, 10, { ok: true, response_ms: 20, status_code: 200 }),
    check(ORDERS, 20, { ok: false, response_ms: 40, status_code: 503, in_maintenance: true }),
    check(ORDERS, 30, { ok: false, response_ms: 50, status_code: 503, in_maintenance: true }),
  ]);
  t.deepEqual(
    (await f.models.monitors.history(ORDERS, 50)).map((c) => [c.checked_at, c.ok, c.in_maintenance ?? false]),
    [
      [at(30), false, true],
      [at(20), false, true],
      [at(10), true, false],
    ],
  );
  t.like(await f.models.monitors.get(ORDERS, { all: true }), { last_checked_at: at(30), last_status_code: 503 });
  t.like((await f.models.monitors.uptime([ORDERS], new Date(at(60)))).get(ORDERS), {
    uptime_24h: 1,
    uptime_90d: 1,
    avg_response_ms_24h: 20,
  });
});
