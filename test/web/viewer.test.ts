import test from 'ava';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { openTab, screenshot } from '../helpers/browser.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { hostPage, startHost } from '../helpers/viewer-host.ts';

/** `<watchlog-audit-log>` (packages/viewer) in Chromium, on a host page under a strict CSP (no
 *  inline script or style) that loads the built bundle and passes `/v1` on to a real watchlog, as
 *  a SaaS's own backend may. */

/** What the page's functions use of the DOM (the tests compile without its types). */
interface Styles {
  getComputedStyle(element: unknown): { backgroundColor: string };
}

const viewer = (page: Page) => page.locator('watchlog-audit-log');
const rows = (page: Page) => viewer(page).locator('tbody tr');
const statusLine = (page: Page) => viewer(page).getByRole('status').first();

test('the viewer: pages, filters, detail with the response body behind Reveal, export, keys, theming', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { apiKey } = await projectWithKey(server.url, token);
  const sent = [
    sampleEvent({ path: '/orders/1', method: 'GET', status_code: 200 }),
    sampleEvent({ path: '/orders', method: 'POST', status_code: 201, response_body: { receipt: 'R-991' } }),
    sampleEvent({ path: '/orders/2', method: 'DELETE', status_code: 500, error_message: 'db down' }),
    sampleEvent({ path: '/<img src=x onerror="window.__xss=1">', method: 'GET', status_code: 404 }),
    sampleEvent({ path: '/carts/9', method: 'PUT', status_code: 204, identifier: 'jane' }),
    sampleEvent({ path: '/orders/3', method: 'DELETE', status_code: 204 }),
  ];
  for (const event of sent) {
    t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: event })).status, 202);
    await new Promise((r) => setTimeout(r, 5)); // distinct timestamps: a stable newest-first order
  }
  // The service's own self-audit rows (the login, the project, its key) are listed too, and land
  // a moment later: the total is the API's once it holds still.
  const countNow = async (): Promise<number> =>
    (await api(server.url, 'GET', '/v1/audit?limit=1', { token })).body.pagination?.totalItems ?? 0;
  const total = await eventually(async () => {
    const before = await countNow();
    await new Promise((r) => setTimeout(r, 300));
    return before >= sent.length && before === (await countNow()) ? before : undefined;
  }, 10_000);
  const host = await startHost(server.url, () => hostPage(token));
  t.teardown(() => host.close());

  const { page, errors } = await openTab(t, host.url);
  await page.goto('/');
  await statusLine(page)
    .filter({ hasText: `${total} events` })
    .waitFor();
  t.is(await rows(page).count(), 4, 'page-size 4');
  const pages = Math.ceil(total / 4);
  t.is(await viewer(page).getByText(`Page 1 of ${pages}`).count(), 1);
  // A client's path is text, never markup.
  t.is(await viewer(page).getByText('/<img src=x onerror="window.__xss=1">').count(), 1);
  t.is(await page.evaluate<unknown>('window.__xss'), undefined);
  // Theming: the host's stylesheet sets the accent, which reaches the primary button.
  const accent = await viewer(page)
    .getByRole('button', { name: 'Search', exact: true })
    .evaluate((b) => (globalThis as unknown as Styles).getComputedStyle(b).backgroundColor);
  t.is(accent, 'rgb(1, 2, 3)');
  await screenshot(page, 'viewer');

  await viewer(page).getByRole('button', { name: 'Next page' }).click();
  await viewer(page).getByText(`Page 2 of ${pages}`).waitFor();
  t.is(await rows(page).count(), Math.min(4, total - 4));

  // A filter starts again from page 1.
  await viewer(page).getByLabel('Method').selectOption('DELETE');
  await viewer(page).getByRole('button', { name: 'Search', exact: true }).click();
  await statusLine(page).filter({ hasText: '2 events' }).waitFor();
  t.deepEqual(await rows(page).locator('td.path').allTextContents(), ['/orders/3', '/orders/2']);

  // The export is the filter's events, as watchlog's CSV.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    viewer(page).getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  const csv = parse(readFileSync((await download.path())!), { columns: true }) as Record<string, string>[];
  t.deepEqual(csv.map((r) => r.path).sort(), ['/orders/2', '/orders/3']);

  // A search in watchlog's syntax, with the status class as a term of it.
  await viewer(page).getByLabel('Method').selectOption('');
  await viewer(page).getByRole('searchbox', { name: 'Search' }).fill('path:/orders*');
  await viewer(page).getByLabel('Status').selectOption('5xx');
  await viewer(page).getByRole('button', { name: 'Search', exact: true }).click();
  await statusLine(page).filter({ hasText: '1 event' }).waitFor();
  t.deepEqual(await rows(page).locator('td.path').allTextContents(), ['/orders/2']);
  await viewer(page).getByRole('searchbox', { name: 'Search' }).fill('');
  await viewer(page).getByLabel('Status').selectOption('');

  // By keyboard: the row's button opens the detail, which takes the focus; Escape gives it back.
  await viewer(page).getByLabel('Method').selectOption('POST');
  await viewer(page).getByRole('button', { name: 'Search', exact: true }).click();
  const posted = rows(page).filter({ has: page.getByText('/orders', { exact: true }) });
  await posted.waitFor();
  const opener = posted.locator('button.open');
  await opener.focus();
  await page.keyboard.press('Enter');
  const heading = viewer(page).getByRole('heading', { name: 'POST /orders' });
  await heading.waitFor();
  t.true(await heading.evaluate((h) => h.matches(':focus')));
  t.is(await viewer(page).getByText('R-991').count(), 0, 'the response body waits for Reveal');
  await viewer(page).getByRole('button', { name: 'Reveal response body' }).press('Enter');
  await viewer(page).getByText('R-991').waitFor();
  await page.keyboard.press('Escape');
  await heading.waitFor({ state: 'detached' });
  t.true(await opener.evaluate((b) => b.matches(':focus')), 'the focus is back on the row');
  t.deepEqual(errors, []);

  // A new token starts again; a refused one says so, and tells the host page (to fetch another).
  await page.evaluate(`
    document.addEventListener('watchlog-token-expired', () => document.body.setAttribute('data-expired', 'yes'));
    document.querySelector('watchlog-audit-log').setAttribute('token', 'not-a-token');
  `);
  await statusLine(page).filter({ hasText: 'This access has expired' }).waitFor();
  await page.locator('body[data-expired="yes"]').waitFor();
  t.is(await rows(page).count(), 0);
});
