import test from 'ava';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

const rowsOf = (page: Page) => page.getByRole('table', { name: 'Events' }).locator('tbody tr');

/** The rows' identifiers once the table shows exactly `n` rows. */
const identifiers = async (page: Page, n: number): Promise<string[]> => {
  await eventually(async () => ((await rowsOf(page).count()) === n ? true : undefined), 10_000);
  return (await rowsOf(page).locator('td:nth-child(7)').allInnerTexts()).sort();
};

test(
  'events: the search box, tenant and path filters, kept in the URL, exported as shown; ' +
    'a bad query said at its field',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    const events = [
      { identifier: 'ann', tenant_id: 'acme', path: '/orders/1', status_code: 502, error_message: 'card declined' },
      { identifier: 'bob', tenant_id: 'globex', path: '/orders/2', status_code: 200, method: 'GET' },
      { identifier: 'carol', tenant_id: 'acme', path: '/invoices/7', status_code: 404, method: 'GET' },
    ];
    for (const e of events) {
      const res = await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(e) });
      t.is(res.status, 202);
    }
    await eventually(async () =>
      (await api(server.url, 'GET', `/v1/audit?project_id=${projectId}`, { token })).body.pagination?.totalItems === 3
        ? true
        : undefined,
    );
    const { page, errors } = await openTab(t, server.url);
    await signIn(page, undefined, `/p/${projectId}/events`);
    t.deepEqual(await identifiers(page, 3), ['ann', 'bob', 'carol']);

    const apply = () => page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByLabel('Search').fill('"card declined"');
    await apply();
    t.deepEqual(await identifiers(page, 1), ['ann']);
    t.is(new URL(page.url()).searchParams.get('q'), '"card declined"');

    await page.getByLabel('Search').fill('path:/orders* -status:5xx');
    await apply();
    t.deepEqual(await identifiers(page, 1), ['bob']);
    await page.reload();
    t.deepEqual(await identifiers(page, 1), ['bob'], 'a reload keeps the search');
    t.is(await page.getByLabel('Search').inputValue(), 'path:/orders* -status:5xx');

    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tenant').fill('acme');
    await apply();
    t.deepEqual(await identifiers(page, 2), ['ann', 'carol']);
    await page.getByLabel('Path', { exact: true }).fill('/orders*');
    await apply();
    t.deepEqual(await identifiers(page, 1), ['ann']);
    await screenshot(page, 'events-search');

    // The export is of what the list shows: the tenant and the path prefix.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    const rows = parse(readFileSync(await download.path(), 'utf8'), { columns: true }) as Array<Record<string, string>>;
    t.deepEqual(
      rows.map((r) => r.identifier),
      ['ann'],
    );

    // A query the server cannot read is said next to the search box, in its words.
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await page.getByLabel('Search').fill('status:9xx');
    await apply();
    await page.getByRole('alert').filter({ hasText: 'status is a code (404) or a class (5xx)' }).first().waitFor();
    t.deepEqual(errors, []);
  },
);
