import test from 'ava';
import jwt from 'jsonwebtoken';
import { api, login, projectWithKey, sampleEvent, startTestServer, type TestServer } from '../helpers/server.ts';

/** Viewer tokens: issued by a user or a `viewer:issue` key, they read one tenant's events of one
 *  project (list, detail, export), hide the fields they name, expire, and do nothing else. */

const APP = 'https://app.example.com';
let offsetMs = 0;
let server: TestServer;
let token: string;
let projectId: string;
let apiKey: string;
let otherProject: string;
const ids: Record<string, string> = {};

const ingest = async (key: string, name: string, overrides: Record<string, unknown>) => {
  const res = await api<{ id: string }>(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent(overrides) });
  if (res.status !== 202) throw new Error(`ingest ${res.status}`);
  ids[name] = res.body.id;
};

const issue = (body: unknown, auth: { token?: string; apiKey?: string } = { token }, project = projectId) =>
  api<{ token: string; expires_at: string; allowed_origins: string[] }>(
    server.url,
    'POST',
    `/v1/projects/${project}/viewer-tokens`,
    { ...auth, body },
  );

const asViewer = (viewer: string, url: string, headers: Record<string, string> = {}) =>
  api(server.url, 'GET', url, { token: viewer, headers });

test.before(async () => {
  server = await startTestServer({ now: () => new Date(Date.now() + offsetMs) });
  token = await login(server.url);
  ({ projectId, apiKey } = await projectWithKey(server.url, token, 'saas'));
  const { apiKey: otherKey, projectId: other } = await projectWithKey(server.url, token, 'other');
  otherProject = other;
  // A browser key names the product's origin: the project's viewers may be read from there.
  const browserKey = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
    token,
    body: { name: 'browser', allowed_origins: [APP] },
  });
  if (browserKey.status !== 201) throw new Error(`browser key: ${browserKey.status}`);
  await ingest(apiKey, 'a1', { tenant_id: 'acme', identifier: 'ann', ip: '10.0.0.1', path: '/orders/1' });
  await ingest(apiKey, 'a2', {
    tenant_id: 'acme',
    identifier: 'bob',
    path: '/orders/2',
    response_body: { secret_plan: 'gold' },
  });
  await ingest(apiKey, 'b1', { tenant_id: 'globex', identifier: 'ann', path: '/orders/3' });
  await ingest(apiKey, 'none', { identifier: 'ann', path: '/orders/4' });
  await ingest(otherKey, 'q1', { tenant_id: 'acme', identifier: 'ann', path: '/orders/5' });
  await waitForEvents(5);
});
test.after.always(() => server.stop());

const waitForEvents = async (n: number) => {
  for (let i = 0; i < 250; i += 1) {
    const list = await api(server.url, 'GET', '/v1/audit?event_type=http&limit=100', { token });
    if ((list.body.pagination?.totalItems ?? 0) >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('events not projected');
};

test('issue: a user or a viewer:issue key; other keys 403 naming the scope; bad requests 400', async (t) => {
  const byUser = await issue({ tenant_id: 'acme' });
  t.is(byUser.status, 201, JSON.stringify(byUser.body));
  t.deepEqual(byUser.body.allowed_origins, [APP]);
  const ttl = Date.parse(byUser.body.expires_at) - Date.now() - offsetMs;
  t.true(ttl > 3500_000 && ttl <= 3600_000, `default lifetime an hour (${ttl} ms)`);

  const issuer = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
    token,
    body: { name: 'backend', scopes: ['viewer:issue'] },
  });
  t.is(issuer.status, 201);
  t.is((await issue({ tenant_id: 'acme' }, { apiKey: issuer.body.key })).status, 201);
  const refused = await issue({ tenant_id: 'acme' }, { apiKey });
  t.is(refused.status, 403);
  t.is((refused.body as unknown as { error: { required_scope: string } }).error.required_scope, 'viewer:issue');
  t.is((await issue({ tenant_id: 'acme' }, { apiKey: issuer.body.key }, otherProject)).status, 404);

  const bad = await api(server.url, 'POST', `/v1/projects/${projectId}/viewer-tokens`, {
    token,
    body: { expires_in: 86_401, fields: ['identifier'], colour: 'red' },
  });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'colour',
    'expires_in',
    'fields.0',
    'tenant_id',
  ]);
});

