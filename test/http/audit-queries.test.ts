import test from 'ava';
import {
  api,
  caughtUp,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

let server: TestServer;
let token: string;
let projectId: string;
let otherProjectId: string;
let clock = Date.parse('2026-01-01T00:00:00.000Z');
const MINUTE = 60_000;

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
const ENVS = ['production', 'staging', 'development'] as const;
const STATUSES = [200, 201, 404, 500, 401] as const;

/** 40 events one minute apart, with fields cycling so every filter has several matches. */
const seed = (i: number) =>
  sampleEvent({
    path: `/p/${String.fromCharCode(97 + (i % 26))}`,
    method: METHODS[i % 4],
    status_code: STATUSES[i % 5],
    response_time: (i * 37) % 101,
    identifier: `user-${i % 3}`,
    service_name: `svc-${i % 2}`,
    environment: ENVS[i % 3],
    user_email: `u${i}@example.com`,
  });

test.before(async () => {
  server = await startTestServer({ now: () => new Date(clock) });
  token = await login(server.url);
  const main = await projectWithKey(server.url, token, 'main');
  const other = await projectWithKey(server.url, token, 'other');
  projectId = main.projectId;
  otherProjectId = other.projectId;
  for (let i = 0; i < 40; i += 1) {
    clock += MINUTE;
    await api(server.url, 'POST', '/v1/audit', { apiKey: main.apiKey, body: seed(i) });
  }
  clock += MINUTE;
  await api(server.url, 'POST', '/v1/audit', {
    apiKey: other.apiKey,
    body: sampleEvent({ service_name: 'elsewhere' }),
  });
  await caughtUp(server, ['auditEvents']);
  const listed = (await api(server.url, 'GET', '/v1/audit?event_type=http', { token })).body.pagination.totalItems;
  if (listed !== 41) throw new Error(`41 events sent, ${listed} listed`);
});
test.after.always(() => server.stop());

const list = (query: string) => api(server.url, 'GET', `/v1/audit?${query}`, { token });

test('defaults: page 1, limit 20, newest first, SPEC 2.2 item fields', async (t) => {
  const res = await list(`project_id=${projectId}`);
  t.is(res.status, 200);
  t.deepEqual(res.body.pagination, { page: 1, limit: 20, totalItems: 40, totalPage: 2 });
  t.is(res.body.data.length, 20);
  const stamps = res.body.data.map((e: { timestamp: string }) => e.timestamp);
  t.deepEqual(stamps, [...stamps].sort().reverse());
  t.deepEqual(Object.keys(res.body.data[0]).sort(), [
    'environment',
    'event_type',
    'id',
    'identifier',
    'method',
    'path',
    'project_id',
    'response_time',
    'service_name',
    'status_code',
    'timestamp',
    'user_email',
  ]);
  const second = await list(`project_id=${projectId}&page=2`);
  t.is(second.body.data.length, 20);
  const ids = new Set([...res.body.data, ...second.body.data].map((e: { id: string }) => e.id));
  t.is(ids.size, 40);
  const beyond = await list(`project_id=${projectId}&page=3`);
  t.deepEqual(beyond.body.data, []);
  t.is(beyond.body.pagination.totalItems, 40);
});

test('every filter narrows to exactly the matching events', async (t) => {
  const cases: Array<[string, (i: number) => boolean]> = [
    ['service_name=svc-1', (i) => i % 2 === 1],
    ['method=DELETE', (i) => i % 4 === 3],
    ['status_code=404', (i) => i % 5 === 2],
    ['environment=staging', (i) => i % 3 === 1],
    ['identifier=user-2', (i) => i % 3 === 2],
    ['event_type=http', () => true],
    ['method=GET&environment=production', (i) => i % 4 === 0 && i % 3 === 0],
  ];
  for (const [query, match] of cases) {
    const res = await list(`project_id=${projectId}&limit=100&${query}`);
    const expected = Array.from({ length: 40 }, (_, i) => i)
      .filter(match)
      .map((i) => `u${i}@example.com`)
      .sort();
    t.deepEqual(res.body.data.map((e: { user_email: string }) => e.user_email).sort(), expected, query);
    t.is(res.body.pagination.totalItems, expected.length, query);
  }
  t.is((await list('event_type=system.alert')).body.pagination.totalItems, 0);
});

test('start_date and end_date are inclusive bounds on the timestamp', async (t) => {
  const first = Date.parse('2026-01-01T00:00:00.000Z');
  const at = (n: number) => new Date(first + n * MINUTE).toISOString();
  const res = await list(`project_id=${projectId}&start_date=${at(5)}&end_date=${at(10)}&limit=100`);
  t.is(res.body.pagination.totalItems, 6);
  // Across projects (http events: watchlog's own access events follow other clocks).
  t.is((await list(`event_type=http&start_date=${at(40)}`)).body.pagination.totalItems, 2);
  t.is(
    (await list(`event_type=http&end_date=${encodeURIComponent('2026-01-01T00:01:00+00:00')}`)).body.pagination
      .totalItems,
    1,
  );
  const empty = await list(`event_type=http&start_date=${at(100)}`);
  t.deepEqual(empty.body, { data: [], pagination: { page: 1, limit: 20, totalItems: 0, totalPage: 0 } });
});

test('sort_by each documented field, both orders, with a stable tie-breaker', async (t) => {
  const fields = [
    'timestamp',
    'status_code',
    'response_time',
    'path',
    'method',
    'service_name',
    'identifier',
    'environment',
  ];
  for (const field of fields) {
    for (const order of ['asc', 'desc']) {
      const res = await list(`project_id=${projectId}&limit=100&sort_by=${field}&sort_order=${order}`);
      t.is(res.status, 200);
      const values = res.body.data.map((e: Record<string, string | number>) => e[field]);
      const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      t.deepEqual(values, order === 'asc' ? sorted : sorted.reverse(), `${field} ${order}`);
    }
  }
  const a = await list(`project_id=${projectId}&sort_by=method&limit=7&page=2`);
  const b = await list(`project_id=${projectId}&sort_by=method&limit=7&page=2`);
  t.deepEqual(a.body.data, b.body.data);
});

test('bad query values are 400 with the parameters at fault', async (t) => {
  const res = await list(
    'limit=101&page=0&status_code=abc&method=PATCH&sort_by=ip&sort_order=up' +
      '&start_date=yesterday&project_id=nope&event_type=other&environment=prod',
  );
  t.is(res.status, 400);
  t.deepEqual(res.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'environment',
    'event_type',
    'limit',
    'method',
    'page',
    'project_id',
    'sort_by',
    'sort_order',
    'start_date',
    'status_code',
  ]);
  t.is((await list('limit=100')).status, 200);
  t.is((await list('limit=0')).status, 400);
  t.is((await list('limit=1&limit=2')).body.error.details[0].path, 'limit');
  const range = await list('start_date=2026-02-01T00:00:00Z&end_date=2026-01-01T00:00:00Z');
  t.is(range.status, 400);
  t.is(range.body.error.details[0].path, 'start_date');
});

test('detail returns the full event; unknown ids are 404', async (t) => {
  const page = await list(`project_id=${projectId}&limit=1`);
  const detail = await api(server.url, 'GET', `/v1/audit/${page.body.data[0].id}`, { token });
  t.is(detail.status, 200);
  t.is(detail.body.id, page.body.data[0].id);
  t.is(detail.body.project_id, projectId);
  t.is(detail.body.source, 'backend');
  t.is((await api(server.url, 'GET', `/v1/audit/${crypto.randomUUID()}`, { token })).status, 404);
  t.is((await api(server.url, 'GET', '/v1/audit/not-a-uuid', { token })).status, 404);
  t.is((await list(`project_id=${otherProjectId}`)).body.pagination.totalItems, 1);
});
