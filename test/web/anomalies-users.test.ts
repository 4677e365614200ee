import test from 'ava';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

test(
  'anomalies: a brute force shows as an open alert with its fields; ' +
    'the settings form saves, refuses in words at the field, and resets to the default',
  async (t) => {
    const server = await startTestServer({
      jobs: true,
      anomalyScanMs: 300,
      env: { WATCHLOG_ANOMALY_DEFAULTS: '{"brute_force":{"threshold":5}}' },
    });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token, 'shop');
    const { page, errors } = await openTab(t, server.url, { clock: true });
    await signIn(page, ADMIN, `/p/${projectId}/anomalies`);
    await page.getByText(/No alert yet/).waitFor();

    for (let i = 0; i < 5; i++)
      t.is(
        (
          await api(server.url, 'POST', '/v1/audit', {
            apiKey,
            body: sampleEvent({ identifier: 'mallory', status_code: 401 }),
          })
        ).status,
        202,
      );
    // Refreshed without a reload: once the scan has raised the alert, at the page's next refresh
    // (every 10 s: its clock is moved on by that).
    await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/audit/anomalies?project_id=${projectId}`, { token });
      return res.body.data.length > 0 ? true : undefined;
    }, 20_000);
    await page.clock.fastForward(10_000);
    const row = page.getByRole('table', { name: 'Alerts' }).getByRole('row').filter({ hasText: 'Brute force' });
    await row.waitFor({ timeout: 20_000 });
    t.regex(await row.innerText(), /Open/);
    t.regex(await row.innerText(), /identifier: mallory/);
    t.regex(await row.innerText(), /count: 5/);
    await screenshot(page, 'anomalies');

    const threshold = page.getByLabel('401 answers', { exact: true });
    t.is(await threshold.inputValue(), '5', 'the deployment default');
    await threshold.fill('7');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.reload();
    await page.getByLabel('401 answers', { exact: true }).waitFor();
    t.is(await page.getByLabel('401 answers', { exact: true }).inputValue(), '7', 'kept after a reload');
    const api7 = await api(server.url, 'GET', `/v1/projects/${projectId}/anomaly-settings`, { token });
    t.is(api7.body.brute_force.threshold, 7);

    await page.getByLabel('Error share (%)', { exact: true }).fill('150');
    await page.getByRole('button', { name: 'Save settings' }).click();
    const fieldError = page.locator('#an-error_rate-threshold_percent-error');
    await fieldError.waitFor();
    t.regex(await fieldError.innerText(), /100/, 'the rule, in words, next to the field');
    t.is(await page.getByLabel('Error share (%)', { exact: true }).getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'anomaly-settings');
    t.is(
      (await api(server.url, 'GET', `/v1/projects/${projectId}/anomaly-settings`, { token })).body.error_rate
        .threshold_percent,
      25,
      'nothing saved',
    );

    await page.getByRole('button', { name: 'Reset Brute force: 401 answers to default' }).click();
    await eventually(
      async () => ((await page.getByLabel('401 answers', { exact: true }).inputValue()) === '5' ? true : undefined),
      10_000,
    );
    t.is(
      (await api(server.url, 'GET', `/v1/projects/${projectId}/anomaly-settings`, { token })).body.brute_force
        .threshold,
      5,
    );
    t.deepEqual(errors, []);
  },
);

test(
  'users: an admin creates a member with one project; ' +
    'the member sees only it; a role change and a disable go through the UI',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const shop = await projectWithKey(server.url, token, 'shop');
    await projectWithKey(server.url, token, 'billing');
    const { page, errors } = await openTab(t, server.url);
    await signIn(page, ADMIN, '/users');
    await page.getByRole('table', { name: 'Users' }).waitFor();

    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('E-mail').fill('not an e-mail');
    await form.getByLabel('Initial password').fill('short');
    await form.getByRole('button', { name: 'Create user' }).click();
    await form.locator('#user-email-error').waitFor();
    await form.locator('#user-password-error').waitFor();
    await form.getByLabel('E-mail').fill('mia@example.com');
    await form.getByLabel('Initial password').fill('mia has a long password');
    await form.getByLabel('Role').selectOption('member');
    await form.getByLabel('shop').check();
    await form.getByRole('button', { name: 'Create user' }).click();
    const row = page.getByRole('table', { name: 'Users' }).getByRole('row').filter({ hasText: 'mia@example.com' });
    await row.waitFor();
    t.regex(await row.innerText(), /member\s+shop\s+Active/);
    await screenshot(page, 'users');

    const mia = await openTab(t, server.url);
    await signIn(mia.page, { email: 'mia@example.com', password: 'mia has a long password' }, '/projects');
    const options = await mia.page.getByLabel('Project').locator('option').allInnerTexts();
    t.deepEqual(
      options.filter((o) => !o.startsWith('Choose')),
      ['shop'],
    );
    await mia.page.goto('/users');
    await mia.page.getByText('Only admins manage users.').waitFor();
    t.deepEqual(mia.errors, []);

    await page.getByRole('button', { name: 'Edit mia@example.com' }).click();
    await page.getByRole('form', { name: 'Access of mia@example.com' }).getByLabel('Role').selectOption('auditor');
    await page.getByRole('button', { name: 'Save access' }).click();
    await eventually(async () => (/auditor/.test(await row.innerText()) ? true : undefined), 10_000);
    await page.getByRole('button', { name: 'Disable mia@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable mia@example.com?' });
    await dialog.getByRole('button', { name: 'Disable user' }).click();
    await eventually(async () => (/Disabled/.test(await row.innerText()) ? true : undefined), 10_000);
    t.is(
      (
        await api(server.url, 'POST', '/v1/auth/login', {
          body: { email: 'mia@example.com', password: 'mia has a long password' },
        })
      ).status,
      401,
    );
    t.is((await api(server.url, 'GET', '/v1/projects', { token })).status, 200);
    t.truthy(shop.projectId);
    t.deepEqual(errors, []);
  },
);