test("a token reads its tenant's events of its project, and nothing across a tenant or a project", async (t) => {
  const { body } = await issue({ tenant_id: 'acme', fields: ['ip', 'response_body'] });
  const viewer = body.token;
  const list = await asViewer(viewer, '/v1/audit?limit=100');
  t.is(list.status, 200);
  t.deepEqual(list.body.data.map((e: { id: string }) => e.id).sort(), [ids.a1, ids.a2].sort());
  // Filters cannot widen it: another tenant, another project, an event of either.
  t.is((await asViewer(viewer, '/v1/audit?tenant_id=globex')).status, 404);
  t.is((await asViewer(viewer, `/v1/audit?project_id=${otherProject}`)).status, 404);
  t.is((await asViewer(viewer, '/v1/audit?identifier=ann')).body.data.length, 1);
  for (const id of [ids.b1, ids.none, ids.q1]) t.is((await asViewer(viewer, `/v1/audit/${id}`)).status, 404, id);
  // The detail without the hidden fields.
  const detail = await asViewer(viewer, `/v1/audit/${ids.a2}`);
  t.is(detail.status, 200);
  t.is(detail.body.path, '/orders/2');
  t.false('response_body' in detail.body);
  t.false('ip' in (await asViewer(viewer, `/v1/audit/${ids.a1}`)).body);
  // The export: the same events, the hidden fields left out.
  const json = await asViewer(viewer, '/v1/audit/export?format=json');
  t.is(json.status, 200);
  t.deepEqual(json.body.map((e: { id: string }) => e.id).sort(), [ids.a1, ids.a2].sort());
  t.true(json.body.every((e: Record<string, unknown>) => !('ip' in e) && !('response_body' in e)));
  // Statistics: the tenant's events alone.
  const stats = await asViewer(viewer, '/v1/audit/stats');
  t.is(stats.status, 200);
  t.is(stats.body.total, 2);
  t.is((await asViewer(viewer, '/v1/audit/stats?tenant_id=globex')).status, 404);
  // Searches stay within the tenant, and reach no hidden field.
  t.deepEqual(
    (await asViewer(viewer, '/v1/audit?q=path:/orders*')).body.data.map((e: { id: string }) => e.id).sort(),
    [ids.a1, ids.a2].sort(),
  );
  t.is((await asViewer(viewer, '/v1/audit?q=tenant:globex')).body.data.length, 0);
  const hiddenWords = await asViewer(viewer, '/v1/audit?q=gold');
  t.is(hiddenWords.status, 400, 'words could find what the hidden response body holds');
  t.is(hiddenWords.body.error.details[0].path, 'q');
  const csv = await asViewer(viewer, '/v1/audit/export');
  t.is(csv.status, 200);
  t.false(String(csv.body).includes('/orders/3'));
  t.false(String(csv.body).includes('10.0.0.1'));
});

test('a token narrowed to an identifier reads only its events', async (t) => {
  const viewer = (await issue({ tenant_id: 'acme', identifier: 'bob' })).body.token;
  const list = await asViewer(viewer, '/v1/audit');
  t.deepEqual(
    list.body.data.map((e: { id: string }) => e.id),
    [ids.a2],
  );
  t.is((await asViewer(viewer, '/v1/audit?identifier=ann')).status, 404);
  t.is((await asViewer(viewer, `/v1/audit/${ids.a1}`)).status, 404);
  t.is((await asViewer(viewer, '/v1/audit/stats')).body.total, 1);
});

test('a viewer token does nothing else: every other operation is 403', async (t) => {
  const viewer = (await issue({ tenant_id: 'acme' })).body.token;
  for (const url of [
    '/v1/projects',
    `/v1/projects/${projectId}/api-keys`,
    '/v1/audit/sessions',
    '/v1/audit/orphans',
    '/v1/audit/anomalies',
    '/v1/monitors',
    `/v1/stream?project_id=${projectId}`,
    `/v1/checkpoints/latest?project_id=${projectId}`,
    '/v1/users',
  ]) {
    const res = await asViewer(viewer, url);
    t.is(res.status, 403, url);
    t.regex(res.body.error.message, /viewer token/);
  }
  const posted = await api(server.url, 'POST', `/v1/projects/${projectId}/viewer-tokens`, {
    token: viewer,
    body: { tenant_id: 'globex' },
  });
  t.is(posted.status, 403, 'a viewer cannot issue a wider token');
});

