import test from 'ava';
import { historyOf } from '../../../src/http/public/history-model.ts';
import {
  bannerOf,
  figuresOver,
  type PublicStatus,
  publicStatusOf,
  versionOf,
} from '../../../src/http/public/status-model.ts';
import { buckets, DAY, dayStart, ids, incident, input, maintenance, monitor, monitors, NOW, page } from './fixtures.ts';

const monitorOf = (s: PublicStatus, name: string) => {
  const m = s.groups.flatMap((g) => g.monitors).find((x) => x.name === name);
  if (m === undefined) throw new Error(`no monitor ${name}`);
  return m;
};

const withStatuses = (statuses: Record<string, 'UP' | 'DOWN' | 'PENDING'>) =>
  monitors().map((m) => (statuses[m.id] === undefined ? m : { ...m, status: statuses[m.id]! }));

test('the banner: operational, partial outage, major outage', (t) => {
  t.is(publicStatusOf(input()).banner, 'operational');
  t.is(publicStatusOf(input({ monitors: withStatuses({ [ids.api]: 'DOWN' }) })).banner, 'partial_outage');
  const allDown = withStatuses({ [ids.api]: 'DOWN', [ids.web]: 'DOWN', [ids.db]: 'DOWN' });
  t.is(publicStatusOf(input({ monitors: allDown })).banner, 'major_outage');
});

test('the banner: maintenance unless a monitor outside it is down; down inside it is no outage', (t) => {
  const window = maintenance('3a000000-0000-4000-8000-000000000001');
  t.is(publicStatusOf(input({ maintenances: [window] })).banner, 'maintenance');
  const dbDown = withStatuses({ [ids.db]: 'DOWN' });
  const s = publicStatusOf(input({ monitors: dbDown, maintenances: [window] }));
  t.is(s.banner, 'maintenance');
  t.is(monitorOf(s, 'Database').state, 'maintenance');
  const apiDown = withStatuses({ [ids.api]: 'DOWN' });
  t.is(publicStatusOf(input({ monitors: apiDown, maintenances: [window] })).banner, 'partial_outage');
  // Nothing operational left: the one monitor outside maintenance that works is down too.
  const rest = withStatuses({ [ids.api]: 'DOWN', [ids.web]: 'DOWN' });
  t.is(publicStatusOf(input({ monitors: rest, maintenances: [window] })).banner, 'major_outage');
});

test('the banner: an open incident raises it by its impact; a resolved one does not', (t) => {
  const cases = [
    ['none', 'operational'],
    ['minor', 'degraded'],
    ['major', 'partial_outage'],
    ['critical', 'major_outage'],
  ] as const;
  for (const [impact, banner] of cases) {
    t.is(publicStatusOf(input({ incidents: [incident('1c00-01', { impact })] })).banner, banner, impact);
  }
  const resolved = incident('1c00-02', {
    impact: 'critical',
    status: 'resolved',
    resolved_at: '2026-09-10T11:00:00.000Z',
  });
  t.is(publicStatusOf(input({ incidents: [resolved] })).banner, 'operational');
  // It raises, never lowers.
  const down = withStatuses({ [ids.api]: 'DOWN', [ids.web]: 'DOWN', [ids.db]: 'DOWN' });
  t.is(publicStatusOf(input({ monitors: down, incidents: [incident('1c00-03')] })).banner, 'major_outage');
  t.is(bannerOf(['maintenance'], ['minor']), 'degraded');
  t.is(bannerOf([], []), 'operational');
});

test('a monitor never checked, or paused, is pending, and says since nothing', (t) => {
  const list = monitors().map((m) =>
    m.id === ids.api
      ? { ...m, status: 'PENDING' as const, status_since: null }
      : m.id === ids.web
        ? { ...m, enabled: false, status: 'DOWN' as const }
        : m,
  );
  const s = publicStatusOf(input({ monitors: list }));
  t.like(monitorOf(s, 'API'), { state: 'pending', since: null });
  t.like(monitorOf(s, 'Website'), { state: 'pending', since: null });
  t.is(s.banner, 'operational');
  t.like(monitorOf(s, 'Database'), { state: 'operational', since: '2026-09-09T08:00:00.000Z' });
});

