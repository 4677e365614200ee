import test from 'ava';
import { ADMIN, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

test('sign in: a wrong password is said in words; the right one opens All projects; a reload keeps the session; log out ends it', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const { page, errors } = await openTab(t, server.url);
  await page.goto('/p/00000000-0000-4000-8000-000000000000/events?service_name=api');
  await page.getByLabel('E-mail').fill(ADMIN.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'wrong e-mail or password' }).waitFor();
  await screenshot(page, 'login');

  await signIn(page);
  t.regex(page.url(), /\/p\/00000000-0000-4000-8000-000000000000\/events\?service_name=api$/, 'back to the link that was opened');
  t.is(await page.evaluate(() => window.localStorage.length), 0, 'nothing in localStorage');
  await page.reload();
  await page.getByRole('button', { name: /admin@example\.com/ }).waitFor();

  await page.getByRole('button', { name: /admin@example\.com/ }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await page.goto('/projects');
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  t.deepEqual(errors, []);
});
