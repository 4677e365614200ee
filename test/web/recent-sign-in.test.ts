import test from 'ava';
import { base32Decode, totpCode } from '../../src/domain/totp.ts';
import { ADMIN, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** A session changes its user's second factors for 10 minutes after its sign-in: later, the
 *  security page says so and offers to sign in again, which brings the user back to it. The
 *  server's clock is the test's. */

const STEP_MS = 30_000;
let clockMs = Math.floor(Date.now() / STEP_MS) * STEP_MS + 1000;
const now = () => new Date(clockMs);

test('after 10 minutes the security page asks to sign in again before a change, and then makes it', async (t) => {
  const server = await startTestServer({ now });
  t.teardown(() => server.stop());
  const { page, errors } = await openTab(t, server.url);
  await signIn(page, ADMIN, '/security');
  await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await page.getByRole('img', { name: 'QR code of the key for your authenticator app' }).waitFor();
  const secret = base32Decode((await page.getByTestId('totp-secret').textContent()) ?? '')!;
  await page.getByLabel('Code from the app').fill(totpCode(secret, now()));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await page.getByRole('region', { name: 'Recovery codes' }).waitFor();

  clockMs += 21 * STEP_MS;
  await page.reload();
  await page.getByRole('button', { name: 'New recovery codes' }).click();
  await page
    .getByRole('alert')
    .filter({ hasText: /sign in again to change your second factors/ })
    .waitFor();
  await screenshot(page, 'security-sign-in-again');
  t.is(await page.getByRole('region', { name: 'Recovery codes' }).count(), 0);
  await page.getByRole('button', { name: 'Sign in again' }).click();

  await page.getByLabel('E-mail').fill(ADMIN.email);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  clockMs += STEP_MS;
  await page.getByLabel('Code from your authenticator app').fill(totpCode(secret, now()));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Sign-in security' }).waitFor();
  t.regex(page.url(), /\/security$/);
  await page.getByRole('button', { name: 'New recovery codes' }).click();
  await page.getByRole('region', { name: 'Recovery codes' }).waitFor();
  t.deepEqual(errors, []);
});