test('monitors not on the page, of another project or gone are not shown', (t) => {
  const s = publicStatusOf(input());
  t.deepEqual(
    s.groups.map((g) => [g.name, g.monitors.map((m) => m.name)]),
    [
      ['Public', ['API', 'Website']],
      ['Data', ['Database']],
    ],
  );
  const gone = publicStatusOf(input({ monitors: monitors().filter((m) => m.id !== ids.web) }));
  t.deepEqual(
    gone.groups[0]?.monitors.map((m) => m.name),
    ['API'],
  );
});

test('day bars: one per day shown, today last; OK over all checks; null and no level without checks', (t) => {
  const s = publicStatusOf(input());
  const api = monitorOf(s, 'API');
  t.is(api.days.length, 90);
  t.is(api.days.at(-1)?.date, '2026-09-10');
  t.is(api.days[0]?.date, new Date(dayStart(89)).toISOString().slice(0, 10));
  t.like(api.days.at(-4), { uptime: 0.9, checks: 100, level: 'down' });
  t.like(api.days.at(-1), { uptime: 1, checks: 1440, level: 'up' });
  const web = monitorOf(s, 'Website');
  t.like(web.days[0], { uptime: null, checks: 0, level: 'none' });
  t.is(web.uptime, 1);
  t.is(api.uptime, (89 * 1440 + 90) / (89 * 1440 + 100));
  const partial = publicStatusOf(
    input({ days: new Map([[ids.api, buckets((ago) => (ago === 0 ? [96, 100] : null))]]) }),
  );
  t.like(monitorOf(partial, 'API').days.at(-1), { level: 'partial', uptime: 0.96 });
  const short = publicStatusOf(input({ page: page({ show_uptime_days: 7 }) }));
  t.is(monitorOf(short, 'API').days.length, 7);
  t.is(short.page.show_uptime_days, 7);
});

test('day bars mark the days an incident of the monitor was open', (t) => {
  const s = publicStatusOf(
    input({
      incidents: [
        incident('1c00-0a', {
          title: 'Slow API',
          created_at: '2026-09-07T23:00:00.000Z',
          status: 'resolved',
          resolved_at: '2026-09-08T01:00:00.000Z',
        }),
        incident('1c00-0b', { title: 'Everything', monitor_ids: [], created_at: '2026-09-10T09:00:00.000Z' }),
      ],
    }),
  );
  const api = monitorOf(s, 'API');
  const marked = api.days.filter((d) => d.incidents.length > 0).map((d) => [d.date, d.incidents.map((i) => i.title)]);
  t.deepEqual(marked, [
    ['2026-09-07', ['Slow API']],
    ['2026-09-08', ['Slow API']],
    ['2026-09-10', ['Everything']],
  ]);
  const db = monitorOf(s, 'Database');
  t.deepEqual(
    db.days.filter((d) => d.incidents.length > 0).map((d) => d.date),
    ['2026-09-10'],
  );
});

