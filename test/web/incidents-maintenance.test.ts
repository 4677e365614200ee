import test from 'ava';
import { api, eventually, shopWithMonitor } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

const pad = (n: number) => String(n).padStart(2, '0');
/** A local time as a `datetime-local` input takes it (the browser runs in this process's zone). */
const localInput = (d: Date) =>
  `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
/** The days of a month that fall on these weekdays (0 Sunday … 6 Saturday). */
const daysOn = (year: number, month: number, weekdays: number[]) => {
  let n = 0;
  for (let d = new Date(year, month, 1); d.getMonth() === month; d.setDate(d.getDate() + 1))
    if (weekdays.includes(d.getDay())) n++;
  return n;
};

test('incidents: opened through the form (errors at their fields), updated, resolved, listed, deleted', async (t) => {
  const { server, token, projectId } = await shopWithMonitor(t, {}, { enabled: false });

  const { page, errors } = await openTab(t, server.url);
  await signIn(page, undefined, `/p/${projectId}/incidents`);
  await page.getByText('No open incident').waitFor();
  await page.getByRole('button', { name: 'Open an incident' }).click();
  const form = page.getByRole('form', { name: 'Open an incident' });
  await form.getByRole('button', { name: 'Open incident' }).click();
  await form.getByText('The incident was not opened: correct the fields marked above.').waitFor();
  t.is(await form.getByLabel('Title').getAttribute('aria-invalid'), 'true');
  t.is(await form.getByLabel('Message').getAttribute('aria-invalid'), 'true');

  await form.getByLabel('Title').fill('Checkout errors');
  await form.getByLabel('Impact').selectOption('major');
  await form.getByLabel('checkout').check();
  await form.getByLabel('Message').fill('We are looking into failing payments.');
  await form.getByRole('button', { name: 'Open incident' }).click();

  await page.getByRole('heading', { level: 1, name: 'Checkout errors' }).waitFor();
  const timeline = page.getByRole('list', { name: 'Updates of Checkout errors' });
  t.is(await timeline.getByRole('listitem').count(), 1);
  t.regex((await page.locator('.incident-facts').textContent()) ?? '', /Investigating.*Major impact.*checkout/s);

  const update = page.getByRole('form', { name: 'Post an update' });
  t.is(await update.getByLabel('Status').inputValue(), 'investigating', 'the current status to start from');
  await update.getByLabel('Status').selectOption('identified');
  await update.getByLabel('Impact').selectOption('critical');
  await update.getByLabel('Message').fill('A bad deploy; rolling back.');
  await update.getByRole('button', { name: 'Post update' }).click();
  await update.getByText('Update posted.').waitFor();
  await eventually(async () => ((await timeline.getByRole('listitem').count()) === 2 ? true : undefined));
  t.regex((await timeline.getByRole('listitem').first().textContent()) ?? '', /Identified.*A bad deploy/s);
  t.regex((await page.locator('.incident-facts').textContent()) ?? '', /Identified.*Critical impact/s);
  await screenshot(page, 'incident');

  await page.getByRole('link', { name: '← Incidents' }).click();
  const open = page.getByRole('table', { name: 'Open incidents' });
  await open.getByRole('row').filter({ hasText: 'Checkout errors' }).waitFor();
  await screenshot(page, 'incidents');

  await open.getByRole('link', { name: 'Checkout errors' }).click();
  await update.getByLabel('Status').selectOption('resolved');
  await update.getByLabel('Message').fill('Payments work again.');
  await update.getByRole('button', { name: 'Post update' }).click();
  await page.locator('.incident-facts').getByText('Resolved').waitFor();
  await page.getByRole('link', { name: '← Incidents' }).click();
  await page.getByText('No open incident').waitFor();
  await page.getByLabel('All incidents').check();
  const all = page.getByRole('table', { name: 'All incidents' });
  await all.getByRole('row').filter({ hasText: 'Checkout errors' }).waitFor();
  t.regex((await all.getByRole('row').filter({ hasText: 'Checkout errors' }).textContent()) ?? '', /Resolved/);
  t.true(page.url().endsWith('?filter=all'), 'the filter is in the URL');

  await all.getByRole('link', { name: 'Checkout errors' }).click();
  await page.getByRole('button', { name: 'Delete incident' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete incident' }).click();
  await page.waitForURL(`**/p/${projectId}/incidents`);
  t.is((await api(server.url, 'GET', `/v1/incidents?project_id=${projectId}`, { token })).body.data.length, 0);
  t.deepEqual(errors, []);
});

test(
  'maintenance: a recurring window from presets shows on its days in the calendar, months on; ' +
    'a one-off window open now puts the maintenance badge beside its monitor',
  async (t) => {
    const { server, token, projectId } = await shopWithMonitor(t, { jobs: true });

    const { page, errors } = await openTab(t, server.url);
    await signIn(page, undefined, `/p/${projectId}/maintenance`);
    await page.getByText('No maintenance window yet').waitFor();

    await page.getByRole('button', { name: 'Schedule maintenance' }).click();
    const form = page.getByRole('form', { name: 'Schedule maintenance' });
    await form.getByLabel('Title').fill('Database upgrade');
    await form.getByLabel('Recurring').check();
    await form.getByLabel('Repeats').selectOption('weekly');
    await form.getByLabel('Monday').check();
    await form.getByLabel('Thursday').check();
    t.is(await form.getByLabel('Time zone').inputValue(), Intl.DateTimeFormat().resolvedOptions().timeZone);
    const now = new Date();
    await form.getByLabel('First start').fill(localInput(new Date(now.getFullYear(), now.getMonth(), 1, 9, 0)));
    await form.getByLabel('Duration (minutes)').fill('0');
    await form.getByRole('button', { name: 'Schedule' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /1 to 10080/ })
      .waitFor();
    await form.getByLabel('Duration (minutes)').fill('90');
    await form.getByRole('button', { name: 'Schedule' }).click();
    await form.waitFor({ state: 'detached' });

    const [saved] = (await api(server.url, 'GET', `/v1/maintenances?project_id=${projectId}`, { token })).body;
    t.like(saved.schedule, { kind: 'recurring', rrule: 'FREQ=WEEKLY;BYDAY=MO,TH', duration_minutes: 90 });
    t.is(saved.monitor_ids, 'all');

    // Every Monday and Thursday of this month and the next: expanded here, beyond the API's next 5.
    const monthName = new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric' });
    const agenda = (month: Date) =>
      page.getByRole('list', { name: `Maintenance occurrences in ${monthName.format(month)}` });
    const thisMonth = agenda(now);
    await thisMonth.getByRole('listitem').first().waitFor();
    t.is(await thisMonth.getByRole('listitem').count(), daysOn(now.getFullYear(), now.getMonth(), [1, 4]));
    t.true(
      (await page.locator('.cal-grid .cal-items li').count()) >= daysOn(now.getFullYear(), now.getMonth(), [1, 4]),
    );
    await screenshot(page, 'maintenance-calendar');
    await page.getByRole('button', { name: 'Next month' }).click();
    const next = new Date(now.getFullYear(), now.getMonth() + 1, 1);
    await agenda(next).getByRole('listitem').first().waitFor();
    t.is(await agenda(next).getByRole('listitem').count(), daysOn(next.getFullYear(), next.getMonth(), [1, 4]));
    t.regex(page.url(), /\?month=\d{4}-\d{2}$/);
    const windows = page.getByRole('list', { name: 'Maintenance windows' });
    t.regex((await windows.textContent()) ?? '', /Every week on Monday, Thursday at 09:00 for 1 h 30 min/);

    // A one-off window open now, on the monitor alone.
    await page.getByRole('button', { name: 'Schedule maintenance' }).click();
    await form.getByLabel('Title').fill('Card processor swap');
    await form.getByLabel('Starts').fill(localInput(new Date(Date.now() - 60_000)));
    await form.getByLabel('Ends').fill(localInput(new Date(Date.now() + 3_600_000)));
    await form.getByLabel('Chosen monitors').check();
    await form.getByLabel('checkout').check();
    await form.getByRole('button', { name: 'Schedule' }).click();
    await form.waitFor({ state: 'detached' });
    await windows.getByText('under way').waitFor({ timeout: 15_000 });

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Monitors' }).click();
    const row = page.getByRole('table', { name: 'Monitors' }).getByRole('row').filter({ hasText: 'checkout' });
    await row.getByText('maintenance', { exact: true }).waitFor({ timeout: 15_000 });
    await screenshot(page, 'monitors-maintenance');

    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`/p/${projectId}/maintenance`);
    await agenda(now).getByRole('listitem').first().waitFor();
    t.false(await page.evaluate<boolean>('document.documentElement.scrollWidth > window.innerWidth'), 'fits 375 px');
    await screenshot(page, 'maintenance-phone');

    // Delete after a question.
    await page.setViewportSize({ width: 1280, height: 800 });
    await windows.getByRole('button', { name: 'Delete Card processor swap' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete window' }).click();
    await page.getByText('Card processor swap: deleted.').waitFor();
    t.is((await api(server.url, 'GET', `/v1/maintenances?project_id=${projectId}`, { token })).body.length, 1);
    t.deepEqual(errors, []);
  },
);
