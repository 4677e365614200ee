import test from 'ava';
import type { Page } from 'playwright-core';
import { base32Decode, totpCode } from '../../src/domain/totp.ts';
import { ADMIN, api, eventually, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** Issue 35 in the dashboard: an authenticator app enrolled from its QR code's page, the login's
 *  second-factor step, and the policy sending a member to enrol before they are signed in. The
 *  server's clock is the test's, so each sign-in gets a code of a step not used before. */

const STEP_MS = 30_000;
let clockMs = Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000;
const now = () => new Date(clockMs);

const typePassword = async (page: Page, email: string, password: string) => {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
};

/** Sets an app up on the open page (the security page, or the login's enrolment step). */
const enrolApp = async (page: Page) => {
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const qr = page.getByRole('img', { name: 'QR code of the key for your authenticator app' });
  await qr.waitFor();
  const secret = base32Decode((await page.getByTestId('totp-secret').textContent()) ?? '')!;
  const src = await qr.getAttribute('src');
  await page.getByLabel('Code from the app').fill(totpCode(secret, now()));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('region', { name: 'Recovery codes' }).waitFor();
  return { secret, qr: src };
};

test(
  'an authenticator app from the security page; the login asks for its code; a recovery code works too; ' +
    'the policy sends a member to enrol, which signs them in',
  async (t) => {
    const server = await startTestServer({ now });
    t.teardown(() => server.stop());
    const { page, errors } = await openTab(t, server.url);
    await signIn(page, ADMIN, '/security');
    await page.getByRole('heading', { name: 'Sign-in security' }).waitFor();
    const { secret, qr } = await enrolApp(page);
    t.regex(qr ?? '', /^data:image\/svg\+xml;base64,/);
    const codes = await page.getByRole('region', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
    t.is(codes.length, 10);
    await screenshot(page, 'security-totp');

    await page.getByRole('button', { name: /admin@example\.com/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    clockMs += STEP_MS;
    await typePassword(page, ADMIN.email, ADMIN.password);
    await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: /admin@example\.com/ }).waitFor();

    await page.getByRole('button', { name: /admin@example\.com/ }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await typePassword(page, ADMIN.email, ADMIN.password);
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('button', { name: /admin@example\.com/ }).waitFor();

    // The admin requires a second factor of everyone.
    await page.goto('/security');
    await page.getByLabel('Who must have a second factor').selectOption('everyone');
    const token = await adminToken();
    await eventually(async () => {
      const policy = await api(server.url, 'GET', '/v1/settings/second-factor', { token });
      return policy.body.require === 'everyone' ? true : undefined;
    });
    await page.reload();
    await page.getByText('Your account must keep a second factor.').waitFor();

    const created = await api(server.url, 'POST', '/v1/users', {
      token,
      body: { email: 'mia@example.com', password: 'mia password 1', role: 'member', project_ids: [] },
    });
    t.is(created.status, 201);
    const member = await openTab(t, server.url);
    await member.page.goto('/login');
    await typePassword(member.page, 'mia@example.com', 'mia password 1');
    await member.page.getByRole('region', { name: 'Enrol a second factor' }).waitFor();
    await screenshot(member.page, 'login-enrol');
    clockMs += STEP_MS;
    await enrolApp(member.page);
    await member.page.getByRole('button', { name: 'Continue' }).click();
    await member.page.getByRole('button', { name: /mia@example\.com/ }).waitFor();

    // Mia lost her phone: the admin resets her factors on the users page, and the policy sends her
    // to enrol again after the password.
    await page.goto('/users');
    await page.getByRole('button', { name: 'Reset the second factors of mia@example.com' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reset the second factors of mia@example.com?' });
    await dialog.getByRole('button', { name: 'Reset second factors' }).click();
    await dialog.waitFor({ state: 'detached' });
    await member.page.getByRole('button', { name: /mia@example\.com/ }).click();
    await member.page.getByRole('menuitem', { name: 'Log out' }).click();
    await typePassword(member.page, 'mia@example.com', 'mia password 1');
    await member.page.getByRole('region', { name: 'Enrol a second factor' }).waitFor();
    t.deepEqual(errors, []);
    t.deepEqual(member.errors, []);

    /** A token for the admin through the API, with the next step's code. */
    async function adminToken() {
      clockMs += STEP_MS;
      const step = await api(server.url, 'POST', '/v1/auth/login', { body: ADMIN });
      const done = await api(server.url, 'POST', '/v1/auth/second-factor', {
        body: { challenge_token: step.body.challenge_token, totp_code: totpCode(secret, now()) },
      });
      return done.body.token as string;
    }
  },
);
