import test from 'ava';
import { request } from 'node:http';
import { recordCheck } from '../../src/commands/monitors.ts';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';

/** Status pages over HTTP: their settings, and the public answers, which must leak nothing. */

let server: TestServer;
let token: string;

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
});
test.after.always(async () => {
  await server.stop();
});

const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
const SECRET_URL = 'https://internal-billing.corp.example:8443/health?token=hunter2';
const ERROR_TEXT = 'connect ECONNREFUSED 10.20.30.40:8443';

const monitorIn = async (projectId: string, name: string, url = SECRET_URL) => {
  const res = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name, url, headers: { authorization: 'Bearer very-secret' } },
  });
  return res.body as { id: string };
};

const down = async (monitorId: string) =>
  recordCheck(
    server.runtime.commands,
    monitorId,
    { checked_at: new Date().toISOString(), ok: false, status_code: 503, response_ms: 12, error: ERROR_TEXT },
    ctx,
  );

const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });

/** fetch cannot set Host: a plain request to the server's port with the host given. */
const getAt = (host: string, path: string) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const { port } = new URL(server.url);
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });

test('a page is 404 until published; its slug is unique; it shows only its own project’s monitors', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'pages-basic');
  const { projectId: other } = await projectWithKey(server.url, token, 'pages-other');
  const api1 = await monitorIn(projectId, 'API');
  const foreign = await monitorIn(other, 'Foreign');

  const refused = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: projectId, slug: 'acme', title: 'Acme', groups: [{ name: 'Core', monitor_ids: [foreign.id] }] },
  });
  t.is(refused.status, 400);
  t.deepEqual(
    refused.body.error.details.map((d: { path: string }) => d.path),
    ['groups.0.monitor_ids.0'],
  );

  const created = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: projectId, slug: 'acme', title: 'Acme', groups: [{ name: 'Core', monitor_ids: [api1.id] }] },
  });
  t.is(created.status, 201);
  t.like(created.body, { slug: 'acme', published: false, show_uptime_days: 90, custom_domain: null });
  t.is((await get('/status/acme')).status, 404);
  t.is((await get('/status/acme/summary.json')).status, 404);
  t.is((await get(`/badge/${api1.id}/status.svg`)).status, 404);

  const taken = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: other, slug: 'acme', title: 'Another' },
  });
  t.is(taken.status, 409);

  const bad = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: projectId, slug: 'No', title: '', show_uptime_days: 91, extra: 1 },
  });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'extra',
    'show_uptime_days',
    'slug',
    'title',
  ]);

  const published = await api(server.url, 'PUT', `/v1/status-pages/${created.body.id}`, {
    token,
    body: { published: true },
  });
  t.is(published.status, 200);
  const page = await get('/status/acme');
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  t.regex(page.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  t.regex(await page.text(), /API/);

  // A slug let go by a rename is free again at once.
  await api(server.url, 'PUT', `/v1/status-pages/${created.body.id}`, { token, body: { slug: 'acme-2' } });
  t.is((await get('/status/acme')).status, 404);
  t.is((await get('/status/acme-2')).status, 200);
  const reuse = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: other, slug: 'acme', title: 'Reused' },
  });
  t.is(reuse.status, 201);
});

test('public answers carry an ETag, answer 304 to it, and change with a DOWN', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'pages-etag');
  const m = await monitorIn(projectId, 'Checkout');
  const page = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: {
      project_id: projectId,
      slug: 'etag-page',
      title: 'Shop',
      published: true,
      groups: [{ name: 'Shop', monitor_ids: [m.id] }],
    },
  });
  t.is(page.status, 201);
  const first = await get('/status/etag-page');
  const etag = first.headers.get('etag');
  t.truthy(etag);
  t.is(first.headers.get('cache-control'), 'public, no-cache');
  t.is((await get('/status/etag-page', { 'if-none-match': etag! })).status, 304);

  await down(m.id);
  const changed = await eventually(async () => {
    const res = await get('/status/etag-page', { 'if-none-match': etag! });
    return res.status === 200 ? res : undefined;
  });
  t.not(changed.headers.get('etag'), etag);
  // The first failed check moves the page's version already; the DOWN comes with the next.
  const summary = await eventually(async () => {
    const answer = (await (await get('/status/etag-page/summary.json')).json()) as {
      components: Array<{ name: string; status: string }>;
      status: { indicator: string };
    };
    return answer.components.find((c) => c.name === 'Checkout')?.status === 'major_outage' ? answer : undefined;
  });
  t.not(summary.status.indicator, 'none');
});

