import test, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { ADMIN, api, login, startTestServer, type TestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';
import { startIdp } from '../helpers/oidc-idp.ts';

/** Issue 35, single sign-on: a real OpenID Provider (oidc-provider) on 127.0.0.1, signed in
 *  through in Chromium: just-in-time users with roles from the `groups` claim; a tampered state,
 *  a replayed code and a disallowed domain refused, each recorded. */

const CALLBACK = /\/v1\/auth\/oidc\/corp\/callback\?/;
/** The provider's development pages ask for a web font of another host, which the test machine
 *  cannot resolve: not an error of watchlog's pages. */
const ours = (errors: string[]) => errors.filter((e) => !/ERR_NAME_NOT_RESOLVED/.test(e));

const ACCOUNTS = {
  ada: { email: 'ada@example.com', groups: ['watchlog-admins'] },
  mo: { email: 'mo@example.com', groups: ['staff', 'watchlog-readers'] },
  eve: { email: 'eve@elsewhere.org', groups: ['watchlog-admins'] },
};

const withIdp = async (t: ExecutionContext) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const idp = await startIdp([`${server.url}/v1/auth/oidc/corp/callback`], ACCOUNTS);
  t.teardown(() => idp.close());
  const admin = await login(server.url);
  const saved = await api(server.url, 'PUT', '/v1/settings/sso/corp', {
    token: admin,
    body: {
      name: 'Corp',
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
      scopes: ['openid', 'email', 'profile'],
      allowed_domains: ['example.com'],
      jit: true,
      claim: 'groups',
      mappings: [
        { value: 'watchlog-admins', role: 'admin', project_ids: [] },
        { value: 'watchlog-readers', role: 'auditor', project_ids: [] },
      ],
    },
  });
  t.is(saved.status, 200, JSON.stringify(saved.body));
  t.false(JSON.stringify(saved.body).includes(idp.clientSecret), 'the secret is never answered');
  return { server, idp, admin };
};

/** From the login page through the provider's login and consent forms. */
const throughProvider = async (page: Page, account: string, beforeCallback?: () => Promise<void>) => {
  await page.goto('/login');
  await page.getByRole('link', { name: 'Sign in with Corp' }).click();
  await page.locator('input[name="login"]').fill(account);
  await page.locator('input[name="password"]').fill('any password');
  await beforeCallback?.();
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
};

const refusals = async (server: TestServer, token: string) => {
  const query = `project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access&limit=100`;
  const rows = (await api(server.url, 'GET', `/v1/audit?${query}`, { token })).body.data as { id: string }[];
  const full = await Promise.all(
    rows.map(async (r) => (await api(server.url, 'GET', `/v1/audit/${r.id}`, { token })).body),
  );
  return full.filter((e: { path: string }) => e.path === '/v1/auth/oidc/corp/callback') as {
    status_code: number;
    request_body: { ok: boolean; reason?: string };
  }[];
};

test('sign in through the provider: an admin from the groups claim, no password; an auditor by mapping', async (t) => {
  const { server, admin } = await withIdp(t);
  const { page, errors } = await openTab(t, server.url);
  await throughProvider(page, 'ada');
  await page.getByRole('button', { name: /^ada@example\.com \(admin\)/ }).waitFor();
  t.regex(page.url(), /\/projects$/);
  await screenshot(page, 'sso-signed-in');
  const users = (await api(server.url, 'GET', '/v1/users', { token: admin })).body as {
    id: string;
    email: string;
    role: string;
  }[];
  const ada = users.find((u) => u.email === 'ada@example.com');
  t.like(ada, { role: 'admin' });
  const password = await api(server.url, 'POST', '/v1/auth/login', {
    body: { email: 'ada@example.com', password: '' },
  });
  t.is(password.status, 401);
  t.regex(password.body.error.message, /no password: sign in with single sign-on/);

  const second = await openTab(t, server.url);
  await throughProvider(second.page, 'mo');
  await second.page.getByRole('button', { name: /^mo@example\.com \(auditor\)/ }).waitFor();
  // The dashboard's sign-in through the provider is a cookie session, named by its method.
  const sessions = await api(server.url, 'GET', `/v1/users/${ada!.id}/sessions`, { token: admin });
  t.is(sessions.status, 200);
  t.like(sessions.body, [{ kind: 'cookie', method: 'oidc:corp' }]);
  const rows = await refusals(server, admin);
  t.true(rows.some((r) => r.request_body.ok && r.status_code === 200));
  t.deepEqual(ours(errors), []);
  t.deepEqual(ours(second.errors), []);
});

