import test from 'ava';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const rowsOf = (page: Page, table: string) => page.getByRole('table', { name: table }).locator('tbody tr');

/** Waits until the table shows exactly `n` rows (the list refreshes asynchronously). */
const expectRows = async (page: Page, table: string, n: number) => {
  await eventually(async () => ((await rowsOf(page, table).count()) === n ? true : undefined), 10_000);
};

test(
  'events: list, filters kept in the URL, export of the filtered events, ' +
    'detail with response_body behind Reveal, sessions and orphans',
  async (t) => {
    // The service clock starts 10 minutes back, so the browser event sent first is old enough to be
    // judged an orphan (only events older than 2 minutes are).
    let offsetMs = -10 * 60_000;
    const server = await startTestServer({ now: () => new Date(Date.now() + offsetMs) });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    const { projectId: quietProject } = await projectWithKey(server.url, token, 'quiet');
    const ingest = async (overrides: Record<string, unknown>) => {
      const res = await api<{ id: string }>(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent(overrides) });
      t.is(res.status, 202, JSON.stringify(res.body));
      await sleep(5); // distinct timestamps: the session's order is the order sent
      return res.body.id;
    };

    const orphan = await ingest({
      source: 'browser',
      request_id: 'req-lost-1',
      method: 'GET',
      path: '/checkout',
      service_name: 'web',
      identifier: 'visitor-9',
      status_code: 200,
    });
    offsetMs = 0;
    const created = await ingest({
      identifier: 'ann',
      session_id: 'sess-42',
      request_body: { item: 'book', qty: 2 },
      query_params: { ref: 'mail' },
      response_body: { order_id: 'ord-SECRET-77' },
    });
    const read = await ingest({
      identifier: 'ann',
      session_id: 'sess-42',
      method: 'GET',
      path: '/api/orders/1',
      status_code: 200,
      response_time: 8,
    });
    const failed = await ingest({
      identifier: 'ann',
      session_id: 'sess-42',
      method: 'DELETE',
      path: '/api/orders/1',
      status_code: 500,
      response_time: 120,
    });
    await ingest({
      identifier: 'bob',
      service_name: 'billing',
      method: 'GET',
      path: '/api/invoices',
      status_code: 404,
      response_time: 3,
    });
    await ingest({ identifier: 'bob', service_name: 'billing', path: '/api/invoices', status_code: 201 });
    await ingest({
      identifier: 'carol',
      service_name: 'users',
      method: 'GET',
      path: '/api/me',
      status_code: 200,
      environment: 'staging',
    });
    await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}`, { token });
      return res.body.pagination?.totalItems === 7 ? true : undefined;
    });

    const { page, errors } = await openTab(t, server.url, { clock: true });
    await signIn(page, undefined, `/p/${projectId}/events`);
    await expectRows(page, 'Events', 7);
    const table = page.getByRole('table', { name: 'Events' });
    t.regex(await table.innerText(), /DELETE\s+\/api\/orders\/1\s+500/);
    await screenshot(page, 'events');

    // Live: a new event shows up on page 1 without a reload, at the list's next refresh (every 5 s:
    // the page's clock is moved on by that once the list has it).
    await ingest({ identifier: 'dave', service_name: 'users', method: 'PUT', path: '/api/me', status_code: 200 });
    await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}`, { token });
      return res.body.pagination?.totalItems === 8 ? true : undefined;
    });
    await page.clock.fastForward(5_000);
    await expectRows(page, 'Events', 8);
    t.regex(await rowsOf(page, 'Events').first().innerText(), /PUT/);

    // Sorting by a column is kept in the URL.
    await page.getByRole('button', { name: 'Latency' }).click();
    await eventually(async () =>
      new URL(page.url()).searchParams.get('sort_by') === 'response_time' ? true : undefined,
    );
    t.is(new URL(page.url()).searchParams.get('sort_order'), 'asc');
    await eventually(async () => (/3 ms/.test(await rowsOf(page, 'Events').first().innerText()) ? true : undefined));
    t.is(await page.getByRole('columnheader', { name: /Latency/ }).getAttribute('aria-sort'), 'ascending');
    await page.goBack();
    await eventually(async () =>
      (await rowsOf(page, 'Events').first().innerText()).includes('PUT') ? true : undefined,
    );

    // A range the server refuses is said in words, next to the field.
    await page.getByLabel('From').fill('2026-01-02T00:00:00');
    await page.getByLabel('Until').fill('2026-01-01T00:00:00');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('alert').filter({ hasText: 'must not be after end_date' }).first().waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await expectRows(page, 'Events', 8);
    t.is(new URL(page.url()).search, '');

    // Filter through the form: by service, then by status; the URL holds both and a reload keeps them.
    await page.getByLabel('Service').fill('orders');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(page, 'Events', 3);
    t.is(new URL(page.url()).searchParams.get('service_name'), 'orders');
    await page.getByLabel('Status code').fill('500');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expectRows(page, 'Events', 1);
    t.is(new URL(page.url()).searchParams.get('status_code'), '500');
    await page.reload();
    await expectRows(page, 'Events', 1);
    t.is(await page.getByLabel('Service').inputValue(), 'orders');
    t.is(await page.getByLabel('Status code').inputValue(), '500');
    t.regex(await rowsOf(page, 'Events').first().innerText(), /DELETE/);
    await screenshot(page, 'events-filtered');

    // Filters nothing matches say so, and offer to clear them.
    await page.getByLabel('Status code').fill('503');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByText('No events match these filters.').waitFor();
    // Back returns to the previous view (orders, 500), and again to orders alone.
    await page.goBack();
    await expectRows(page, 'Events', 1);
    await page.goBack();
    await expectRows(page, 'Events', 3);
    t.is(new URL(page.url()).search, '?service_name=orders');

    // The export holds exactly the filtered events, in both formats.
    const orders = [created, read, failed].sort();
    await page.getByLabel('Format').selectOption('csv');
    const [csvDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    t.regex(csvDownload.suggestedFilename(), /^watchlog-audit-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = parse(readFileSync(await csvDownload.path(), 'utf8'), { columns: true }) as Array<
      Record<string, string>
    >;
    t.deepEqual(rows.map((r) => r.id).sort(), orders);
    t.true(rows.every((r) => r.service_name === 'orders'));
    await page.getByLabel('Format').selectOption('json');
    const [jsonDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    t.regex(jsonDownload.suggestedFilename(), /\.json$/);
    const exported = JSON.parse(readFileSync(await jsonDownload.path(), 'utf8')) as Array<{
      id: string;
      service_name: string;
    }>;
    t.deepEqual(exported.map((e) => e.id).sort(), orders);

    // The detail: every field, bodies, and the response body only once revealed.
    await page.getByRole('link', { name: /^Open event POST \/api\/orders at / }).click();
    await page.getByRole('heading', { name: /Event POST/ }).waitFor();
    t.regex(new URL(page.url()).pathname, new RegExp(`/events/${created}$`));
    const main = page.getByRole('main');
    t.regex(await main.innerText(), /"item": "book"/);
    t.regex(await main.innerText(), /"ref": "mail"/);
    t.regex(await main.innerText(), /sess-42/);
    t.notRegex(await page.content(), /ord-SECRET-77/, 'the response body is not in the page before Reveal');
    await screenshot(page, 'event-detail');
    await page.getByRole('button', { name: 'Reveal' }).click();
    await page.getByText('"order_id": "ord-SECRET-77"').waitFor();
    await screenshot(page, 'event-detail-revealed');
    await page.getByRole('button', { name: 'Hide' }).click();
    t.notRegex(await page.content(), /ord-SECRET-77/);
    t.is(
      await page.getByRole('link', { name: 'Explicit session sess-42' }).getAttribute('href'),
      `/p/${projectId}/sessions/sess-42`,
    );
    t.is(
      await page.getByRole('link', { name: 'Sessions of ann in orders' }).getAttribute('href'),
      `/p/${projectId}/sessions?identifier=ann&service_name=orders`,
    );
    await page.getByRole('link', { name: '← Events' }).click();
    await expectRows(page, 'Events', 3);
    t.is(new URL(page.url()).search, '?service_name=orders', 'back to the list with its filters');

    // An unknown event is said in words.
    await page.goto(`/p/${projectId}/events/00000000-0000-4000-8000-000000000000`);
    await page.getByRole('alert').filter({ hasText: 'No event with id' }).waitFor();

    // Derived sessions of an identifier, kept in the URL.
    await page.goto(`/p/${projectId}/sessions`);
    await expectRows(page, 'Sessions', 5);
    await page.getByLabel('Identifier').fill('ann');
    await page.getByRole('button', { name: 'Show sessions' }).click();
    await expectRows(page, 'Sessions', 1);
    t.is(new URL(page.url()).searchParams.get('identifier'), 'ann');
    t.regex(await rowsOf(page, 'Sessions').first().innerText(), /ann\s+orders[\s\S]*\b3\b/);
    await screenshot(page, 'sessions');

    // An explicit session by id: its events in order, each opening its detail.
    await page.getByLabel('Open explicit session by id').fill('sess-42');
    await page.getByRole('button', { name: 'Open session' }).click();
    await expectRows(page, 'Session events', 3);
    const methods = await rowsOf(page, 'Session events').evaluateAll((trs) =>
      trs.map((tr) => tr.children[2]?.textContent),
    );
    t.deepEqual(methods, ['POST', 'GET', 'DELETE']);
    await screenshot(page, 'explicit-session');
    await page.getByRole('link', { name: /^Open event DELETE/ }).click();
    await page.getByRole('heading', { name: /Event DELETE/ }).waitFor();
    await page.getByRole('link', { name: '← Back' }).click();
    await expectRows(page, 'Session events', 3);
    await page.goto(`/p/${projectId}/sessions/no-such-session`);
    await page.getByRole('alert').filter({ hasText: 'no-such-session' }).waitFor();

    // Orphans: the browser event no backend answered.
    await page.goto(`/p/${projectId}/orphans`);
    await expectRows(page, 'Orphans', 1);
    t.regex(await rowsOf(page, 'Orphans').first().innerText(), /req-lost-1/);
    await screenshot(page, 'orphans');
    await page.getByRole('link', { name: /^Open event GET \/checkout/ }).click();
    t.regex(new URL(page.url()).pathname, new RegExp(`/events/${orphan}$`));

    // A project without events says how to send the first one; so does Orphans.
    await page.goto(`/p/${quietProject}/events`);
    await page.getByText('No events in this project yet.').waitFor();
    t.is(
      await page.getByRole('link', { name: 'Settings', exact: true }).last().getAttribute('href'),
      `/p/${quietProject}/settings`,
    );
    t.regex(await page.getByRole('main').innerText(), /curl -X POST .*\/v1\/audit/);
    await page.goto(`/p/${quietProject}/orphans`);
    await page.getByText(/An orphan is a browser event/).waitFor();
    t.deepEqual(errors, []);
  },
);

test(
  'events: 100 rows a page, paging kept in the URL; ' +
    'at a phone width the table scrolls inside its frame, the page does not',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    for (let i = 0; i < 105; i++) {
      await api(server.url, 'POST', '/v1/audit', {
        apiKey,
        body: sampleEvent({ path: `/api/orders/${i}/items`, status_code: i % 10 === 4 ? 503 : 200 }),
      });
    }
    await eventually(async () =>
      (await api(server.url, 'GET', `/v1/audit?project_id=${projectId}`, { token })).body.pagination?.totalItems === 105
        ? true
        : undefined,
    );
    const { page, errors } = await openTab(t, server.url, { width: 390, height: 800 });
    await signIn(page, undefined, `/p/${projectId}/events`);
    await expectRows(page, 'Events', 20);
    await page.getByLabel('Rows per page').selectOption('100');
    await expectRows(page, 'Events', 100);
    await page.getByRole('button', { name: 'Next page' }).click();
    await expectRows(page, 'Events', 5);
    t.is(new URL(page.url()).search, '?page=2&limit=100');
    await page.getByText('Page 2 of 2 · 105 events').waitFor();
    await page.goBack();
    await expectRows(page, 'Events', 100);
    await page.getByLabel('Rows per page').selectOption('20');
    await expectRows(page, 'Events', 20);
    await screenshot(page, 'events-phone');
    // A string: the root tsconfig has no DOM library.
    t.true(
      await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth + 1'),
      'no horizontal scroll of the page',
    );
    t.deepEqual(errors, []);

    const dark = await openTab(t, server.url, { dark: true });
    await signIn(dark.page, undefined, `/p/${projectId}/events`);
    await expectRows(dark.page, 'Events', 20);
    await screenshot(dark.page, 'events-dark');
    t.deepEqual(dark.errors, []);
  },
);
