import test from 'ava';
import type { Page } from 'playwright-core';
import { api, eventually, login, sampleEvent, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';
import { startTarget } from '../helpers/target.ts';

const servicesRow = (page: Page, service: string) =>
  page
    .getByRole('table', { name: 'Services' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: service, exact: true }) });

/** The Health cell: the first data cell after the service's row header. */
const healthOf = (page: Page, service: string) => servicesRow(page, service).getByRole('cell').first();

const card = (page: Page, label: string) => page.getByRole('group', { name: label, exact: true });

/** Until the API answers the monitor with this status. */
const statusIs = (base: string, token: string, id: string, status: string) =>
  eventually(
    async () => ((await api(base, 'GET', `/v1/monitors/${id}`, { token })).body.status === status ? true : undefined),
    15_000,
  );

test(
  'overview and All projects: a project made in the form, its first-event hint, ' +
    'cards, chart, services with a live Health column, totals and DOWN monitors',
  async (t) => {
    t.timeout(120_000);
    const server = await startTestServer({ jobs: true });
    t.teardown(() => server.stop());
    const target = await startTarget(200);
    t.teardown(() => target.close());

    const { page, errors } = await openTab(t, server.url, { clock: true });
    await signIn(page, undefined, '/projects');
    await page.getByRole('heading', { name: 'New project' }).waitFor();

    // A project through the All projects form: an empty name is refused next to the field.
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByLabel('Project name').and(page.locator('[aria-invalid="true"]')).waitFor();
    await page.getByLabel('Project name').fill('shop');
    await page.getByRole('button', { name: 'Create project' }).click();
    const projectLink = page.getByRole('table', { name: 'Projects' }).getByRole('link', { name: 'shop', exact: true });
    await projectLink.waitFor();
    const projectId = /\/p\/([0-9a-f-]{36})$/.exec((await projectLink.getAttribute('href')) ?? '')?.[1];
    t.truthy(projectId, 'the row links to the overview');
    t.true(await page.getByRole('status').filter({ hasText: 'Project shop created' }).isVisible());

    // Before any event the overview says how to send the first one.
    await projectLink.click();
    await page.getByRole('heading', { name: 'No events yet' }).waitFor();
    const curl = (await page.getByLabel('curl command to send a first event').textContent()) ?? '';
    t.true(curl.startsWith(`curl -s ${server.url}/v1/audit -H "x-api-key: $KEY"`), curl);
    const sent = JSON.parse(/-d '(.*)'$/.exec(curl)?.[1] ?? 'null') as Record<string, unknown>;
    t.like(sent, { method: 'POST', environment: 'production' }, 'a valid SPEC 2.1 event');
    t.is(await page.getByRole('link', { name: 'Settings' }).last().getAttribute('href'), `/p/${projectId}/settings`);
    await screenshot(page, 'overview-empty');

    // A key over HTTP, events for two services, a monitor named like one of them.
    const token = await login(server.url);
    const key = await api<{ key: string }>(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
      token,
      body: { name: 'sdk' },
    });
    t.is(key.status, 201);
    const events = [
      ...[40, 60, 80, 100].map((rt) => sampleEvent({ service_name: 'orders', status_code: 201, response_time: rt })),
      sampleEvent({
        service_name: 'orders',
        method: 'GET',
        path: '/api/orders/9',
        status_code: 404,
        response_time: 12,
      }),
      sampleEvent({ service_name: 'orders', status_code: 500, response_time: 300, error_message: 'db down' }),
      sampleEvent({
        service_name: 'billing',
        method: 'GET',
        path: '/api/invoices',
        status_code: 200,
        response_time: 20,
      }),
      sampleEvent({
        service_name: 'billing',
        method: 'GET',
        path: '/api/invoices',
        status_code: 200,
        response_time: 30,
      }),
      sampleEvent({
        service_name: 'billing',
        method: 'PUT',
        path: '/api/invoices/1',
        status_code: 503,
        response_time: 1000,
      }),
    ];
    for (const body of events)
      t.is((await api(server.url, 'POST', '/v1/audit', { apiKey: key.body.key, body })).status, 202);
    const monitor = await api<{ id: string }>(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'orders', url: target.url, interval_seconds: 10 },
    });
    t.is(monitor.status, 201);

    // The page refreshes by itself: the cards appear without a reload, at its next refresh of the
    // statistics (every 10 s: the page's clock is moved on by that).
    await page.evaluate(() => {
      (globalThis as unknown as { marker: number }).marker = 1;
    });
    await page.clock.fastForward(10_000);
    await card(page, 'Requests').filter({ hasText: '9' }).waitFor({ timeout: 20_000 });
    t.is(await card(page, 'Requests').locator('.value').textContent(), '9');
    t.is(await card(page, '4xx errors').locator('.value').textContent(), '1');
    t.is(await card(page, '5xx errors').locator('.value').textContent(), '2');
    t.is(await card(page, 'Active services').locator('.value').textContent(), '2');
    t.regex((await card(page, 'Avg latency').textContent()) ?? '', /182 ms/, 'mean of the nine response times');
    t.regex((await card(page, 'Last event').textContent()) ?? '', /s ago/);

    const chart = page.getByRole('img', { name: 'Requests and errors over time' });
    t.true(await chart.isVisible());
    t.true(Number(await chart.locator('[data-points]').getAttribute('data-points')) > 0);

    const services = page.getByRole('table', { name: 'Services' });
    t.is(await services.getByRole('row').count(), 3, 'a header and two services');
    t.is(
      await servicesRow(page, 'orders').getByRole('link', { name: 'orders' }).getAttribute('href'),
      `/p/${projectId}/events?service_name=orders`,
    );
    t.deepEqual(
      (await servicesRow(page, 'orders').getByRole('cell').allTextContents()).slice(1, 4),
      ['6', '1', '1'],
      'requests, 4xx, 5xx of orders',
    );
    t.deepEqual((await servicesRow(page, 'billing').getByRole('cell').allTextContents()).slice(1, 4), ['3', '0', '1']);
    // The monitor's first check, then the page's next refresh of monitors (every 4 s).
    await statusIs(server.url, token, monitor.body.id, 'UP');
    await page.clock.fastForward(4_000);
    await healthOf(page, 'orders').filter({ hasText: 'UP' }).waitFor({ timeout: 20_000 });
    t.is(await healthOf(page, 'billing').textContent(), '—', 'no monitor named billing');
    t.true(await page.getByRole('table', { name: 'Status classes' }).getByRole('row', { name: /5xx 2/ }).isVisible());
    t.true(
      await page
        .getByRole('table', { name: 'Methods' })
        .getByRole('row', { name: /POST 5/ })
        .isVisible(),
    );

    // The range is in the URL.
    await page.getByRole('group', { name: 'Time range' }).getByRole('button', { name: '1 h' }).click();
    t.regex(page.url(), /\?range=1h$/);
    t.is(await page.getByRole('button', { name: '1 h' }).getAttribute('aria-pressed'), 'true');
    await card(page, 'Requests').filter({ hasText: '9' }).waitFor();
    await screenshot(page, 'overview');

    // The target fails: the Health cell turns DOWN without a reload (the check is run now rather
    // than at the end of the monitor's interval).
    target.status = 503;
    await server.jobs!.check(monitor.body.id);
    await statusIs(server.url, token, monitor.body.id, 'DOWN');
    await page.clock.fastForward(4_000);
    await healthOf(page, 'orders').filter({ hasText: 'DOWN' }).waitFor({ timeout: 30_000 });
    t.is(
      await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker),
      1,
      'the same page, not reloaded',
    );

    // All projects: the totals of the project and the DOWN monitor in the Healthcheck section.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'All projects' }).click();
    const row = page
      .getByRole('table', { name: 'Projects' })
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'shop' }) });
    await row.filter({ hasText: '9' }).waitFor();
    t.deepEqual((await row.getByRole('cell').allTextContents()).slice(0, 4), ['9', '1', '2', '33.3 %']);
    t.regex((await row.getByRole('cell').nth(4).textContent()) ?? '', /0 UP · 1 DOWN/);
    await page.getByRole('heading', { name: 'DOWN monitors in every project' }).waitFor();
    const down = page.getByRole('table', { name: 'DOWN monitors' }).getByRole('row').filter({ hasText: 'orders' });
    await down.waitFor();
    t.regex(
      (await down.textContent()) ?? '',
      new RegExp(
        `shop.*orders.*${target.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*expected status 200, received 503`,
      ),
    );
    await screenshot(page, 'all-projects');

    // The same overview on a phone and in the dark.
    const phone = await openTab(t, server.url, { width: 390, height: 844 });
    await signIn(phone.page, undefined, `/p/${projectId}`);
    await card(phone.page, 'Requests').filter({ hasText: '9' }).waitFor();
    await healthOf(phone.page, 'orders').filter({ hasText: 'DOWN' }).waitFor();
    await screenshot(phone.page, 'overview-phone');
    const dark = await openTab(t, server.url, { dark: true });
    await signIn(dark.page, undefined, `/p/${projectId}`);
    await card(dark.page, 'Requests').filter({ hasText: '9' }).waitFor();
    await healthOf(dark.page, 'orders').filter({ hasText: 'DOWN' }).waitFor();
    await screenshot(dark.page, 'overview-dark');

    t.deepEqual(errors, []);
    t.deepEqual(phone.errors, []);
    t.deepEqual(dark.errors, []);
  },
);

test(
  'All projects for a member without projects: ' + 'an empty state that says who gives access, and no New project form',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    // Not an auditor: auditors always see watchlog's own project.
    const member = { email: 'member@example.com', password: 'member password 1' };
    t.is(
      (await api(server.url, 'POST', '/v1/users', { token, body: { ...member, role: 'member', project_ids: [] } }))
        .status,
      201,
    );

    const { page, errors } = await openTab(t, server.url);
    await signIn(page, member, '/projects');
    await page.getByRole('heading', { name: 'No projects yet' }).waitFor();
    t.true(await page.getByText('an admin creates projects').isVisible());
    t.is(await page.getByRole('button', { name: 'Create project' }).count(), 0);
    await page.getByText('No monitors yet').waitFor();
    t.deepEqual(errors, []);
  },
);
