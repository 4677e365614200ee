import test from 'ava';
import { httpReceiver } from '../helpers/sink-receivers.ts';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** The settings page's log sinks: added through the form (errors at their fields), forwarding to a
 *  real receiver on 127.0.0.1 with the count and lag shown, degraded with the receiver's error when
 *  it goes down, paused, resumed and deleted; a member sees them without the controls. */

test('log sinks in the settings: add, forward, degraded with its error, pause, resume, edit, delete', async (t) => {
  const server = await startTestServer({
    notifications: true,
    env: {
      WATCHLOG_SINK_BACKOFF_MIN_MS: '20',
      WATCHLOG_SINK_BACKOFF_MAX_MS: '100',
      WATCHLOG_SINK_DEGRADED_AFTER: '2',
    },
  });
  const receiver = await httpReceiver();
  t.teardown(async () => {
    await server.stop();
    await receiver.close();
  });
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token, 'shop');
  const ingest = async (n: number) => {
    const res = await api(server.url, 'POST', '/v1/audit/batch', {
      apiKey,
      body: Array.from({ length: n }, (_, i) => sampleEvent({ path: `/orders/${i}` })),
    });
    t.is(res.status, 202);
  };
  const { page, errors } = await openTab(t, server.url);
  await signIn(page, ADMIN, `/p/${projectId}/settings?tab=sinks`);
  await page.getByText('No log sink yet.').waitFor();
  const form = page.getByRole('form', { name: 'New log sink' });
  const add = () => form.getByRole('button', { name: 'Add the sink' }).click();

  // Splunk's fields, one of them left out: the server names it at its field.
  await form.getByLabel('Type', { exact: true }).selectOption('splunk_hec');
  await form.getByLabel('URL', { exact: true }).fill(`${receiver.url}/services/collector/event`);
  await add();
  await form.locator('#sink-token-error').waitFor();

  // An HTTP sink with a secret, for orders only.
  await form.getByLabel('Type', { exact: true }).selectOption('http');
  await form.getByLabel('Name (optional)').fill('Compliance SIEM');
  await form.getByLabel('URL', { exact: true }).fill(`${receiver.url}/in`);
  await form.getByLabel('Secret (optional)').fill('a shared secret');
  await form.getByLabel('Services (optional)').fill('orders');
  await add();
  const table = page.getByRole('table', { name: 'Log sinks' });
  const row = table.getByRole('row').filter({ hasText: 'Compliance SIEM' });
  await row.waitFor();
  const [created] = (await api(server.url, 'GET', `/v1/projects/${projectId}/sinks`, { token })).body as Array<{
    id: string;
    filter: unknown;
    settings: Record<string, unknown>;
  }>;
  t.deepEqual(created!.filter, { service_name: ['orders'] });
  t.is(created!.settings.secret, '********');

  await ingest(30);
  await eventually(async () => (receiver.requests.length > 0 ? true : undefined), 10_000);
  // The page refreshes itself: the count and the lag as the sink has them.
  await row.getByText('30', { exact: true }).waitFor({ timeout: 20_000 });
  await row.getByText('up to date').waitFor();
  t.regex(await row.innerText(), /active/);
  await screenshot(page, 'settings-sinks');

  // The receiver goes down: after two failed tries the sink is degraded, with the error.
  await receiver.down();
  await ingest(5);
  await row.getByText('degraded').waitFor({ timeout: 20_000 });
  await row.getByText(/^5 records, [\d.]+ s behind$/).waitFor({ timeout: 20_000 });
  t.regex(await row.innerText(), /ECONNREFUSED|refused/i);
  await screenshot(page, 'settings-sinks-degraded');
  await receiver.up();
  await row.getByText('active').waitFor({ timeout: 20_000 });

  await row.getByRole('button', { name: 'Pause Compliance SIEM' }).click();
  await row.getByText('paused').waitFor();
  await ingest(3);
  await row.getByRole('button', { name: 'Resume Compliance SIEM' }).click();
  await row.getByText('up to date').waitFor({ timeout: 20_000 });
  const sink = `/v1/projects/${projectId}/sinks/${created!.id}`;
  await eventually(async () =>
    (await api(server.url, 'GET', sink, { token })).body.forwarded_total === 38 ? true : undefined,
  );
  await row.getByText('38', { exact: true }).waitFor({ timeout: 20_000 });

  // What it forwards, changed where it stands: its count and checkpoint stay.
  await row.getByRole('button', { name: 'Edit Compliance SIEM' }).click();
  const edit = page.getByRole('form', { name: 'Edit Compliance SIEM' });
  t.is(await edit.getByLabel('Services (optional)').inputValue(), 'orders');
  await edit.getByLabel('http', { exact: true }).check();
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  t.like((await api(server.url, 'GET', sink, { token })).body, {
    name: 'Compliance SIEM',
    filter: { event_type: ['http'], service_name: ['orders'] },
    forwarded_total: 38,
  });

  // A member reads the sinks, without the controls or the form.
  const member = await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'mo@example.com', password: 'mo-password-1', role: 'member', project_ids: [projectId] },
  });
  t.is(member.status, 201);
  const other = await openTab(t, server.url);
  await signIn(
    other.page,
    { email: 'mo@example.com', password: 'mo-password-1' },
    `/p/${projectId}/settings?tab=sinks`,
  );
  await other.page.getByRole('table', { name: 'Log sinks' }).getByText('Compliance SIEM').waitFor();
  t.is(await other.page.getByRole('button', { name: /Pause|Edit|Delete/ }).count(), 0);
  t.is(await other.page.getByRole('form', { name: 'New log sink' }).count(), 0);

  await row.getByRole('button', { name: 'Delete Compliance SIEM' }).click();
  await page.getByRole('button', { name: 'Delete the sink' }).click();
  await page.getByText('No log sink yet.').waitFor();
  t.deepEqual(errors, []);
  t.deepEqual(other.errors, []);
});
