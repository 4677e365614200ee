import test from 'ava';
import type { Locator, Page } from 'playwright-core';
import { api, eventually, projectWithKey, serverWithTarget } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** The texts an input's aria-describedby points at: its hint and the server's message for it. */
const description = async (page: Page, input: Locator): Promise<string> => {
  const ids = (await input.getAttribute('aria-describedby'))?.split(' ') ?? [];
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' | ');
};

test(
  'monitors: add through the form (errors at their fields), UP, ' +
    'test now, DOWN banner live, history chart, pause, resume, delete',
  async (t) => {
    const { server, target, token } = await serverWithTarget(t, { jobs: true });
    const { projectId } = await projectWithKey(server.url, token, 'shop');

    const { page, errors } = await openTab(t, server.url, { clock: true });
    await signIn(page, undefined, `/p/${projectId}/monitors`);
    const empty = page.getByText('No monitor in this project yet.');
    await empty.waitFor();
    t.true(
      await page
        .getByText(/service_name/)
        .first()
        .isVisible(),
      'the empty state says how a monitor links to its service',
    );

    await page.getByRole('button', { name: 'Add monitor' }).click();
    const form = page.getByRole('form', { name: 'Add monitor' });
    t.is(await form.getByLabel('Interval (s)').inputValue(), '60', 'SPEC defaults');
    t.is(await form.getByLabel('Timeout (s)').inputValue(), '10');
    t.is(await form.getByLabel('Expected status').inputValue(), '200');
    t.true(await form.getByLabel(/Enabled/).isChecked());
    await form.getByLabel('Name').fill('checkout');
    await form.getByLabel('URL').fill('ftp://checkout.example');
    await form.getByLabel('Interval (s)').fill('10');
    await form.getByRole('button', { name: 'Add monitor' }).click();
    await form
      .getByRole('alert')
      .filter({ hasText: /http, https or tcp URL/ })
      .waitFor();
    t.regex(
      await description(page, form.getByLabel('URL')),
      /http, https or tcp URL/,
      'the URL error is tied to the URL field',
    );

    await form.getByLabel('URL').fill(target.url);
    await form.getByLabel('Timeout (s)').fill('20');
    await form.getByRole('button', { name: 'Add monitor' }).click();
    await form.getByRole('alert').filter({ hasText: 'must not exceed interval_seconds (10)' }).waitFor();
    t.regex(await description(page, form.getByLabel('Timeout (s)')), /must not exceed interval_seconds \(10\)/);
    t.notRegex(await description(page, form.getByLabel('URL')), /http, https or tcp URL/, 'the fixed field is clear');
    await screenshot(page, 'monitors-form-error');

    await form.getByLabel('Timeout (s)').fill('5');
    await form.getByRole('button', { name: 'Add monitor' }).click();
    await form.waitFor({ state: 'detached' });

    const table = page.getByRole('table', { name: 'Monitors' });
    const row = table.getByRole('row').filter({ hasText: 'checkout' }).first();
    const [monitor] = (await api(server.url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body as Array<{
      id: string;
    }>;
    const statusIs = (status: string) =>
      eventually(async () => {
        const m = await api(server.url, 'GET', `/v1/monitors/${monitor!.id}`, { token });
        return m.body.status === status ? true : undefined;
      }, 25_000);
    // Its first check, then the page's next refresh of monitors (every 4 s: its clock is moved on).
    await statusIs('UP');
    await page.clock.fastForward(4_000);
    await row.getByText('UP', { exact: true }).waitFor({ timeout: 15_000 });
    await row.getByText('200 in').waitFor();
    t.true(await row.getByText(target.url).isVisible());
    t.true(await row.getByText('every 10 s').isVisible());
    await eventually(async () => ((await row.textContent())?.includes('100 %') ? true : undefined), 10_000);

    await row.getByRole('button', { name: 'Test checkout now' }).click();
    await table
      .getByRole('status', { name: 'Test of checkout' })
      .filter({ hasText: /Test at .*: OK \(200\) in/ })
      .waitFor();
    await screenshot(page, 'monitors');

    // The target fails; a check (run now, rather than at the end of the 10 s interval) records the
    // DOWN transition.
    target.status = 503;
    await server.jobs!.check(monitor!.id);
    await statusIs('DOWN');
    const downAt = Date.now();
    // The page's next refresh of monitors, at most 4 s of its time later.
    await page.clock.fastForward(4_000);
    const banner = page.getByRole('alert', { name: 'Services down' });
    await banner.waitFor({ timeout: 10_000 });
    t.true(Date.now() - downAt <= 10_000, 'the banner shows within 10 s of the transition, without a reload');
    t.regex((await banner.textContent()) ?? '', /1 service is DOWN/);
    t.true(await banner.getByRole('link', { name: 'checkout' }).isVisible());
    t.true(await banner.getByText(target.url).isVisible());
    await row.getByText('DOWN', { exact: true }).waitFor({ timeout: 10_000 });
    await row.getByText('expected status 200, received 503').first().waitFor();
    await screenshot(page, 'banner-down');

    // The banner links to the monitor with its history open.
    await banner.getByRole('link', { name: 'checkout' }).click();
    await page.waitForURL(`**/p/${projectId}/monitors?open=${monitor!.id}`);
    t.is(await table.getByRole('button', { name: 'History of checkout' }).getAttribute('aria-expanded'), 'true');
    const chart = page.getByRole('img', { name: /^Response time of the last \d+ checks of checkout, \d+ failed$/ });
    await chart.waitFor();
    t.true(
      Number(await chart.locator('[data-points]').getAttribute('data-points')) >= 2,
      'the chart is drawn with its points',
    );
    const checks = page.getByRole('table', { name: 'Checks of checkout' });
    await checks.getByRole('row').filter({ hasText: 'Failed: expected status 200, received 503' }).first().waitFor();
    t.true(await checks.getByRole('row').filter({ hasText: 'OK (200)' }).first().isVisible());
    await screenshot(page, 'monitors-history');
    await table.getByRole('button', { name: 'History of checkout' }).click();
    t.is(await table.getByRole('button', { name: 'History of checkout' }).getAttribute('aria-expanded'), 'false');
    t.is(await checks.count(), 0);

    await row.getByRole('button', { name: 'Pause checkout' }).click();
    await row.getByText('paused', { exact: true }).waitFor();
    await banner.waitFor({ state: 'detached', timeout: 10_000 });
    await row.getByRole('button', { name: 'Resume checkout' }).click();
    await row.getByText(/every 10 s$/).waitFor();

    // Edit: the same form, filled with the monitor's settings, answered by PUT.
    await row.getByRole('button', { name: 'Edit checkout' }).click();
    const edit = page.getByRole('form', { name: 'Edit monitor checkout' });
    t.is(await edit.getByLabel('URL').inputValue(), target.url);
    t.is(await edit.getByLabel('Timeout (s)').inputValue(), '5');
    await edit.getByLabel('Interval (s)').fill('3');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.getByRole('alert').filter({ hasText: 'must be an integer from 10 to 86400' }).first().waitFor();
    t.regex(
      await description(page, edit.getByLabel('Interval (s)')),
      /must be an integer from 10 to 86400/,
      "the server's message at the interval field",
    );
    await edit.getByLabel('Interval (s)').fill('20');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await edit.waitFor({ state: 'detached' });
    await row.getByText(/every 20 s$/).waitFor();

    await page.setViewportSize({ width: 390, height: 844 });
    // Back to the start of the table, which the Resume button had scrolled sideways.
    await table.getByRole('button', { name: 'History of checkout' }).focus();
    await screenshot(page, 'monitors-phone');
    await page.setViewportSize({ width: 1280, height: 800 });

    await row.getByRole('button', { name: 'Delete checkout' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the monitor checkout?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    t.true(await row.isVisible(), 'cancel keeps it');
    await row.getByRole('button', { name: 'Delete checkout' }).click();
    await dialog.getByRole('button', { name: 'Delete monitor' }).click();
    await empty.waitFor();
    t.is((await api(server.url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body.length, 0);
    t.deepEqual(errors, []);
  },
);

test('monitors: the 10-monitor limit said in words; an auditor reads without write controls; dark mode', async (t) => {
  const { server, target, token } = await serverWithTarget(t);
  const { projectId } = await projectWithKey(server.url, token, 'full');
  for (let i = 1; i <= 10; i++) {
    const res = await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: `svc-${i}`, url: target.url, enabled: false },
    });
    t.is(res.status, 201);
  }

  const { page, errors } = await openTab(t, server.url, { dark: true });
  await signIn(page, undefined, `/p/${projectId}/monitors`);
  const table = page.getByRole('table', { name: 'Monitors' });
  await table.getByRole('row').filter({ hasText: 'svc-10' }).waitFor();
  t.is(await table.getByRole('row').count(), 11, 'a header row and ten monitors');
  await page.getByText('This project has 10 monitors; a project may have 10 unless').waitFor();
  t.true(
    await table.getByRole('row').filter({ hasText: 'svc-1' }).first().getByText('paused', { exact: true }).isVisible(),
  );
  await page.getByRole('button', { name: 'Add monitor' }).click();
  const form = page.getByRole('form', { name: 'Add monitor' });
  await form.getByLabel('Name').fill('one too many');
  await form.getByLabel('URL').fill(target.url);
  await form.getByRole('button', { name: 'Add monitor' }).click();
  await form
    .getByRole('alert')
    .filter({ hasText: /at most 10 monitors/ })
    .waitFor();
  await form.getByText('Delete a monitor you no longer need to add another.').waitFor();
  await screenshot(page, 'monitors-limit-dark');

  // ?open= expands that monitor; its history is still empty, and says when the first check comes.
  const [first] = (await api(server.url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body as Array<{
    id: string;
  }>;
  await page.goto(`/p/${projectId}/monitors?open=${first!.id}`);
  t.is(
    await table.getByRole('button', { name: 'History of svc-1', exact: true }).getAttribute('aria-expanded'),
    'true',
  );
  await page.getByText('No check yet.').waitFor();

  const email = 'auditor@example.com';
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email, password: 'long enough pw', role: 'auditor', project_ids: [projectId] },
  });
  const auditor = await openTab(t, server.url);
  await signIn(auditor.page, { email, password: 'long enough pw' }, `/p/${projectId}/monitors`);
  const seen = auditor.page.getByRole('table', { name: 'Monitors' });
  await seen.getByRole('row').filter({ hasText: 'svc-10' }).waitFor();
  t.is(
    await auditor.page.getByRole('button', { name: /Add monitor|Test .* now|Pause|Delete|Edit/ }).count(),
    0,
    'no write controls',
  );
  t.is(await seen.getByRole('columnheader', { name: 'Actions' }).count(), 0);
  t.deepEqual(errors, []);
  t.deepEqual(auditor.errors, []);
});
