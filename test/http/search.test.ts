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

/** Issue 34 through the API: `q` on the list and the export, the tenant and path filters on the
 *  list, the export, stats and sessions, and the 400 a malformed `q` gets. */

let server: TestServer;
let token: string;
let main: { projectId: string; apiKey: string };

const CARD = '4111 1111 1111 1234';
const PASSWORD = 'hunter2-Zebra-Quartz';
const TOKEN_VALUE = 'tok_Xylophone77';

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
  main = await projectWithKey(server.url, token, 'search');
  const events = [
    sampleEvent({
      path: '/orders/42',
      identifier: 'jane',
      user_email: 'jane@example.com',
      tenant_id: 'acme',
      status_code: 502,
      error_message: 'payment declined',
      request_body: { card: CARD, password: PASSWORD, nested: { token: TOKEN_VALUE } },
    }),
    sampleEvent({ path: '/orders', identifier: 'jane', tenant_id: 'acme', method: 'GET' }),
    sampleEvent({ path: '/health', identifier: 'bob', tenant_id: 'globex', method: 'GET' }),
  ];
  for (const body of events) {
    const res = await api(server.url, 'POST', '/v1/audit', { apiKey: main.apiKey, body });
    if (res.status !== 202) throw new Error(`ingest: ${res.status} ${JSON.stringify(res.body)}`);
  }
  await caughtUp(server, ['auditEvents', 'stats', 'derivedSessions']);
});
test.after.always(() => server.stop());

const get = (url: string) => api(server.url, 'GET', url, { token });
const paths = async (query: string) => {
  const res = await get(`/v1/audit?project_id=${main.projectId}&sort_order=asc&${query}`);
  if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data as Array<{ path: string }>).map((e) => e.path);
};
const q = (text: string) => `q=${encodeURIComponent(text)}`;

test('a masked secret is never found by its original value, and is found by what masking left', async (t) => {
  for (const original of [PASSWORD, 'hunter2', 'zebra', TOKEN_VALUE, 'xylophone77', '4111', CARD, `"${CARD}"`]) {
    t.deepEqual(await paths(q(original)), [], original);
  }
  t.deepEqual(await paths(q('1234')), ['/orders/42'], "the card's last four digits are kept");
  t.deepEqual(await paths(q('password')), ['/orders/42'], 'the key is kept');
  const exported = await get(`/v1/audit/export?format=json&project_id=${main.projectId}&${q('hunter2')}`);
  t.is(exported.status, 200);
  t.deepEqual(exported.body, []);
});

test('q on the list and the export: words, phrases, fields, prefixes, exclusion', async (t) => {
  t.deepEqual(await paths(q('"payment declined"')), ['/orders/42']);
  t.deepEqual(await paths(q('jane@example.com status:5xx')), ['/orders/42']);
  t.deepEqual(await paths(q('path:/orders* -method:POST')), ['/orders']);
  t.deepEqual(await paths(q('-declined')), ['/orders', '/health']);
  const csv = await get(`/v1/audit/export?project_id=${main.projectId}&${q('user_email:jane@*')}`);
  t.is(csv.status, 200);
  t.is(csv.headers.get('x-export-total'), '1');
  t.is(String(csv.body).trim().split('\n').length, 2);
});

test('tenant_id and path (exact, or a prefix with *) on the list, the export, stats and sessions', async (t) => {
  t.deepEqual(await paths('tenant_id=acme'), ['/orders/42', '/orders']);
  t.deepEqual(await paths('path=/orders'), ['/orders']);
  t.deepEqual(await paths(`path=${encodeURIComponent('/orders*')}`), ['/orders/42', '/orders']);
  const exported = await get(`/v1/audit/export?format=json&project_id=${main.projectId}&tenant_id=globex`);
  t.deepEqual(
    (exported.body as Array<{ path: string }>).map((e) => e.path),
    ['/health'],
  );
  const hour = 3_600_000;
  const range =
    `start_date=${new Date(Date.now() - hour).toISOString()}` +
    `&end_date=${new Date(Date.now() + hour).toISOString()}`;
  const stats = await get(`/v1/audit/stats?project_id=${main.projectId}&${range}&tenant_id=acme`);
  t.is(stats.status, 200);
  t.like(stats.body, { total: 2, errors_5xx: 1 });
  const byPath = await get(`/v1/audit/stats?project_id=${main.projectId}&${range}&path=${encodeURIComponent('/h*')}`);
  t.like(byPath.body, { total: 1, errors_5xx: 0 });
  const all = await get(`/v1/audit/stats?project_id=${main.projectId}&${range}`);
  t.like(all.body, { total: 3 });
  const sessions = await get(`/v1/audit/sessions?project_id=${main.projectId}&tenant_id=acme`);
  t.is(sessions.status, 200);
  t.like(sessions.body, [{ identifier: 'jane', event_count: 2 }]);
  t.is(sessions.headers.get('x-total-count'), '1');
  const byPrefix = await get(`/v1/audit/sessions?project_id=${main.projectId}&path=${encodeURIComponent('/orders/*')}`);
  t.like(byPrefix.body, [{ identifier: 'jane', event_count: 1 }]);
  const spec = await get(`/v1/audit/sessions?project_id=${main.projectId}`);
  t.is((spec.body as unknown[]).length, 2, 'without them, the derived-sessions read model answers as before');
});

test('a malformed q is a 400 naming q and what is wrong, on the list and the export', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['"unclosed', /never closed/],
    ['colour:red', /unknown field "colour"/],
    ['status:9xx', /status is a code/],
    ['path:/a*b', /\* may only end a value/],
    ['order*', /prefix \(\*\) is for field values/],
  ];
  for (const [text, message] of cases) {
    for (const endpoint of ['/v1/audit', '/v1/audit/export']) {
      const res = await get(`${endpoint}?${q(text)}`);
      t.is(res.status, 400, `${endpoint} ${text}`);
      t.is(res.body.error.code, 'validation_error');
      t.is(res.body.error.details[0].path, 'q', text);
      t.regex(res.body.error.details[0].message, message, text);
    }
  }
  const long = await get(`/v1/audit?${q('a '.repeat(300))}`);
  t.is(long.status, 400);
  t.is(long.body.error.details[0].path, 'q');
  const empty = await get('/v1/audit?path=');
  t.is(empty.status, 400);
  t.is(empty.body.error.details[0].path, 'path');
});
