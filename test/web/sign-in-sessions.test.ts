import test from 'ava';
import { ADMIN, api, login, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** Issue 35: the dashboard keeps its token in memory only and renews it through the refresh
 *  cookie; a session ended in one browser signs the other out within a token's lifetime. */

test('the token is in memory only; a reload and a second tab renew it through the cookie', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const { page, context, errors } = await openTab(t, server.url);
  await signIn(page, ADMIN, '/login');
  t.is(await page.evaluate('window.sessionStorage.length + window.localStorage.length'), 0, 'nothing stored');
  const cookies = await context.cookies();
  const refresh = cookies.find((c) => c.name === 'watchlog_refresh');
  t.like(refresh, { httpOnly: true, sameSite: 'Strict', path: '/v1/auth/refresh' });
  t.is(await page.evaluate('document.cookie'), '', 'not readable by scripts');
  await page.reload();
  await page.getByRole('button', { name: /^admin@example\.com/ }).waitFor();
  const second = await context.newPage();
  await second.goto('/projects');
  await second.getByRole('button', { name: /^admin@example\.com/ }).waitFor();
  // Both tabs renewed from one cookie in turn: the session stands, nothing was taken for a reuse.
  await page.reload();
  await page.getByRole('button', { name: /^admin@example\.com/ }).waitFor();
  const admin = await login(server.url);
  const sessions = await api(server.url, 'GET', '/v1/auth/sessions', { token: admin });
  t.is(sessions.body.filter((s: { kind: string }) => s.kind === 'cookie').length, 1);
  t.deepEqual(errors, []);
});

test('ending a session from another browser signs that browser out within one token lifetime', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_ACCESS_TOKEN_TTL_SECONDS: '60' } });
  t.teardown(() => server.stop());
  const one = await openTab(t, server.url);
  const other = await openTab(t, server.url);
  await signIn(other.page, ADMIN, '/login');
  await other.page.goto('/account');
  await other.page.getByRole('heading', { name: 'Sessions' }).waitFor();
  await signIn(one.page, ADMIN, '/login');
  await one.page.getByRole('button', { name: /^admin@example\.com/ }).click();
  await one.page.getByRole('menuitem', { name: 'Account and sessions' }).click();
  const rows = one.page.locator('section[aria-labelledby="sessions-heading"] tbody tr');
  await rows.nth(1).waitFor();
  t.is(await rows.count(), 2);
  await one.page.getByText('This session').waitFor();
  await screenshot(one.page, 'account-sessions');
  const started = Date.now();
  await one.page.getByRole('button', { name: /^End the session of/ }).click();
  await rows.nth(1).waitFor({ state: 'detached' });
  // The other browser, idle on its account page, is signed out by its next request or renewal.
  await other.page.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 65_000 });
  t.true(Date.now() - started < 61_000, `${Date.now() - started} ms`);
  await other.page.getByText(/Your session ended/).waitFor();
  await one.page.reload();
  await one.page.getByRole('heading', { name: 'Sessions' }).waitFor();

  await one.page.getByRole('button', { name: /^admin@example\.com/ }).click();
  await one.page.getByRole('menuitem', { name: 'Log out' }).click();
  await one.page.getByRole('button', { name: 'Sign in' }).waitFor();
  await one.page.goto('/projects');
  await one.page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.deepEqual(one.errors, []);
  t.deepEqual(other.errors, []);
});
