import test from 'ava';
import { recordCheck } from '../../src/commands/monitors.ts';
import { serverWithPushService, subscribe } from '../helpers/push-service.ts';
import { ADMIN, api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

test(
  'API keys: created through the UI and shown once, ingest with it works; ' +
    'revoked through a dialog, ingest is then 401',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token, 'shop');
    const { page, context, errors } = await openTab(t, server.url);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, ADMIN, `/p/${projectId}/settings`);
    await screenshot(page, 'settings-keys');

    await page.getByRole('form', { name: 'New API key' }).getByLabel('Name').fill('checkout backend');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByLabel('The new API key');
    await shown.waitFor();
    const key = (await shown.innerText()).trim();
    t.regex(key, /^\S{20,}$/);
    t.true((await page.getByText(/shown only this once/).count()) > 0);
    t.true((await page.locator('pre').innerText()).includes(`x-api-key: ${key}`), 'the curl line carries the key');
    await page.getByRole('button', { name: 'Copy the API key' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    t.is(await page.evaluate('navigator.clipboard.readText()'), key);
    await screenshot(page, 'settings-key-created');
    await page.getByRole('button', { name: 'Done, I have copied it' }).click();
    await page.getByLabel('The new API key').waitFor({ state: 'detached' });
    t.false((await page.content()).includes(key), 'the key is nowhere in the page any more');
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'checkout backend' });
    t.true((await row.innerText()).includes(key.slice(0, 8)), 'the list shows its prefix');

    t.is((await api(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent() })).status, 202);

    // Restricted in place to a web site's origin, with a rate: the server's message at the field first.
    await row.getByRole('button', { name: 'Restrict checkout backend' }).click();
    const restrict = page.getByRole('form', { name: 'Restrictions of checkout backend' });
    await restrict.getByLabel('Allowed origins').fill('https://shop.example.com\nshop.example.com/path');
    await restrict.getByLabel('Rate limit (events per second)').fill('500');
    await restrict.getByRole('button', { name: 'Save restrictions' }).click();
    await restrict.getByRole('alert').filter({ hasText: 'line 2: must be an origin' }).first().waitFor();
    await restrict.getByLabel('Allowed origins').fill('https://shop.example.com');
    await restrict.getByRole('button', { name: 'Save restrictions' }).click();
    await restrict.waitFor({ state: 'detached' });
    await eventually(
      async () =>
        /https:\/\/shop\.example\.com/.test(await row.innerText()) && /500\/s/.test(await row.innerText())
          ? true
          : undefined,
      10_000,
    );
    await screenshot(page, 'settings-key-restricted');
    await eventually(
      async () =>
        (
          await api(server.url, 'POST', '/v1/audit', {
            apiKey: key,
            body: sampleEvent(),
            headers: { origin: 'https://other.example.net' },
          })
        ).status === 403
          ? true
          : undefined,
      5_000,
    );
    t.is(
      (
        await api(server.url, 'POST', '/v1/audit', {
          apiKey: key,
          body: sampleEvent(),
          headers: { origin: 'https://shop.example.com' },
        })
      ).status,
      202,
    );

    await row.getByRole('button', { name: 'Revoke checkout backend' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke the key checkout backend?' });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await eventually(async () => (/Revoked/.test(await row.innerText()) ? true : undefined), 10_000);
    await eventually(
      async () =>
        (await api(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent() })).status === 401
          ? true
          : undefined,
      5_000,
    );
    t.deepEqual(errors, []);
  },
);

const SCOPES_TEST =
  'API keys: scopes and expiry set through the UI; the list shows them and when the key was last used';
test(SCOPES_TEST, async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'shop');
  const { page, errors } = await openTab(t, server.url);
  await signIn(page, ADMIN, `/p/${projectId}/settings`);
  const form = page.getByRole('form', { name: 'New API key' });
  await form.getByLabel('Name').fill('reporting');
  await form.getByRole('checkbox', { name: /^ingest:/ }).uncheck();
  await form.getByRole('button', { name: 'Create key' }).click();
  await form.getByRole('alert').filter({ hasText: 'non-empty list of scopes' }).waitFor();
  await form.getByRole('checkbox', { name: /^read:/ }).check();
  await form.getByLabel('Expires').fill(`${new Date().getFullYear() + 1}-06-01T12:00`);
  await form.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByLabel('The new API key');
  await shown.waitFor();
  const key = (await shown.innerText()).trim();
  await page.getByRole('button', { name: 'Done, I have copied it' }).click();
  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'reporting' });
  const cells = async () => (await row.getByRole('cell').allInnerTexts()).map((c) => c.trim());
  t.like(await cells(), { 2: 'read', 4: 'never' });
  t.regex((await cells())[3]!, new RegExp(String(new Date().getFullYear() + 1)), 'its expiry');
  const keys = await api(server.url, 'GET', `/v1/projects/${projectId}/api-keys`, { token });
  const listed = keys.body.find((k: { name: string }) => k.name === 'reporting');
  t.is(new Date(listed.expires_at).getFullYear(), new Date().getFullYear() + 1);

  t.is((await api(server.url, 'GET', `/v1/audit?project_id=${projectId}`, { apiKey: key })).status, 200);
  const ingest = await api(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent() });
  t.is(ingest.status, 403);
  t.is(ingest.body.error.required_scope, 'ingest');
  await eventually(async () => {
    await page.reload();
    return (await cells())[4] !== 'never' ? true : undefined;
  }, 10_000);
  await screenshot(page, 'settings-key-scopes');

  await row.getByRole('button', { name: 'Restrict reporting' }).click();
  const edit = page.getByRole('form', { name: 'Restrictions of reporting' });
  t.true(await edit.getByRole('checkbox', { name: /^read:/ }).isChecked());
  await edit.getByRole('checkbox', { name: /^ingest:/ }).check();
  await edit.getByLabel('Expires').fill('');
  await edit.getByRole('button', { name: 'Save restrictions' }).click();
  await edit.waitFor({ state: 'detached' });
  await eventually(async () => ((await cells())[2] === 'ingest, read' ? true : undefined), 10_000);
  t.is((await cells())[3], 'never');
  t.deepEqual(errors, []);
});

