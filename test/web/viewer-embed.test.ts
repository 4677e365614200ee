import test from 'ava';
import { openTab, screenshot } from '../helpers/browser.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { hostPage, startHost } from '../helpers/viewer-host.ts';

/** A SaaS on another origin: its backend gets a viewer token with a `viewer:issue` key, its page
 *  shows `<watchlog-audit-log>` reading watchlog directly (CORS), and frames `/embed`. Tenant A's
 *  events show, B's never; the token expires. */

test("another origin's page shows tenant A's trail with a viewer token, framed or not, until it expires", async (t) => {
  let offsetMs = 0;
  const server = await startTestServer({ now: () => new Date(Date.now() + offsetMs) });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token, 'saas');
  const send = async (overrides: Record<string, unknown>) =>
    t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(overrides) })).status, 202);
  await send({ tenant_id: 'acme', path: '/acme/orders/1', identifier: 'ann' });
  await send({ tenant_id: 'acme', path: '/acme/orders/2', identifier: 'bob' });
  await send({ tenant_id: 'globex', path: '/globex/secret-plans', identifier: 'gus' });
  await eventually(async () => {
    const list = await api(server.url, 'GET', '/v1/audit?event_type=http', { token });
    return list.body.pagination?.totalItems === 3 ? true : undefined;
  });

  let html = '';
  const host = await startHost(
    server.url,
    () => html,
    `script-src 'self' ${server.url}; connect-src ${server.url}; frame-src ${server.url}`,
  );
  t.teardown(() => host.close());
  // The product's browser key names its origin; its backend's key issues viewer tokens.
  for (const body of [
    { name: 'browser', allowed_origins: [host.url] },
    { name: 'backend', scopes: ['viewer:issue'] },
  ]) {
    const key = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, { token, body });
    t.is(key.status, 201);
    if (body.name === 'backend') {
      const issued = await api(server.url, 'POST', `/v1/projects/${projectId}/viewer-tokens`, {
        apiKey: key.body.key,
        body: { tenant_id: 'acme', expires_in: 60 },
      });
      t.is(issued.status, 201);
      t.deepEqual(issued.body.allowed_origins, [host.url]);
      // The viewer itself from watchlog, as the README's snippet loads it.
      html = hostPage(issued.body.token, `api-base="${server.url}"`, `${server.url}/embed/viewer.js`);
    }
  }

  const { page, errors } = await openTab(t, host.url);
  await page.goto('/');
  const viewer = page.locator('watchlog-audit-log');
  await viewer.getByRole('status').filter({ hasText: '2 events' }).waitFor();
  t.deepEqual((await viewer.locator('td.path').allTextContents()).sort(), ['/acme/orders/1', '/acme/orders/2']);
  t.is(await page.getByText('/globex/secret-plans').count(), 0);
  await screenshot(page, 'viewer-cross-origin');

  // Framed: /embed, allowed to this origin by the token's frame-ancestors.
  const frameToken = /token="([^"]+)"/.exec(html)![1]!;
  const frame = `<iframe title="Audit log" src="${server.url}/embed?token=${frameToken}" width="1000" height="500">`;
  html = `<!doctype html><html><head><title>framed</title></head><body>${frame}</iframe></body></html>`;
  await page.goto('/framed');
  const framed = page.frameLocator('iframe').locator('watchlog-audit-log');
  await framed.getByRole('status').filter({ hasText: '2 events' }).waitFor();
  t.deepEqual((await framed.locator('td.path').allTextContents()).sort(), ['/acme/orders/1', '/acme/orders/2']);
  t.is(await page.frameLocator('iframe').getByText('/globex/secret-plans').count(), 0);
  t.deepEqual(errors, []);

  // A minute on, the token is refused: the viewer says so and tells the page.
  offsetMs = 61_000;
  html = hostPage(frameToken, `api-base="${server.url}"`, `${server.url}/embed/viewer.js`);
  await page.goto('/');
  await viewer.getByRole('status').filter({ hasText: 'This access has expired' }).waitFor();
  t.is(await viewer.locator('tbody tr').count(), 0);
});