test('incidents: the page shows those of its monitors or of none, open ones and the last 14 days', (t) => {
  const s = publicStatusOf(
    input({
      incidents: [
        incident('1c00-01', { title: 'Mine', monitor_ids: [ids.api, ids.hidden] }),
        incident('1c00-02', { title: 'Whole project', monitor_ids: [], created_at: '2026-09-10T09:00:00.000Z' }),
        incident('1c00-03', { title: 'Hidden only', monitor_ids: [ids.hidden] }),
        incident('1c00-04', { title: 'Other project', project_id: '0b6f2d4e-0000-4000-8000-00000000bbbb' }),
        incident('1c00-05', {
          title: 'Recent past',
          created_at: '2026-09-01T10:00:00.000Z',
          status: 'resolved',
          resolved_at: '2026-09-01T12:00:00.000Z',
        }),
        incident('1c00-06', {
          title: 'Old past',
          created_at: '2026-08-20T10:00:00.000Z',
          status: 'resolved',
          resolved_at: '2026-08-20T12:00:00.000Z',
        }),
      ],
    }),
  );
  t.deepEqual(
    s.active.map((i) => i.title),
    ['Mine', 'Whole project'],
  );
  t.deepEqual(
    s.past.map((i) => i.title),
    ['Recent past'],
  );
  // Only the page's monitors are named.
  t.deepEqual(s.active[0]?.monitors, [{ id: ids.api, name: 'API' }]);
  t.deepEqual(s.active[1]?.monitors, []);
  t.is(monitorOf(s, 'API').impact, 'minor');
  t.is(monitorOf(s, 'Website').impact, 'none');
});

test('incident updates are newest first', (t) => {
  const i = incident('1c00-01');
  const later = {
    id: 'u2',
    status: 'identified' as const,
    message: 'Found it',
    impact: null,
    at: '2026-09-10T11:00:00.000Z',
  };
  const s = publicStatusOf(input({ incidents: [{ ...i, status: 'identified', updates: [...i.updates, later] }] }));
  t.deepEqual(
    s.active[0]?.updates.map((u) => u.status),
    ['identified', 'investigating'],
  );
});

test('maintenance: under way and upcoming within 7 days, of the page’s monitors or all', (t) => {
  const once = (start: string, end: string) => ({ kind: 'once' as const, starts_at: start, ends_at: end });
  const s = publicStatusOf(
    input({
      maintenances: [
        maintenance('3a00-01', { title: 'Now' }),
        maintenance('3a00-02', {
          title: 'Soon',
          schedule: once('2026-09-12T02:00:00.000Z', '2026-09-12T03:00:00.000Z'),
        }),
        maintenance('3a00-03', {
          title: 'Too far',
          schedule: once('2026-09-20T02:00:00.000Z', '2026-09-20T03:00:00.000Z'),
        }),
        maintenance('3a00-04', {
          title: 'Over',
          schedule: once('2026-09-09T02:00:00.000Z', '2026-09-09T03:00:00.000Z'),
        }),
        maintenance('3a00-05', { title: 'Hidden', monitor_ids: [ids.hidden] }),
        maintenance('3a00-06', {
          title: 'Weekly',
          monitor_ids: 'all',
          schedule: {
            kind: 'recurring',
            rrule: 'FREQ=WEEKLY;BYDAY=SU',
            starts_at: '2026-01-04T02:00:00.000Z',
            duration_minutes: 60,
            timezone: 'UTC',
          },
        }),
        maintenance('3a00-07', {
          title: 'Bad rule',
          schedule: { kind: 'recurring', rrule: 'NOPE', starts_at: 'x', duration_minutes: 1, timezone: 'UTC' },
        }),
      ],
    }),
  );
  t.deepEqual(
    s.maintenances.map((m) => [m.title, m.state, m.starts_at]),
    [
      ['Now', 'active', '2026-09-10T11:00:00.000Z'],
      ['Soon', 'upcoming', '2026-09-12T02:00:00.000Z'],
      ['Weekly', 'upcoming', '2026-09-13T02:00:00.000Z'],
    ],
  );
  t.deepEqual(s.maintenances[0]?.monitors, [{ id: ids.db, name: 'Database' }]);
  t.is(s.maintenances[2]?.monitors, 'all');
  t.is(monitorOf(s, 'Database').state, 'maintenance');
  t.is(monitorOf(s, 'API').state, 'operational');
});

test('a window for "all" puts every monitor of the page under maintenance', (t) => {
  const s = publicStatusOf(input({ maintenances: [maintenance('3a00-01', { monitor_ids: 'all' })] }));
  t.deepEqual(
    s.groups.flatMap((g) => g.monitors.map((m) => m.state)),
    ['maintenance', 'maintenance', 'maintenance'],
  );
  t.is(s.banner, 'maintenance');
});

