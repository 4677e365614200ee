import test, { type ExecutionContext } from 'ava';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN } from './server.ts';

/** Debian's chromium (`.ci/run` installs it with apt-get); never a downloaded browser. */
export const CHROMIUM = process.env.WATCHLOG_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
];

/** Screenshots of each screen land here (gitignored), for people and for the README. */
export const ARTIFACTS = path.resolve('test-artifacts', 'screens');

let shared: Promise<Browser> | null = null;
/** One browser per test file (its tests get contexts of their own), closed after its tests. */
export const browser = (): Promise<Browser> => {
  shared ??= chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  return shared;
};
// Declared while the importing test file loads, so every browser test file closes its browser.
test.after.always(async () => {
  if (shared !== null) await (await shared).close();
});

export interface Tab {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A fresh browser context (no shared storage) on the server, closed at teardown. Console errors
 *  and failed page scripts are collected: a CSP violation or an exception fails the test that
 *  calls `t.deepEqual(tab.errors, [])`. With `clock`, the page's clock is one the test can move
 *  on (`page.clock.fastForward`): time flows as usual, and a jump fires the timers due in it, such
 *  as a page's next refresh, without waiting for it. */
export const openTab = async (
  t: ExecutionContext,
  baseURL: string,
  { width = 1280, height = 800, dark = false, clock = false } = {},
): Promise<Tab> => {
  const context = await (await browser()).newContext({
    baseURL,
    viewport: { width, height },
    colorScheme: dark ? 'dark' : 'light',
    acceptDownloads: true,
  });
  t.teardown(() => context.close());
  const page = await context.newPage();
  if (clock) await page.clock.install();
  // Generous: under a full test run the 2 cores also run every other suite, and login's scrypt is slow by design.
  page.setDefaultTimeout(30_000);
  const errors: string[] = [];
  page.on('console', (m) => {
    // A 4xx the page asked for (a wrong password, a validation error) is shown to the user and
    // logged by the browser as a failed resource: not a page error.
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text()))
      errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, errors };
};

export const screenshot = async (page: Page, name: string) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
};

/** Signs in through the form, as a person does; `at` first opens that page (else the page open). */
export const signIn = async (page: Page, { email, password } = ADMIN, at?: string) => {
  if (at !== undefined) await page.goto(at);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The user menu's button starts with the e-mail (other buttons, e.g. "Edit <email>", only contain it).
  await page.getByRole('button', { name: new RegExp(`^${email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }).waitFor();
};
