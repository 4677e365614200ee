import test from 'ava';
import type { Page } from 'playwright-core';
import { ADMIN, startTestServer } from '../helpers/server.ts';
import { openTab, screenshot, signIn } from '../helpers/browser.ts';

/** Issue 35: passkeys registered and used in Chromium through the DevTools virtual authenticator
 *  (CTAP2, built in, resident keys, user verification). WebAuthn takes a domain as the relying
 *  party, never an address, so the tab opens the dashboard as http://localhost:4173, which the
 *  context relays to the test server on 127.0.0.1. */

const ORIGIN = 'http://localhost:4173';

/** Relays the tab's requests to the server; the last body sent to each path is kept. */
const relayTo = async (page: Page, server: string, sent: Map<string, string>) =>
  page.context().route(`${ORIGIN}/**`, async (route) => {
    const url = new URL(route.request().url());
    const body = route.request().postData();
    if (body !== null) sent.set(url.pathname, body);
    const response = await route.fetch({ url: server + url.pathname + url.search });
    await route.fulfill({ response });
  });

const userMenu = (page: Page) => page.getByRole('button', { name: /admin@example\.com/ });

const logOut = async (page: Page) => {
  await userMenu(page).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
};

test(
  'passkeys: register one (named, renamed), sign out, sign in with the passkey alone and as a second factor, ' +
    'remove it; a replay is refused by the server',
  async (t) => {
    const server = await startTestServer({
      // The relay is a proxy to another Host: the public URL is the origin the browser is on.
      env: { WATCHLOG_WEBAUTHN_RP_ID: 'localhost', WATCHLOG_WEBAUTHN_ORIGINS: ORIGIN, WATCHLOG_PUBLIC_URL: ORIGIN },
    });
    t.teardown(() => server.stop());
    const { page, errors } = await openTab(t, ORIGIN);
    const sent = new Map<string, string>();
    await relayTo(page, server.url, sent);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    await signIn(page, ADMIN, '/login');
    await userMenu(page).click();
    await page.getByRole('menuitem', { name: 'Sign-in security' }).click();
    await page.getByRole('heading', { name: 'Sign-in security' }).waitFor();
    await page.getByLabel('Passkey name').fill('laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    const codes = page.getByRole('region', { name: 'Recovery codes' });
    await codes.waitFor();
    t.is(await codes.getByRole('listitem').count(), 10, 'the first factor comes with ten recovery codes');
    await page.getByRole('list', { name: 'Passkeys' }).getByText('laptop', { exact: true }).waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    t.is(credentials.length, 1);
    t.true(credentials[0]!.isResidentCredential, 'a discoverable credential');
    t.is(credentials[0]!.rpId, 'localhost');

    page.once('dialog', (dialog) => dialog.accept('work laptop'));
    await page.getByRole('button', { name: 'Rename laptop' }).click();
    await page.getByRole('button', { name: 'Remove work laptop' }).waitFor();
    await screenshot(page, 'security');

    // The passkey alone: no e-mail, no password.
    await logOut(page);
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await userMenu(page).waitFor();
    t.regex(page.url(), /\/projects$/);

    // The password now asks for a second factor, which the passkey gives.
    await logOut(page);
    await page.getByLabel('E-mail').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('form', { name: 'Second factor' }).waitFor();
    await screenshot(page, 'login-second-factor');
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await userMenu(page).waitFor();
    const used = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    t.is(used.credentials[0]!.signCount, 3, 'its counter moved with the registration and each of two sign-ins');

    // A signed answer is taken once: the same request again is refused.
    const signedAnswer = sent.get('/v1/auth/passkey');
    t.truthy(signedAnswer);
    const replayed = await fetch(`${server.url}/v1/auth/passkey`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: signedAnswer,
    });
    t.is(replayed.status, 401);

    await page.goto('/security');
    await page.getByRole('button', { name: 'Remove work laptop' }).click();
    await page.getByText('No passkeys yet.').waitFor();
    await logOut(page);
    await signIn(page);
    await userMenu(page).waitFor();
    t.regex(page.url(), /\/projects$/, 'without a factor, the password alone signs in again');
    t.deepEqual(errors, []);
  },
);