test('no public answer holds a monitor’s URL, headers or error, the project id or another monitor', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'pages-leak');
  const shown = await monitorIn(projectId, 'Public API');
  const hidden = await monitorIn(projectId, 'Hidden Billing', 'https://hidden.corp.example/');
  await down(shown.id);
  await down(hidden.id);
  const incident = await api(server.url, 'POST', '/v1/incidents', {
    token,
    body: {
      project_id: projectId,
      title: 'Degraded API',
      status: 'investigating',
      impact: 'major',
      monitor_ids: [shown.id],
      message: 'Looking into it',
    },
  });
  t.is(incident.status, 201);
  await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: {
      project_id: projectId,
      slug: 'leak-check',
      title: 'Leak check',
      published: true,
      groups: [{ name: 'All', monitor_ids: [shown.id] }],
    },
  });
  await eventually(async () => ((await get('/status/leak-check')).status === 200 ? true : undefined));
  const paths = [
    '/status/leak-check',
    '/status/leak-check/history',
    '/status/leak-check/summary.json',
    '/status/leak-check/feed.atom',
    `/badge/${shown.id}/status.svg`,
    `/badge/${shown.id}/uptime.svg?days=7`,
    `/badge/${shown.id}/response.svg`,
    `/badge/${shown.id}/certificate.svg`,
  ];
  const forbidden = [
    'internal-billing',
    'corp.example',
    'hunter2',
    'very-secret',
    'ECONNREFUSED',
    '10.20.30.40',
    projectId,
    hidden.id,
    'Hidden Billing',
    'admin@example.com',
  ];
  for (const path of paths) {
    const res = await get(path);
    t.is(res.status, 200, path);
    const text = await res.text();
    for (const secret of forbidden) t.false(text.includes(secret), `${path} holds ${secret}`);
  }
  t.is((await get(`/badge/${hidden.id}/status.svg`)).status, 404);
  const feed = await (await get('/status/leak-check/feed.atom')).text();
  t.regex(feed, /Degraded API/);
});

test('a custom domain serves its page at /, and other hosts get the dashboard', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'pages-domain');
  const m = await monitorIn(projectId, 'Edge');
  const created = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: {
      project_id: projectId,
      slug: 'domain-page',
      title: 'Edge status',
      published: true,
      custom_domain: 'status.acme.example',
      groups: [{ name: 'Edge', monitor_ids: [m.id] }],
    },
  });
  t.is(created.status, 201);
  const html = await getAt('status.acme.example', '/');
  t.is(html.status, 200);
  t.regex(html.text, /Edge status/);
  const json = await getAt('status.acme.example:8080', '/summary.json');
  t.is(json.status, 200);
  t.is(JSON.parse(json.text).page.name, 'Edge status');
  t.notRegex((await getAt('other.example', '/')).text, /Edge status/);
  const clash = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: { project_id: projectId, slug: 'domain-two', title: 'Two', custom_domain: 'status.acme.example' },
  });
  t.is(clash.status, 409);
});

test('incidents take updates and list newest first; maintenance windows validate their schedule', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'pages-incidents');
  const opened = await api(server.url, 'POST', '/v1/incidents', {
    token,
    body: { project_id: projectId, title: 'Login errors', status: 'investigating', message: 'Looking' },
  });
  t.is(opened.status, 201);
  t.like(opened.body, { status: 'investigating', impact: 'minor', resolved_at: null });
  const resolved = await api(server.url, 'POST', `/v1/incidents/${opened.body.id}/updates`, {
    token,
    body: { status: 'resolved', message: 'Fixed' },
  });
  t.is(resolved.status, 201);
  t.is(resolved.body.status, 'resolved');
  t.truthy(resolved.body.resolved_at);
  t.deepEqual(
    resolved.body.updates.map((u: { message: string }) => u.message),
    ['Looking', 'Fixed'],
  );
  const listed = await api(server.url, 'GET', `/v1/incidents?project_id=${projectId}&open=true`, { token });
  t.is(listed.status, 200);
  t.is(listed.body.data.length, 0);

  const badRule = await api(server.url, 'POST', '/v1/maintenances', {
    token,
    body: {
      project_id: projectId,
      title: 'Bad',
      monitor_ids: 'all',
      rrule: 'FREQ=MINUTELY',
      starts_at: '2026-12-06T02:00:00Z',
      duration_minutes: 30,
      timezone: 'Mars/Olympus',
    },
  });
  t.is(badRule.status, 400);
  t.deepEqual(badRule.body.error.details.map((d: { path: string }) => d.path).sort(), ['rrule', 'timezone']);
  const weekly = await api(server.url, 'POST', '/v1/maintenances', {
    token,
    body: {
      project_id: projectId,
      title: 'Weekly',
      monitor_ids: 'all',
      rrule: 'FREQ=WEEKLY;BYDAY=SU',
      starts_at: '2026-10-18T02:00:00+02:00',
      duration_minutes: 60,
      timezone: 'Europe/Berlin',
    },
  });
  t.is(weekly.status, 201);
  t.is(weekly.body.schedule.kind, 'recurring');
  t.is(weekly.body.next.length, 5);
  // 02:00 in Berlin whatever the season: 01:00Z in winter.
  t.true(weekly.body.next.every((w: { start: string }) => w.start.endsWith('T01:00:00.000Z')));
  const once = await api(server.url, 'PUT', `/v1/maintenances/${weekly.body.id}`, {
    token,
    body: { starts_at: '2030-01-01T00:00:00Z', ends_at: '2030-01-01T02:00:00Z' },
  });
  t.is(once.status, 200);
  t.deepEqual(once.body.schedule, {
    kind: 'once',
    starts_at: '2030-01-01T00:00:00.000Z',
    ends_at: '2030-01-01T02:00:00.000Z',
  });
});
