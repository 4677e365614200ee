import test from 'ava';
import {
  api,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

let server: TestServer;
let token: string;
let clock = Date.parse('2026-07-01T10:00:00.000Z');
let main: { projectId: string; apiKey: string };
let other: { projectId: string; apiKey: string };
const times: number[] = [];
const statuses: number[] = [];

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

test.before(async () => {
  server = await startTestServer({ now: () => new Date(clock) });
  token = await login(server.url);
  main = await projectWithKey(server.url, token, 'main');
  other = await projectWithKey(server.url, token, 'other');
  for (let i = 0; i < 400; i += 1) {
    clock = Date.parse('2026-07-01T10:00:00.000Z') + Math.floor(i / 100) * 60_000 + (i % 100) * 100;
    const rt = Math.round(Math.exp(random() * 7));
    const status = [200, 200, 201, 404, 500, 302][i % 6]!;
    const body =
      i % 10 === 9
        ? sampleEvent({ status_code: status, response_time: null, service_name: 'batch' })
        : sampleEvent({ status_code: status, response_time: rt, method: i % 4 ? 'GET' : 'POST' });
    if (i % 10 !== 9) times.push(rt);
    statuses.push(status);
    // One at a time: the service stamps each event with the clock as it receives it.
    await api(server.url, 'POST', '/v1/audit', { apiKey: main.apiKey, body });
  }
  clock = Date.parse('2026-07-01T10:00:30.000Z');
  await api(server.url, 'POST', '/v1/audit', {
    apiKey: other.apiKey,
    body: sampleEvent({ status_code: 100, response_time: 100_000 }),
  });
  clock = Date.parse('2026-07-01T11:00:00.000Z');
  await eventually(async () => {
    const r = await api(server.url, 'GET', '/v1/audit/stats', { token });
    return r.body.total === 401 ? true : undefined;
  });
});
test.after.always(() => server.stop());

const stats = (query = '', t = token) => api(server.url, 'GET', `/v1/audit/stats${query}`, { token: t });

test('SPEC 2.5 figures for a project; p95 within 1% of the exact p95 of the same data', async (t) => {
  const res = await stats(
    `?project_id=${main.projectId}&start_date=2026-07-01T09:00:00Z&end_date=2026-07-01T11:00:00Z`,
  );
  t.is(res.status, 200);
  const s = res.body;
  t.is(s.total, 400);
  t.is(s.errors_4xx, statuses.filter((c) => c >= 400 && c < 500).length);
  t.is(s.errors_5xx, statuses.filter((c) => c >= 500).length);
  t.is(s.by_status_class['3xx'], statuses.filter((c) => c >= 300 && c < 400).length);
  const sorted = [...times].sort((a, b) => a - b);
  const exact = sorted[Math.floor(0.95 * (sorted.length - 1))]!;
  t.true(Math.abs(s.p95_response_time - exact) <= exact * 0.01, `${s.p95_response_time} vs ${exact}`);
  t.is(s.avg_response_time, Math.round((times.reduce((a, b) => a + b, 0) / times.length) * 100) / 100);
  t.is(s.active_services, 2);
  t.deepEqual(
    s.by_service.map((x: { service_name: string; total: number }) => [x.service_name, x.total]),
    [
      ['orders', 360],
      ['batch', 40],
    ],
  );
  t.is(s.by_service[1].avg_response_time, null);
  t.deepEqual(Object.keys(s.by_status_class), ['2xx', '3xx', '4xx', '5xx']);
  t.is(s.by_status_class['2xx'] + s.by_status_class['3xx'] + s.by_status_class['4xx'] + s.by_status_class['5xx'], 400);
  t.is(s.by_method.GET + s.by_method.POST, 400);
  t.is(s.timeline.length, 121, '2 h of minutes, both ends included');
  t.deepEqual(
    s.timeline
      .filter((p: { total: number }) => p.total > 0)
      .map((p: { bucket: string; total: number }) => [p.bucket, p.total]),
    [
      ['2026-07-01T10:00:00.000Z', 100],
      ['2026-07-01T10:01:00.000Z', 100],
      ['2026-07-01T10:02:00.000Z', 100],
      ['2026-07-01T10:03:00.000Z', 100],
    ],
  );
  t.is(s.last_event_at, '2026-07-01T10:03:09.900Z');
});

test('defaults to the last 24 hours across visible projects, hourly; 1xx appears when present', async (t) => {
  const s = (await stats()).body;
  t.is(s.total, 401);
  t.is(s.timeline.length, 25);
  t.is(s.by_status_class['1xx'], 1);
  t.is((await stats('?interval=day')).body.timeline.length, 2);
});

test('filters, empty ranges, scope and bad values', async (t) => {
  t.is((await stats('?service_name=batch')).body.total, 40);
  t.is((await stats('?environment=staging')).body.total, 0);
  const empty = (await stats('?start_date=2026-01-01T00:00:00Z&end_date=2026-01-01T01:00:00Z')).body;
  t.like(empty, {
    total: 0,
    p95_response_time: null,
    avg_response_time: null,
    last_event_at: null,
    active_services: 0,
  });
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'st@example.com', password: 'stats-password', role: 'auditor', project_ids: [other.projectId] },
  });
  const auditor = await login(server.url, 'st@example.com', 'stats-password');
  t.is((await stats('', auditor)).body.total, 1);
  t.is((await stats(`?project_id=${main.projectId}`, auditor)).status, 404, 'a project the auditor cannot see');
  const bad = await stats('?interval=week&environment=prod&start_date=x');
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'environment',
    'interval',
    'start_date',
  ]);
  const tooFine = await stats('?interval=minute&start_date=2026-01-01T00:00:00Z&end_date=2026-03-01T00:00:00Z');
  t.is(tooFine.status, 400);
  t.is(tooFine.body.error.details[0].path, 'interval');
});
