/** The README's screenshots: `watchlog demo` on a temporary data dir, signed in through the form,
 *  the overview and the monitors page captured at 1280×800 into docs/screenshots/.
 *  Run: npm run build && node --import tsx scripts/screenshots.ts */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = path.join(root, 'docs', 'screenshots');
const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-shots-'));
const child = spawn(process.execPath, [path.join(root, 'dist/src/main.js'), 'demo'], {
  env: {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    PORT: '0',
    WATCHLOG_DATA_DIR: dataDir,
    WATCHLOG_DEMO_EVENTS: '20000',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const ready = await new Promise<{ url: string; email: string; password: string }>((resolve, reject) => {
  let buffer = '';
  child.stdout.on('data', (d: Buffer) => {
    buffer += d.toString();
    const m = /open (\S+) and sign in as (\S+) with password (\S+)/.exec(buffer);
    if (m) resolve({ url: m[1]!, email: m[2]!, password: m[3]! });
  });
  child.on('exit', (code) => reject(new Error(`watchlog demo exited with ${code}`)));
});
const browser = await chromium.launch({
  executablePath: process.env.WATCHLOG_CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--disable-background-networking',
    '--disable-component-update',
  ],
});
try {
  const page = await (
    await browser.newContext({ baseURL: ready.url, viewport: { width: 1280, height: 800 } })
  ).newPage();
  await page.goto('/login');
  await page.getByLabel('E-mail').fill(ready.email);
  await page.getByLabel('Password').fill(ready.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Acme Shop' }).first().click();
  await page.getByRole('table', { name: 'Services' }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(out, 'overview.png'), fullPage: true });
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Monitors' }).click();
  await page
    .getByRole('table', { name: 'Monitors' })
    .getByRole('button', { name: /^History of/ })
    .first()
    .click();
  await page.getByRole('img', { name: /Response time/ }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: path.join(out, 'monitors.png') });
  process.stdout.write(`screenshots written to ${path.relative(root, out)}/\n`);
} finally {
  await browser.close();
  child.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