test('expired, forged or tampered tokens are 401; a user token is not a viewer token', async (t) => {
  const short = (await issue({ tenant_id: 'acme', expires_in: 60 })).body.token;
  t.is((await asViewer(short, '/v1/audit')).status, 200);
  offsetMs = 61_000;
  try {
    const expired = await asViewer(short, '/v1/audit');
    t.is(expired.status, 401);
    t.regex(expired.body.error.message, /viewer token expired/);
  } finally {
    offsetMs = 0;
  }
  const claims = jwt.decode(short) as Record<string, unknown>;
  // Signed with the JWT secret, as a user's token is: not a viewer token's key.
  const forged = jwt.sign({ ...claims, tid: 'globex' }, server.runtime.jwtSecret, { algorithm: 'HS256' });
  t.is((await asViewer(forged, '/v1/audit')).status, 401);
  const [head, , signature] = short.split('.');
  const payload = Buffer.from(JSON.stringify({ ...claims, tid: 'globex' })).toString('base64url');
  const tampered = `${head}.${payload}.${signature}`;
  t.is((await asViewer(tampered, '/v1/audit')).status, 401);
});

test("cross-origin: preflights from anywhere; answers shared with the token's origins, errors always", async (t) => {
  const viewer = (await issue({ tenant_id: 'acme' })).body.token;
  const preflight = await fetch(`${server.url}/v1/audit`, {
    method: 'OPTIONS',
    headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
  });
  t.is(preflight.status, 204);
  t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /Authorization/);
  const allowed = await asViewer(viewer, '/v1/audit', { origin: APP });
  t.is(allowed.headers.get('access-control-allow-origin'), APP);
  const elsewhere = await asViewer(viewer, '/v1/audit', { origin: 'https://elsewhere.example' });
  t.is(elsewhere.status, 200);
  t.is(elsewhere.headers.get('access-control-allow-origin'), null, 'not shared with another site');
  const refused = await asViewer('not.a.token', '/v1/audit', { origin: 'https://elsewhere.example' });
  t.is(refused.status, 401);
  t.is(refused.headers.get('access-control-allow-origin'), 'https://elsewhere.example');
  // A user's token reads as before, same-origin only.
  const user = await api(server.url, 'GET', '/v1/audit', { token, headers: { origin: APP } });
  t.is(user.headers.get('access-control-allow-origin'), null);
});

test('/embed: framed only by the origins a valid token names; the viewer and its files served', async (t) => {
  const viewer = (await issue({ tenant_id: 'acme' })).body.token;
  const page = await fetch(`${server.url}/embed?token=${viewer}`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-security-policy') ?? '', new RegExp(`frame-ancestors ${APP}(;|$)`));
  t.is(page.headers.get('cache-control'), 'no-store');
  const html = await page.text();
  t.true(html.includes('<watchlog-audit-log>'));
  t.false(html.includes(viewer), 'the token is not written into the page');
  for (const bad of ['', '?token=nonsense']) {
    const res = await fetch(`${server.url}/embed${bad}`);
    t.regex(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/, bad);
  }
  for (const file of ['viewer.js', 'embed.js', 'embed.css']) {
    const res = await fetch(`${server.url}/embed/${file}`);
    t.is(res.status, 200, file);
  }
  t.is((await fetch(`${server.url}/embed/other.js`)).status, 404);
});

test('each issue is a system.access event naming the tenant, never the token', async (t) => {
  const issued = await issue({ tenant_id: 'initech', identifier: 'zed', fields: ['ip'] });
  let row: Record<string, unknown> | undefined;
  for (let i = 0; i < 250 && row === undefined; i += 1) {
    const list = await api(server.url, 'GET', '/v1/audit?event_type=system.access&limit=100', { token });
    const found = list.body.data.find((e: { path: string }) => e.path === `/v1/projects/${projectId}/viewer-tokens`);
    if (found) row = (await api(server.url, 'GET', `/v1/audit/${found.id}`, { token })).body;
    else await new Promise((r) => setTimeout(r, 20));
  }
  t.truthy(row);
  const body = row?.request_body as Record<string, unknown>;
  t.is(body.action, 'viewer_token.issued');
  t.true(['initech', 'acme'].includes(String(body.tenant_id)));
  t.false(JSON.stringify(row).includes(issued.body.token));
});
