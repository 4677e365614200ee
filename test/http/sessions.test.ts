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
let clock = Date.parse('2026-04-01T09:00:00.000Z');
let other: { projectId: string; apiKey: string };

test.before(async () => {
  server = await startTestServer({ now: () => new Date(clock) });
  token = await login(server.url);
  const main = await projectWithKey(server.url, token, 'main');
  other = await projectWithKey(server.url, token, 'other');
  const send = async (apiKey: string, seconds: number, body: Record<string, unknown>) => {
    clock += seconds * 1000;
    const res = await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(body) });
    if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  };
  await send(main.apiKey, 0, {
    session_id: 'sess-1',
    identifier: 'ann',
    service_name: 'web',
    path: '/login',
    method: 'POST',
  });
  await send(main.apiKey, 30, {
    session_id: 'sess-1',
    identifier: 'ann',
    service_name: 'web',
    path: '/cart',
    method: 'GET',
    status_code: 200,
  });
  await send(main.apiKey, 5, { identifier: 'ann', path: '/no-session' });
  await send(main.apiKey, 95, {
    session_id: 'sess-1',
    identifier: 'ann',
    service_name: 'api',
    path: '/pay',
    method: 'POST',
    status_code: 402,
  });
  await send(other.apiKey, 1, { session_id: 'sess-other', identifier: 'bob' });
  await eventually(async () =>
    (await api(server.url, 'GET', '/v1/audit?event_type=http', { token })).body.pagination.totalItems === 5
      ? true
      : undefined,
  );
});
test.after.always(() => server.stop());

test('an explicit session lists its events oldest first with the SPEC 2.7 summary', async (t) => {
  const res = await api(server.url, 'GET', '/v1/audit/sessions/sess-1', { token });
  t.is(res.status, 200);
  t.like(res.body, {
    session_id: 'sess-1',
    identifier: 'ann',
    service_name: 'web',
    session_start: '2026-04-01T09:00:00.000Z',
    session_end: '2026-04-01T09:02:10.000Z',
    duration_seconds: 130,
    event_count: 3,
  });
  t.deepEqual(
    res.body.events.map((e: { path: string }) => e.path),
    ['/login', '/cart', '/pay'],
  );
  t.deepEqual(Object.keys(res.body.events[0]).sort(), ['id', 'method', 'path', 'status_code', 'timestamp']);
  t.is(res.body.events[2].status_code, 402);
});

test('unknown or invisible sessions are 404; ids are taken literally', async (t) => {
  t.is((await api(server.url, 'GET', '/v1/audit/sessions/nope', { token })).status, 404);
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'other@example.com', password: 'other-password', role: 'member', project_ids: [other.projectId] },
  });
  const member = await login(server.url, 'other@example.com', 'other-password');
  t.is((await api(server.url, 'GET', '/v1/audit/sessions/sess-1', { token: member })).status, 404);
  t.is((await api(server.url, 'GET', '/v1/audit/sessions/sess-other', { token: member })).body.event_count, 1);
  t.is((await api(server.url, 'GET', `/v1/audit/sessions/${'x'.repeat(256)}`, { token })).status, 404);
  t.is((await api(server.url, 'GET', '/v1/audit/sessions/sess-1')).status, 401);
});
