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
let clock = Date.parse('2026-03-02T10:00:00.000Z');
let main: { projectId: string; apiKey: string };
let other: { projectId: string; apiKey: string };

const at = (seconds: number) => new Date(Date.parse('2026-03-02T10:00:00.000Z') + seconds * 1000).toISOString();

test.before(async () => {
  server = await startTestServer({ now: () => new Date(clock) });
  token = await login(server.url);
  main = await projectWithKey(server.url, token, 'main');
  other = await projectWithKey(server.url, token, 'other');
  const send = async (apiKey: string, second: number, body: Record<string, unknown>) => {
    clock = Date.parse(at(second));
    await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(body) });
  };
  // ann on web: 0 and 30:00 later (same session), then 30:01 later (new session).
  await send(main.apiKey, 0, { identifier: 'ann', service_name: 'web' });
  await send(main.apiKey, 1800, { identifier: 'ann', service_name: 'web' });
  await send(main.apiKey, 3601, { identifier: 'ann', service_name: 'web' });
  // ann on another service is another session; bob in another project.
  await send(main.apiKey, 10, { identifier: 'ann', service_name: 'api' });
  await send(other.apiKey, 20, { identifier: 'bob', service_name: 'web' });
  await eventually(async () =>
    (await api(server.url, 'GET', '/v1/audit/sessions', { token })).headers.get('x-total-count') === '4'
      ? true
      : undefined,
  );
});
test.after.always(() => server.stop());

const sessions = (query = '', t = token) => api(server.url, 'GET', `/v1/audit/sessions${query}`, { token: t });

test('30:00 of inactivity stays in the session, 30:01 starts a new one; newest first; SPEC 2.6 fields', async (t) => {
  const res = await sessions(`?project_id=${main.projectId}&identifier=ann&service_name=web`);
  t.is(res.status, 200);
  t.deepEqual(
    res.body.map((s: { session_start: string; session_end: string; event_count: number; duration_seconds: number }) => [
      s.session_start,
      s.session_end,
      s.event_count,
      s.duration_seconds,
    ]),
    [
      [at(3601), at(3601), 1, 0],
      [at(0), at(1800), 2, 1800],
    ],
  );
  t.deepEqual(Object.keys(res.body[0]).sort(), [
    'duration_seconds',
    'event_count',
    'identifier',
    'project_id',
    'service_name',
    'session_end',
    'session_start',
  ]);
});

test('filters, pagination headers, empty ranges and scope', async (t) => {
  const total = async (query: string) => (await sessions(query)).headers.get('x-total-count');
  t.is(await total('?service_name=api'), '1');
  t.is(await total(`?start_date=${at(5)}&end_date=${at(3600)}`), '2');
  const empty = await sessions(`?start_date=${at(9999)}`);
  t.deepEqual(empty.body, []);
  t.is(empty.headers.get('x-total-count'), '0');
  t.is(
    empty.headers.get('link'),
    `</v1/audit/sessions?start_date=${encodeURIComponent(at(9999))}&page=1&limit=20>; rel="first"`,
  );
  const page2 = await sessions('?limit=3&page=2');
  t.is(page2.body.length, 1);
  t.is(page2.headers.get('x-total-count'), '4');
  t.is(
    page2.headers.get('link'),
    '</v1/audit/sessions?limit=3&page=1>; rel="first", ' +
      '</v1/audit/sessions?limit=3&page=1>; rel="prev", </v1/audit/sessions?limit=3&page=2>; rel="last"',
  );
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'sess@example.com', password: 'sess-password', role: 'member', project_ids: [other.projectId] },
  });
  const member = await login(server.url, 'sess@example.com', 'sess-password');
  t.deepEqual(
    (await sessions('', member)).body.map((s: { identifier: string }) => s.identifier),
    ['bob'],
  );
  t.is((await sessions(`?project_id=${main.projectId}`, member)).status, 404, 'a project the member cannot see');
});

test('bad parameters are 400', async (t) => {
  const bad = await sessions('?limit=101&start_date=soon&project_id=1');
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'limit',
    'project_id',
    'start_date',
  ]);
});
