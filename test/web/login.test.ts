import test from 'ava';
import { ADMIN, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

test(
  'sign in: a wrong password is said in words; ' +
    'the right one opens All projects; a reload keeps the session; log out ends it',
  async (t) => {
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
    t.regex(
      page.url(),
      /\/p\/00000000-0000-4000-8000-000000000000\/events\?service_name=api$/,
      'back to the link that was opened',
    );
    t.is(await page.evaluate('window.localStorage.length'), 0, 'nothing in localStorage');
    await page.reload();
    await page.getByRole('button', { name: /admin@example\.com/ }).waitFor();

    await page.getByRole('button', { name: /admin@example\.com/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.goto('/projects');
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    t.deepEqual(errors, []);
  },
);

test(
  'keyboard only: sign in with Tab and Enter, open the user menu, change the password; ' +
    'the old one then fails and the new one works',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const { page, errors } = await openTab(t, server.url);
    await page.goto('/login');
    await page.getByLabel('E-mail').waitFor();
    t.true(
      await page.getByLabel('E-mail').evaluate((el) => el === el.ownerDocument.activeElement),
      'the e-mail field has the focus',
    );
    await page.keyboard.type(ADMIN.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    const menu = page.getByRole('button', { name: /admin@example\.com/ });
    await menu.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Account and sessions' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await screenshot(page, 'account');
    await page.getByLabel('Current password').fill('wrong current one');
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('alert').first().waitFor();
    t.regex(await page.getByRole('alert').first().innerText(), /current/i, "the server's reason, in words");
    await page.getByLabel('Current password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Sign in with the new one.').waitFor();
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('wrong e-mail or password').waitFor();
    await signIn(page, { email: ADMIN.email, password: 'a brand new password' });
    t.regex(page.url(), /\/projects$/);
    t.deepEqual(errors, []);
  },
);