test('a tampered state, a replayed code and a disallowed domain are refused and recorded', async (t) => {
  const { server, admin, idp } = await withIdp(t);
  const { page, context } = await openTab(t, server.url);

  // The state coming back is not the one sent. Chromium does not route the redirects that lead
  // there, so the consent's answer is followed here (sharing the tab's cookies) and the browser
  // sent on with the state changed.
  const urls = { callback: '' };
  await page.route(
    (url) => url.href.startsWith(idp.issuer),
    async (route) => {
      if (!(route.request().postData() ?? '').includes('prompt=consent')) return route.continue();
      const consent = await route.fetch({ maxRedirects: 0 });
      const resumed = await page.request.get(new URL(consent.headers().location!, idp.issuer).href, {
        maxRedirects: 0,
      });
      const tampered = new URL(resumed.headers().location!);
      tampered.searchParams.set('state', 'tampered');
      return route.fulfill({ status: 303, headers: { location: tampered.toString() } });
    },
  );
  await throughProvider(page, 'ada');
  await page
    .getByRole('alert')
    .filter({ hasText: /Single sign-on refused:.*state/ })
    .waitFor();
  await page.unrouteAll();
  // Signed out at the provider too: its login form asks again.
  await context.clearCookies();

  // A code used once, shown again with the state it came with.
  page.on('request', (request) => {
    if (CALLBACK.test(request.url())) urls.callback = request.url();
  });
  let pending: Awaited<ReturnType<typeof context.cookies>>[number] | undefined;
  await throughProvider(page, 'ada', async () => {
    pending = (await context.cookies()).find((c) => c.name === 'watchlog_oidc');
  });
  await page.getByRole('button', { name: /^ada@example\.com/ }).waitFor();
  t.truthy(pending);
  // Signed out, so that the login page shows why the replays are refused.
  await context.clearCookies();
  await page.goto(urls.callback);
  await page
    .getByRole('alert')
    .filter({ hasText: /no sign-in in progress/ })
    .waitFor();
  await context.addCookies([pending!]);
  await page.goto(urls.callback);
  await page
    .getByRole('alert')
    .filter({ hasText: /invalid_grant/ })
    .waitFor();

  // A person of another domain.
  await context.clearCookies();
  await throughProvider(page, 'eve');
  await page
    .getByRole('alert')
    .filter({ hasText: /domain elsewhere\.org is not allowed/ })
    .waitFor();
  await screenshot(page, 'sso-refused');
  const users = (await api(server.url, 'GET', '/v1/users', { token: admin })).body as { email: string }[];
  t.false(users.some((u) => u.email === 'eve@elsewhere.org'));

  const rows = await refusals(server, admin);
  const reasons = rows.filter((r) => !r.request_body.ok).map((r) => r.request_body.reason ?? '');
  t.true(
    reasons.some((r) => /state/.test(r)),
    reasons.join(' | '),
  );
  t.true(reasons.some((r) => r.startsWith('no_state')));
  t.true(reasons.some((r) => /invalid_grant/.test(r)));
  t.true(reasons.some((r) => r.startsWith('domain_not_allowed')));
  t.true(rows.every((r) => r.request_body.ok || r.status_code === 401));
  t.is((await api(server.url, 'POST', '/v1/auth/login', { body: ADMIN })).status, 200);
});