test(
  'channels and masking: a webhook added through the form (its error at the field first), deactivated; ' +
    'a masking key saved applies to ingest',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token, 'shop');
    const { page, errors } = await openTab(t, server.url);
    await signIn(page, ADMIN, `/p/${projectId}/settings?tab=channels`);
    await page.getByText(/No channel yet/).waitFor();
    const form = page.getByRole('form', { name: 'New channel' });
    await form.getByLabel('URL').fill('not a url');
    await form.getByRole('button', { name: 'Add channel' }).click();
    await form.locator('#ch-url-error').waitFor();
    await form.getByLabel('URL').fill('http://127.0.0.1:9/hook');
    await form.getByLabel('Secret (optional)').fill('a webhook secret');
    await form.getByLabel('anomaly alerts').check();
    await form.getByRole('button', { name: 'Add channel' }).click();
    const row = page
      .getByRole('table', { name: 'Notification channels' })
      .getByRole('row')
      .filter({ hasText: 'http://127.0.0.1:9/hook' });
    await row.waitFor();
    t.regex(await row.innerText(), /Webhook \(signed\)[\s\S]*monitor DOWN and UP, anomaly alerts[\s\S]*Active/);
    await row.getByRole('button', { name: 'Deactivate http://127.0.0.1:9/hook' }).click();
    await eventually(async () => (/Inactive/.test(await row.innerText()) ? true : undefined), 10_000);
    await screenshot(page, 'settings-channels');

    await page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Masking' }).click();
    await page.getByLabel('Extra secret key names (one per line)').fill('internal_ref\n-_-');
    await page.getByRole('button', { name: 'Save masking rules' }).click();
    const keyError = page.locator('#mask-keys-error');
    await keyError.waitFor();
    t.regex(await keyError.innerText(), /line 2/);
    await page.getByLabel('Extra secret key names (one per line)').fill('internal_ref');
    await page.getByRole('button', { name: 'Save masking rules' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    await screenshot(page, 'settings-masking');
    const masked = await eventually(async () => {
      const { body } = await api(server.url, 'POST', '/v1/audit', {
        apiKey,
        body: sampleEvent({ request_body: { internal_ref: 'R-123' } }),
      });
      const stored = await eventually(async () => {
        const res = await api(server.url, 'GET', `/v1/audit/${body.id}`, { token });
        return res.status === 200 ? res.body : undefined;
      });
      return stored.request_body.internal_ref !== 'R-123' ? stored : undefined;
    }, 10_000);
    t.is(masked.request_body.internal_ref, '********');
    t.deepEqual(errors, []);
  },
);

test(
  'Web Push: "Notify this browser" subscribes through the service worker and makes a channel; ' +
    'a DOWN monitor is pushed, encrypted, to that subscription',
  async (t) => {
    const { server, service, token } = await serverWithPushService(t);
    const { projectId } = await projectWithKey(server.url, token, 'shop');
    const browserSide = await subscribe(service, server.runtime.vapid.publicKey);
    const { page, context, errors } = await openTab(t, server.url);
    await context.grantPermissions(['notifications']);
    // The browser's push service is web-push-testing: subscribe() answers its subscription, so the
    // server's encrypted push goes where the test can decrypt it.
    // A string, not a function: tsx's transform would add helpers the page does not have.
    await page.addInitScript(`(() => {
    const sub = ${JSON.stringify(browserSide.subscription)};
    const fake = {
      endpoint: sub.endpoint, expirationTime: null, keys: sub.keys,
      toJSON: () => ({ endpoint: sub.endpoint, expirationTime: null, keys: sub.keys }),
    };
    PushManager.prototype.subscribe = async () => fake;
    PushManager.prototype.getSubscription = async () => null;
  })();`);
    await signIn(page, ADMIN, `/p/${projectId}/settings?tab=channels`);
    await page.getByRole('button', { name: 'Notify this browser' }).click();
    await page.getByText('This browser will be notified.').waitFor();
    const channels = (await api(server.url, 'GET', `/v1/channels?project_id=${projectId}`, { token })).body as Array<{
      type: string;
      url: string;
      events: string[];
    }>;
    t.like(
      channels.find((c) => c.type === 'webpush'),
      { url: browserSide.subscription.endpoint, events: ['healthcheck', 'alert'] },
    );
    t.true(
      (await page.evaluate(
        'navigator.serviceWorker.getRegistration().then((r) => r !== undefined && r.active !== null)',
      )) as boolean,
      'the service worker is registered',
    );

    const monitor = (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: { project_id: projectId, name: 'orders', url: 'http://127.0.0.1:9/', enabled: false },
      })
    ).body;
    const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
    for (const [i, ok] of [true, false, false].entries()) {
      await recordCheck(
        server.runtime.commands,
        monitor.id,
        { checked_at: new Date(Date.now() + i * 1000).toISOString(), ok, response_ms: 5, status_code: ok ? 200 : 503 },
        ctx,
      );
    }
    const [message] = await eventually(async () => {
      const m = await browserSide.messages();
      return m.length > 0 ? m : undefined;
    }, 15_000);
    t.like(JSON.parse(message!), {
      type: 'monitor.down',
      monitor: { name: 'orders' },
      status: 'DOWN',
      project_id: projectId,
    });
    t.deepEqual(errors, []);
  },
);
