import test from 'ava';
import { ADMIN, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** `/docs`: Swagger UI (bundled, no CDN) renders `/v1/openapi.json` under the dashboard's CSP
 *  (`script-src 'self'`, `style-src 'self'`), with no violation and no page error; a reader
 *  signed in to the dashboard in the tab can try an operation with their session. */

test('the API reference renders every operation under the CSP, and "Try it out" uses the tab\'s session', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const doc = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);

  // Tall enough for every block at once: past about 130 operations, Swagger UI (5.35) in headless
  // Chromium lays out only the blocks near the viewport.
  const { page, errors } = await openTab(t, server.url, { height: 20_000 });
  // Before any script of the page: what the browser refuses under the CSP is reported here too.
  await page.addInitScript(`
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      window.cspViolations.push(e.violatedDirective + ': ' + (e.blockedURI || e.sample)));
  `);
  await signIn(page, ADMIN, '/login');
  const response = await page.goto('/docs');
  t.regex(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await page
    .getByRole('heading', { name: /watchlog/ })
    .first()
    .waitFor();
  const summaries = page.locator('.opblock-summary');
  await summaries.nth(operations - 1).waitFor();
  t.is(await summaries.count(), operations, 'one block per operation of the description');
  await page.getByText('List events (SPEC 4.2)').waitFor();

  // An operation opens on its parameters, request body and answers, drawn from the schemas.
  // Swagger UI names each block by tag and operationId.
  const monitor = page.locator('#operations-Monitors-postMonitors');
  await monitor.locator('.opblock-summary').click();
  await monitor
    .getByText('Defaults: `interval_seconds` 60', { exact: false })
    .or(monitor.getByText('Defaults: interval_seconds 60', { exact: false }))
    .first()
    .waitFor();
  await monitor.getByText('409').first().waitFor();
  await screenshot(page, 'docs');

  // The session of this tab is set for "Try it out": GET /v1/auth/me answers the signed-in admin.
  const me = page.locator('#operations-Accounts-getAuthMe');
  await me.locator('.opblock-summary').click();
  await me.getByRole('button', { name: 'Try it out' }).click();
  await me.getByRole('button', { name: 'Execute' }).click();
  await me.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();
  t.regex(await me.locator('.live-responses-table').innerText(), /admin@example\.com/);

  t.deepEqual(await page.evaluate<string[]>('window.cspViolations'), [], 'no CSP violation');
  t.deepEqual(errors, [], 'no console error or page error');
});