test('admins add, change and remove a provider on the security page; the login page follows', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const idp = await startIdp([`${server.url}/v1/auth/oidc/corp/callback`], ACCOUNTS);
  t.teardown(() => idp.close());
  const admin = await login(server.url);
  const { page, errors } = await openTab(t, server.url);
  await signIn(page, ADMIN, '/login');
  await page.goto('/security');
  await page.getByRole('button', { name: 'Add a provider' }).click();
  const form = page.getByRole('form', { name: 'New provider' });
  await form.getByLabel('Id', { exact: true }).fill('corp');
  await form.getByText(`${server.url}/v1/auth/oidc/corp/callback`).waitFor();
  await form.getByLabel('Name', { exact: true }).fill('Corp');
  await form.getByLabel('Issuer').fill(idp.issuer);
  await form.getByLabel('Client id').fill(idp.clientId);
  await form.getByLabel('Client secret').fill(idp.clientSecret);
  await form.getByLabel('Allowed e-mail domains').fill('example.com, not a domain');
  await form.getByLabel('Role claim').fill('groups');
  await form.getByRole('button', { name: 'Add a mapping' }).click();
  await form.getByLabel('Claim value 1').fill('watchlog-admins');
  await form.getByLabel('Role 1').selectOption('admin');
  await form.getByRole('button', { name: 'Save provider' }).click();
  // The server's message for the bad domain, at its field; nothing saved.
  await page.locator('#sso-allowed_domains-error').waitFor();
  await screenshot(page, 'sso-provider-form');
  t.deepEqual((await api(server.url, 'GET', '/v1/settings/sso', { token: admin })).body, []);
  await form.getByLabel('Allowed e-mail domains').fill('example.com');
  await form.getByRole('button', { name: 'Save provider' }).click();
  const list = page.getByRole('list', { name: 'Single sign-on providers' });
  await list.getByText('Corp', { exact: true }).waitFor();
  const saved = await api(server.url, 'GET', '/v1/settings/sso', { token: admin });
  t.like(saved.body, [
    {
      id: 'corp',
      name: 'Corp',
      source: 'settings',
      scopes: ['openid', 'email', 'profile'],
      allowed_domains: ['example.com'],
      jit: true,
      claim: 'groups',
      mappings: [{ value: 'watchlog-admins', role: 'admin', project_ids: [] }],
    },
  ]);
  t.false(JSON.stringify(saved.body).includes(idp.clientSecret));

  // Renamed with the secret left empty: the saved secret is kept, so the code exchange works.
  await list.getByRole('button', { name: 'Edit Corp' }).click();
  const edit = page.getByRole('form', { name: 'Provider corp' });
  t.is(await edit.getByLabel('Client secret').inputValue(), '');
  await edit.getByLabel('Name', { exact: true }).fill('Corp SSO');
  await edit.getByRole('button', { name: 'Save provider' }).click();
  await list.getByText('Corp SSO', { exact: true }).waitFor();
  const other = await openTab(t, server.url);
  await throughProvider(other.page, 'ada');
  await other.page.getByRole('button', { name: /^ada@example\.com \(admin\)/ }).waitFor();
  await screenshot(page, 'sso-settings');

  page.once('dialog', (dialog) => void dialog.accept());
  await list.getByRole('button', { name: 'Remove Corp SSO' }).click();
  await page.getByText('No OpenID Connect provider yet').waitFor();
  const signedOut = await openTab(t, server.url);
  await signedOut.page.goto('/login');
  await signedOut.page.getByLabel('E-mail').waitFor();
  t.is(await signedOut.page.getByRole('link', { name: /Sign in with/ }).count(), 0);
  t.deepEqual(ours(errors), []);
  t.deepEqual(ours(other.errors), []);
});
