import test from 'ava';
import type { Page } from 'playwright-core';
import { confirmSubscription, requestSubscription } from '../../src/commands/subscribers.ts';
import { api, eventually, shopWithMonitor } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** Whether the page is wider than its window (something would scroll sideways on a phone). */
const overflows = (page: Page) => page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth');

test(
  'status pages: created with a group and a monitor through the form (errors at their fields), ' +
    'previewed, published, its public link opens the page; subscribers listed and removed',
  async (t) => {
    const { server, token, projectId, monitorId } = await shopWithMonitor(t, { jobs: true });
    await server.jobs!.check(monitorId);
    await eventually(async () => {
      const m = await api(server.url, 'GET', `/v1/monitors/${monitorId}`, { token });
      return m.body.status === 'UP' ? true : undefined;
    }, 25_000);

    const { page, context, errors } = await openTab(t, server.url);
    await signIn(page, undefined, `/p/${projectId}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Status pages' }).click();
    await page.waitForURL(`**/p/${projectId}/status-pages`);
    await page.getByText('No status page in this project yet.').waitFor();
    await page.getByRole('link', { name: 'New status page' }).click();

    const form = page.getByRole('form', { name: 'New status page' });
    await form.getByLabel('Title').fill('Acme status');
    t.is(await form.getByLabel('Slug').inputValue(), 'acme-status', 'the slug follows the title');
    t.is(await form.getByLabel('Group name').inputValue(), 'Services', 'a first group to fill');
    await form.getByLabel('Add a monitor to Services').selectOption({ label: 'checkout' });
    await form.getByRole('button', { name: 'Add', exact: true }).click();
    const members = form.getByRole('list', { name: 'Monitors of Services' });
    await members.getByText('checkout').waitFor();
    t.true(await form.getByLabel('Add a monitor to Services').isDisabled(), 'a monitor is on a page once');

    // The preview draws the form as it is, with the monitor's state.
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByRole('heading', { name: 'Acme status' }).waitFor();
    await preview.getByText('All systems operational').waitFor();
    t.regex((await preview.getByRole('listitem').filter({ hasText: 'checkout' }).textContent()) ?? '', /Operational/);

    // The server's messages beside their fields.
    await form.getByLabel('Slug').fill('No!');
    await form.getByLabel('Days of uptime shown').fill('120');
    await form.getByRole('button', { name: 'Create status page' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /lower-case letters/ })
      .waitFor();
    const describedBy = await form.getByLabel('Days of uptime shown').getAttribute('aria-describedby');
    t.truthy(describedBy);
    t.regex((await page.locator(`[id="${describedBy!.split(' ').at(-1)}"]`).textContent()) ?? '', /90/);
    await form.getByText('The status page was not created: correct the fields marked above.').waitFor();
    await screenshot(page, 'status-page-form-error');

    await form.getByLabel('Slug').fill('acme');
    await form.getByLabel('Days of uptime shown').fill('30');
    await form.getByLabel('Description (optional)').fill('Our services, live.');
    await form.getByRole('button', { name: 'Add group' }).click();
    await form.getByLabel('Group name').nth(1).fill('Back office');
    await form.getByRole('button', { name: 'Move Back office up' }).click();
    t.is(await form.getByLabel('Group name').first().inputValue(), 'Back office', 'groups reorder');
    await form.getByRole('button', { name: 'Remove Back office' }).click();
    await form.getByLabel(/^Published/).check();
    await form.getByRole('button', { name: 'Create status page' }).click();

    await page.getByRole('heading', { level: 1, name: 'Acme status' }).waitFor();
    const [saved] = (await api(server.url, 'GET', `/v1/status-pages?project_id=${projectId}`, { token })).body;
    t.like(saved, { slug: 'acme', published: true, show_uptime_days: 30, description: 'Our services, live.' });
    t.deepEqual(saved.groups, [{ name: 'Services', monitor_ids: [monitorId] }]);
    await page.waitForURL(`**/p/${projectId}/status-pages/${saved.id}`);
    await screenshot(page, 'status-page');

    // The public link opens the public page in a tab of its own.
    const link = page.getByRole('link', { name: /^\/status\/acme/ });
    const [tab] = await Promise.all([context.waitForEvent('page'), link.click()]);
    await tab.waitForLoadState();
    t.is(new URL(tab.url()).pathname, '/status/acme');
    await tab.getByRole('heading', { level: 1, name: 'Acme status' }).waitFor();
    t.true((await tab.content()).includes('checkout'), 'the public page shows the monitor');
    await tab.close();

    // The list names it and links it.
    await page.getByRole('link', { name: '← Status pages' }).click();
    const row = page.getByRole('table', { name: 'Status pages' }).getByRole('row').filter({ hasText: 'Acme status' });
    await row.getByRole('link', { name: /^\/status\/acme/ }).waitFor();
    t.regex((await row.textContent()) ?? '', /Yes/);

    // Subscribers: two real subscriptions (one confirmed), recorded as the public form would.
    const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
    const subscribed = { id: saved.id, project_id: projectId };
    const reader = await requestSubscription(server.runtime.commands, subscribed, 'reader@example.com', ctx);
    await confirmSubscription(server.runtime.commands, reader.id, ctx);
    const later = await requestSubscription(server.runtime.commands, subscribed, 'later@example.com', ctx);
    await row.getByRole('link', { name: 'Acme status' }).click();
    await page
      .getByRole('navigation', { name: 'Status page sections' })
      .getByRole('link', { name: 'Subscribers' })
      .click();
    const subscribers = page.getByRole('table', { name: 'Subscribers of Acme status' });
    await subscribers.getByRole('row').filter({ hasText: 'reader@example.com' }).waitFor();
    t.regex((await page.getByRole('region', { name: 'Subscriber counts' }).textContent()) ?? '', /2\s*in all/);
    await subscribers.getByRole('button', { name: 'Remove later@example.com' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove subscriber' }).click();
    await subscribers.getByRole('row').filter({ hasText: 'later@example.com' }).waitFor({ state: 'detached' });
    const left = await api(server.url, 'GET', `/v1/status-pages/${saved.id}/subscribers`, { token });
    t.false(
      (left.body.data as Array<{ id: string }>).some((s) => s.id === later.id),
      'the removed subscription is gone',
    );

    // On a phone: nothing scrolls sideways.
    await page.getByRole('link', { name: 'Settings and preview' }).click();
    await page.setViewportSize({ width: 375, height: 812 });
    await page.getByRole('region', { name: 'Preview' }).waitFor();
    t.false(await overflows(page), 'the editor fits 375 px');
    await screenshot(page, 'status-page-phone');

    // Delete, after a question.
    await page.getByRole('button', { name: 'Delete status page' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete status page' }).click();
    await page.getByText('No status page in this project yet.').waitFor();
    t.is((await api(server.url, 'GET', '/status/acme')).status, 404);
    t.deepEqual(errors, []);
  },
);
