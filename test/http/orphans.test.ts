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
const start = Date.parse('2026-08-01T12:00:00.000Z');
let clock = start;
let main: { projectId: string; apiKey: string };
let other: { projectId: string; apiKey: string };

const send = async (apiKey: string, second: number, body: Record<string, unknown>) => {
  clock = start + second * 1000;
  const res = await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(body) });
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
};

test.before(async () => {
  server = await startTestServer({ now: () => new Date(clock) });
  token = await login(server.url);
  main = await projectWithKey(server.url, token, 'main');
  other = await projectWithKey(server.url, token, 'other');
  const browser = (id: string, path: string) => ({ source: 'browser', request_id: id, path, service_name: 'spa' });
  await send(main.apiKey, 0, browser('r-matched-after', '/matched-after'));
  await send(main.apiKey, 119, { request_id: 'r-matched-after' }); // 1:59 later: a match
  await send(main.apiKey, 200, { request_id: 'r-matched-before' });
  await send(main.apiKey, 320, browser('r-matched-before', '/matched-before')); // 2:00 after the backend event: a match
  await send(main.apiKey, 400, browser('r-late-backend', '/late-backend'));
  await send(main.apiKey, 581, { request_id: 'r-late-backend' }); // 3:01 later: too late, an orphan
  await send(main.apiKey, 600, browser('r-never', '/never'));
  await send(main.apiKey, 610, { source: 'browser', path: '/no-request-id', service_name: 'spa' });
  await send(other.apiKey, 620, browser('r-never', '/other-project')); // same id, other project: not a match for /never
  await send(main.apiKey, 700, browser('r-fresh', '/fresh'));
  clock = start + 760 * 1000;
  await eventually(async () =>
    (await api(server.url, 'GET', '/v1/audit?event_type=http', { token })).body.pagination.totalItems === 10
      ? true
      : undefined,
  );
});
test.after.always(() => server.stop());

const orphans = (query = '', t = token) => api(server.url, 'GET', `/v1/audit/orphans${query}`, { token: t });

test(
  'browser events with no backend event of the same request_id within 2 minutes, ' + 'once 2 minutes have passed',
  async (t) => {
    const res = await orphans(`?project_id=${main.projectId}`);
    t.is(res.status, 200);
    t.deepEqual(
      res.body.data.map((e: { path: string }) => e.path),
      ['/never', '/late-backend'],
    );
    t.is(res.body.data[0].request_id, 'r-never');
    t.like(res.body.data[0], {
      event_type: 'http',
      method: 'POST',
      service_name: 'spa',
      timestamp: new Date(start + 600_000).toISOString(),
    });
    t.deepEqual(res.body.pagination, { page: 1, limit: 20, totalItems: 2, totalPage: 1 });
    clock = start + 821 * 1000;
    t.deepEqual(
      (await orphans(`?project_id=${main.projectId}`)).body.data.map((e: { path: string }) => e.path),
      ['/fresh', '/never', '/late-backend'],
    );
  },
);

test('filters, pagination, scope and bad values', async (t) => {
  t.is((await orphans('?service_name=orders')).body.pagination.totalItems, 0);
  t.is((await orphans(`?end_date=${new Date(start + 500_000).toISOString()}`)).body.pagination.totalItems, 1);
  t.is((await orphans('?limit=1&page=2')).body.data.length, 1);
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'orph@example.com', password: 'orph-password', role: 'member', project_ids: [other.projectId] },
  });
  const member = await login(server.url, 'orph@example.com', 'orph-password');
  t.deepEqual(
    (await orphans('', member)).body.data.map((e: { path: string }) => e.path),
    ['/other-project'],
  );
  const bad = await orphans('?limit=0&project_id=x');
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['limit', 'project_id']);
});
