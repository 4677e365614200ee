import test from 'ava';
import { driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';
import { STATUS_CSS } from '../../../src/http/public/assets.ts';
import { subscriberIdOf, subscriptionKey, subscriptionToken } from '../../../src/domain/subscriber.ts';

/** Status pages, incidents, maintenance windows and the public pages and badges, each real answer
 *  checked against the description (test/helpers/openapi-driver.ts). */

// Subscriptions on (nothing is sent: the reactors do not run here).
const drive = driveServer({
  env: {
    WATCHLOG_SMTP_HOST: '127.0.0.1',
    WATCHLOG_SMTP_FROM: 'status@example.com',
    WATCHLOG_PUBLIC_URL: 'https://status.example.com',
  },
});
const ids: Record<string, string> = {};

test.serial.before(async () => {
  const { server, admin } = drive();
  const res = await fetch(`${server.url}/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'status' }),
  });
  ids.project = ((await res.json()) as { id: string }).id;
});

test.serial('status pages, incidents and maintenance windows', async (t) => {
  const token = drive().admin;
  const monitor = await drive().call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token, body: { project_id: ids.project, name: 'api', url: 'https://api.example.com/health' } },
    201,
  );
  const page = await drive().call(
    t,
    'POST /v1/status-pages',
    '/v1/status-pages',
    {
      token,
      body: {
        project_id: ids.project,
        slug: 'openapi-page',
        title: 'Status',
        groups: [{ name: 'API', monitor_ids: [monitor.body.id] }],
      },
    },
    201,
  );
  const pageUrl = `/v1/status-pages/${page.body.id}`;
  await drive().call(t, 'POST /v1/status-pages', '/v1/status-pages', { token, body: { slug: 'x' } }, 400);
  await drive().call(t, 'GET /v1/status-pages', `/v1/status-pages?project_id=${ids.project}`, { token }, 200);
  await drive().call(t, 'GET /v1/status-pages/:id', pageUrl, { token }, 200);
  await drive().call(t, 'PUT /v1/status-pages/:id', pageUrl, { token, body: { published: true } }, 200);

  const incident = await drive().call(
    t,
    'POST /v1/incidents',
    '/v1/incidents',
    {
      token,
      body: {
        project_id: ids.project,
        title: 'Slow API',
        status: 'identified',
        impact: 'minor',
        monitor_ids: [monitor.body.id],
        message: 'A slow database',
      },
    },
    201,
  );
  const incidentUrl = `/v1/incidents/${incident.body.id}`;
  await drive().call(t, 'GET /v1/incidents', `/v1/incidents?project_id=${ids.project}&open=true`, { token }, 200);
  await drive().call(t, 'GET /v1/incidents/:id', incidentUrl, { token }, 200);
  await drive().call(
    t,
    'POST /v1/incidents/:id/updates',
    `${incidentUrl}/updates`,
    { token, body: { status: 'monitoring', message: 'A fix is out' } },
    201,
  );

  const window = await drive().call(
    t,
    'POST /v1/maintenances',
    '/v1/maintenances',
    {
      token,
      body: {
        project_id: ids.project,
        title: 'Upgrade',
        monitor_ids: 'all',
        starts_at: '2030-01-01T00:00:00Z',
        ends_at: '2030-01-01T01:00:00Z',
      },
    },
    201,
  );
  const windowUrl = `/v1/maintenances/${window.body.id}`;
  await drive().call(t, 'GET /v1/maintenances', '/v1/maintenances', { token }, 200);
  await drive().call(t, 'GET /v1/maintenances/:id', windowUrl, { token }, 200);
  await drive().call(t, 'PUT /v1/maintenances/:id', windowUrl, { token, body: { title: 'DB upgrade' } }, 200);

  const slug = '/status/openapi-page';
  const first = await drive().call(t, 'GET /status/:slug', slug, {}, 200);
  await drive().call(t, 'GET /status/:slug', slug, { headers: { 'if-none-match': first.headers.get('etag')! } }, 304);
  await drive().call(t, 'GET /status/:slug', '/status/no-such-page', {}, 404);
  await drive().call(t, 'GET /status/:slug/history', `${slug}/history?page=1`, {}, 200);
  const summary = await drive().call(t, 'GET /status/:slug/summary.json', `${slug}/summary.json`, {}, 200);
  const etag = { 'if-none-match': summary.headers.get('etag')! };
  await drive().call(t, 'GET /status/:slug/summary.json', `${slug}/summary.json`, { headers: etag }, 304);
  const feed = await drive().call(t, 'GET /status/:slug/feed.atom', `${slug}/feed.atom`, {}, 200);
  const feedTag = { 'if-none-match': feed.headers.get('etag')! };
  await drive().call(t, 'GET /status/:slug/feed.atom', `${slug}/feed.atom`, { headers: feedTag }, 304);
  const history = await drive().call(t, 'GET /status/:slug/history', `${slug}/history`, {}, 200);
  const historyTag = { 'if-none-match': history.headers.get('etag')! };
  await drive().call(t, 'GET /status/:slug/history', `${slug}/history`, { headers: historyTag }, 304);
  const asset = await drive().call(t, 'GET /status-assets/:file', STATUS_CSS.path, {}, 200);
  const assetTag = { 'if-none-match': asset.headers.get('etag')! };
  await drive().call(t, 'GET /status-assets/:file', STATUS_CSS.path, { headers: assetTag }, 304);

  const form = 'application/x-www-form-urlencoded';
  await drive().call(
    t,
    'POST /status/:slug/subscribe',
    `${slug}/subscribe`,
    { body: { email: 'ada@example.com' } },
    202,
  );
  await drive().call(
    t,
    'POST /status/:slug/subscribe',
    `${slug}/subscribe`,
    { raw: 'email=bob%40example.com', contentType: form },
    200,
  );
  const subscriber = subscriberIdOf(page.body.id, 'ada@example.com');
  const key = subscriptionKey(drive().server.runtime.jwtSecret);
  const link = (purpose: 'confirm' | 'unsubscribe') =>
    `${slug}/subscription/${purpose}?id=${subscriber}&token=${subscriptionToken(key, purpose, subscriber)}`;
  await drive().call(t, 'GET /status/:slug/subscription/confirm', link('confirm'), {}, 200);
  await drive().call(
    t,
    'POST /status/:slug/subscription/confirm',
    link('confirm'),
    { raw: '', contentType: form },
    200,
  );
  const subscribers = `${pageUrl}/subscribers`;
  await drive().call(t, 'GET /v1/status-pages/:id/subscribers', `${subscribers}?status=confirmed`, { token }, 200);
  await drive().call(t, 'GET /status/:slug/subscription/unsubscribe', link('unsubscribe'), {}, 200);
  await drive().call(
    t,
    'POST /status/:slug/subscription/unsubscribe',
    link('unsubscribe'),
    { raw: '', contentType: form },
    200,
  );
  await drive().call(
    t,
    'POST /status/:slug/subscription/unsubscribe',
    link('unsubscribe'),
    { raw: 'List-Unsubscribe=One-Click', contentType: form },
    204,
  );
  await drive().call(
    t,
    'DELETE /v1/status-pages/:id/subscribers/:subscriber_id',
    `${subscribers}/${subscriber}`,
    { token },
    204,
  );

  for (const kind of ['status', 'uptime', 'response', 'certificate']) {
    const url = `/badge/${monitor.body.id}/${kind}.svg`;
    const badge = await drive().call(t, `GET /badge/:monitor_id/${kind}.svg`, url, {}, 200);
    const tag = { 'if-none-match': badge.headers.get('etag')! };
    await drive().call(t, `GET /badge/:monitor_id/${kind}.svg`, url, { headers: tag }, 304);
  }

  await drive().call(t, 'DELETE /v1/maintenances/:id', windowUrl, { token }, 204);
  await drive().call(t, 'DELETE /v1/incidents/:id', incidentUrl, { token }, 204);
  await drive().call(t, 'DELETE /v1/status-pages/:id', pageUrl, { token }, 204);
  await drive().call(t, 'GET /status/:slug', slug, {}, 404);
});

everyOperationDriven('answers-status-pages.test.ts', drive);