test('links: absolute under the base URL, relative without one', (t) => {
  t.is(publicStatusOf(input()).page.links.feed, 'https://status.acme.example/status/acme/feed.atom');
  t.deepEqual(publicStatusOf(input({ baseUrl: null })).page.links, {
    page: '/status/acme',
    history: '/status/acme/history',
    summary: '/status/acme/summary.json',
    feed: '/status/acme/feed.atom',
  });
});

test('the version follows what is shown, not when', (t) => {
  const a = publicStatusOf(input());
  const b = publicStatusOf(input({ now: new Date(NOW.getTime() + 60_000) }));
  t.is(versionOf(a), versionOf(b));
  const c = publicStatusOf(input({ monitors: withStatuses({ [ids.api]: 'DOWN' }) }));
  t.not(versionOf(a), versionOf(c));
});

test('updated_at is the latest change the page shows', (t) => {
  t.is(publicStatusOf(input()).page.updated_at, '2026-09-09T08:00:00.000Z');
  const s = publicStatusOf(input({ incidents: [incident('1c00-01', { updated_at: '2026-09-10T11:30:00.000Z' })] }));
  t.is(s.page.updated_at, '2026-09-10T11:30:00.000Z');
});

test('figuresOver: uptime and mean OK response over the last N days', (t) => {
  const b = buckets((ago) => (ago < 10 ? [9, 10] : [0, 10]));
  t.deepEqual(figuresOver(b, NOW, 10), { uptime: 0.9, avg_response_ms: 100 });
  t.deepEqual(figuresOver([], NOW, 30), { uptime: null, avg_response_ms: null });
  t.deepEqual(figuresOver(b, new Date(NOW.getTime() + 200 * DAY), 1), { uptime: null, avg_response_ms: null });
});

test('history: every incident of the page, newest first, paged', (t) => {
  const all = Array.from({ length: 25 }, (_, n) =>
    incident(`1c00-${String(n).padStart(2, '0')}`, {
      title: `I${n}`,
      created_at: new Date(Date.parse('2026-01-01T00:00:00.000Z') + n * DAY).toISOString(),
      status: 'resolved',
      resolved_at: new Date(Date.parse('2026-01-01T01:00:00.000Z') + n * DAY).toISOString(),
    }),
  );
  const others = [incident('1c00-xx', { monitor_ids: [ids.hidden] })];
  const first = historyOf({
    page: page(),
    monitors: [monitor(ids.api, 'API')],
    incidents: [...all, ...others],
    pageNumber: 1,
    limit: 10,
    now: NOW,
    baseUrl: null,
  });
  t.deepEqual(first.pagination, { page: 1, limit: 10, total_items: 25, total_pages: 3 });
  t.deepEqual(first.incidents.map((i) => i.title).slice(0, 2), ['I24', 'I23']);
  const last = historyOf({
    page: page(),
    monitors: monitors(),
    incidents: all,
    pageNumber: 3,
    limit: 10,
    now: NOW,
    baseUrl: null,
  });
  t.deepEqual(
    last.incidents.map((i) => i.title),
    ['I4', 'I3', 'I2', 'I1', 'I0'],
  );
  const beyond = {
    page: page(),
    monitors: monitors(),
    incidents: all,
    pageNumber: 9,
    limit: 10,
    now: NOW,
    baseUrl: null,
  };
  t.deepEqual(historyOf(beyond).incidents, []);
  // Without its monitors, a page keeps the incidents that name none.
  const bare = historyOf({
    page: page(),
    monitors: [],
    incidents: [...all, incident('1c00-yy', { monitor_ids: [] })],
    pageNumber: 1,
    limit: 10,
    now: NOW,
    baseUrl: null,
  });
  t.is(bare.pagination.total_items, 1);
});
