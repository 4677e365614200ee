import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { renderAtom } from '../../../src/http/public/atom.ts';
import { certificateBadge, renderBadge } from '../../../src/http/public/badge.ts';
import { historyOf } from '../../../src/http/public/history-model.ts';
import { renderHistoryPage } from '../../../src/http/public/html.ts';
import { publicStatusOf } from '../../../src/http/public/status-model.ts';
import { browser, openTab, screenshot } from '../../helpers/browser.ts';
import { ids, incident, input, maintenance, monitors } from './fixtures.ts';
import { type PageServer, servePage } from './page-server.ts';

/** The status page in Chromium as a reader gets it: under its CSP, on a phone, in dark mode,
 *  without JavaScript, and live (the script's conditional requests, its swap of <main>, its
 *  back-off and its pause while hidden). */

const incidents = [
  incident('1c000000-0000-4000-8000-000000000001', { title: 'Slow API responses', impact: 'minor' }),
  incident('1c000000-0000-4000-8000-000000000002', {
    title: 'Database failover',
    created_at: '2026-09-05T10:00:00.000Z',
    status: 'resolved',
    resolved_at: '2026-09-05T12:00:00.000Z',
    monitor_ids: [ids.db],
  }),
];
const data = input({
  incidents,
  maintenances: [maintenance('3a000000-0000-4000-8000-000000000001')],
  baseUrl: null,
});
const status = publicStatusOf(data);
const history = renderHistoryPage(historyOf({ ...data, incidents, pageNumber: 1, limit: 20 }));
const worse = publicStatusOf({
  ...data,
  monitors: monitors().map((m) => (m.id === ids.api ? { ...m, status: 'DOWN' as const } : m)),
});

const serve = async (t: ExecutionContext): Promise<PageServer> => {
  const server = await servePage(status, history);
  t.teardown(() => server.close());
  return server;
};

const until = async (check: () => boolean, what: string, ms = 8000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** Page-side code is given as text: it runs in the browser, whose types this project's
 *  compiler does not load (and tsx's helpers would not be there). */
const shownDays = (page: Page) =>
  page.evaluate<number>(
    "[...document.querySelector('.bars').children].filter((li) => getComputedStyle(li).display !== 'none').length",
  );

test('a 375 px phone, light and dark: no sideways scroll, the last 30 days, nothing the CSP refuses', async (t) => {
  const server = await serve(t);
  const backgrounds: string[] = [];
  for (const dark of [false, true]) {
    const { page, errors } = await openTab(t, server.url, { width: 375, height: 812, dark });
    await page.goto('/status/acme');
    await page.getByRole('heading', { name: 'Degraded service' }).waitFor();
    t.true(await page.evaluate('document.documentElement.scrollWidth <= 375'));
    t.is(await shownDays(page), 30);
    t.is(await page.locator('.legend__near').first().textContent(), '30 days ago');
    backgrounds.push(await page.evaluate<string>('getComputedStyle(document.body).backgroundColor'));
    await screenshot(page, `status-page-phone${dark ? '-dark' : ''}`);
    t.deepEqual(errors, []);
  }
  t.not(backgrounds[0], backgrounds[1]);
  const { page, errors } = await openTab(t, server.url);
  await page.goto('/status/acme');
  t.is(await shownDays(page), 90);
  await screenshot(page, 'status-page-wide');
  await page.goto('/status/acme/history');
  await page.getByRole('heading', { name: 'Acme: incident history' }).waitFor();
  t.deepEqual(errors, []);
});

test('without JavaScript the page is whole, its times in UTC', async (t) => {
  const server = await serve(t);
  const context = await (await browser()).newContext({
    javaScriptEnabled: false,
    viewport: { width: 375, height: 812 },
  });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${server.url}/status/acme`);
  t.is(await page.locator('[data-banner]').textContent(), 'Degraded service');
  t.is(
    await page
      .locator('.monitor__name')
      .allTextContents()
      .then((n) => n.join(', ')),
    'API, Website, Database',
  );
  t.regex((await page.locator('.banner time').textContent()) ?? '', /UTC$/);
  await page.getByText('1 update').click();
  t.true(await page.getByText('We are looking into it.').last().isVisible());
});

test('live: 304s while nothing changes; a change is swapped in and announced, focus and scroll kept', async (t) => {
  const server = await serve(t);
  const { page, errors } = await openTab(t, server.url, { width: 1280, height: 500 });
  await page.goto('/status/acme');
  await until(() => server.requests.notModified >= 2, 'two 304s');
  const link = page.locator('.more a');
  await link.focus();
  const scrolled = await page.evaluate<number>('window.scrollY');
  t.true(scrolled > 0);
  const before = await page.locator('main').getAttribute('data-version');
  server.set(worse);
  await page.getByRole('heading', { name: 'Partial outage' }).waitFor({ timeout: 8000 });
  t.not(await page.locator('main').getAttribute('data-version'), before);
  t.is(await page.locator('#live').textContent(), 'Status changed: Partial outage');
  t.is(await page.evaluate('document.activeElement.textContent'), 'Incident history');
  t.is(await page.evaluate('window.scrollY'), scrolled);
  t.is(await page.title(), 'Acme: Partial outage');
  // Times stay in the reader's zone (and words) after a swap, not the server's.
  t.not(await page.locator('.banner time').textContent(), '10 Sep 2026, 10:00 UTC');
  t.deepEqual(errors, []);
});

test('live: a hidden tab asks nothing; shown again, it asks at once', async (t) => {
  const server = await serve(t);
  const { page } = await openTab(t, server.url);
  await page.goto('/status/acme');
  await until(() => server.requests.page >= 2, 'a refresh');
  const visibility = (state: 'hidden' | 'visible') =>
    page.evaluate(
      `Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${state}' });` +
        "document.dispatchEvent(new Event('visibilitychange'));",
    );
  await visibility('hidden');
  await new Promise((r) => setTimeout(r, 300));
  const asked = server.requests.page;
  await new Promise((r) => setTimeout(r, 3500));
  t.is(server.requests.page, asked);
  await visibility('visible');
  await until(() => server.requests.page > asked, 'a request once visible', 3000);
  t.pass();
});

test('live: failures back off, and success brings the pace back', async (t) => {
  const server = await serve(t);
  const { page } = await openTab(t, server.url, { clock: true });
  // The page's time stands still but for runFor: each wait is measured, not raced. Paused a
  // minute ahead: the clock has run since the tab opened, and pausing in its past is an error.
  await page.clock.pauseAt(new Date(Date.now() + 60_000));
  await page.goto('/status/acme');
  server.fail = true;
  const STEP = 250;
  /** The page's time until its next request, moved on a step at a time: a step runs only once
   *  the last answer has been handled (or a step later), so a slow machine measures no less. */
  const nextWait = async () => {
    const before = server.requests.page;
    let waited = 0;
    while (server.requests.page === before) {
      if (waited > 70_000) throw new Error('no request within a minute of page time');
      await page.clock.runFor(STEP);
      waited += STEP;
      await new Promise((r) => setTimeout(r, 40));
    }
    return waited;
  };
  const within = (wait: number, low: number, high: number, what: string) =>
    t.true(wait >= low && wait <= high + 2 * STEP, `${what}: ${wait} ms, not ${low} to ${high}`);
  within(await nextWait(), 1500, 1500, 'the first refresh');
  // Each failure doubles the wait (with jitter down to half of it): 3 s, 6 s, 12 s.
  within(await nextWait(), 1500, 3000, 'after one failure');
  within(await nextWait(), 3000, 6000, 'after two');
  within(await nextWait(), 6000, 12_000, 'after three');
  server.fail = false;
  within(await nextWait(), 12_000, 24_000, 'after four');
  within(await nextWait(), 1500, 1500, 'after a success');
  t.is(server.requests.notModified, 2);
});

test('the Atom feed and the badges parse as XML in Chromium', async (t) => {
  const { page } = await openTab(t, 'http://127.0.0.1');
  const parse = (xml: string, type: string) =>
    page.evaluate(
      `(() => { const doc = new DOMParser().parseFromString(${JSON.stringify(xml)}, '${type}');` +
        'const root = doc.documentElement;' +
        'return { root: root.localName, ns: root.namespaceURI,' +
        " errors: doc.getElementsByTagName('parsererror').length };" +
        '})()',
    );
  t.deepEqual(await parse(renderAtom(status), 'application/xml'), {
    root: 'feed',
    ns: 'http://www.w3.org/2005/Atom',
    errors: 0,
  });
  for (const svg of [certificateBadge(12), renderBadge({ label: '<&>"\'', message: '監視 😀', color: 'blue' })]) {
    t.deepEqual(await parse(svg, 'image/svg+xml'), { root: 'svg', ns: 'http://www.w3.org/2000/svg', errors: 0 });
  }
});

/** axe-core: the package (a devDependency), or WATCHLOG_AXE_CORE naming another axe.min.js. */
const axeSource = (): string =>
  readFileSync(process.env.WATCHLOG_AXE_CORE ?? createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[];
}

test('axe-core finds no serious or critical violation, light and dark, phone and wide', async (t) => {
  const axe = axeSource();
  const server = await serve(t);
  for (const [width, dark, path] of [
    [375, false, '/status/acme'],
    [375, true, '/status/acme'],
    [1280, false, '/status/acme'],
    [1280, true, '/status/acme/history'],
  ] as const) {
    const { page } = await openTab(t, server.url, { width, dark });
    await page.goto(path);
    // evaluate runs outside the page's CSP, as an extension would.
    await page.evaluate(axe);
    const tags = JSON.stringify(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']);
    const result = await page.evaluate<AxeResult>(`axe.run({ runOnly: { type: 'tag', values: ${tags} } })`);
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    t.deepEqual(
      bad.map((v) => `${v.id}: ${JSON.stringify(v.nodes.slice(0, 2).map((n) => n.target))}`),
      [],
      `${path} at ${width} px${dark ? ', dark' : ''}`,
    );
    t.log(
      `${path} ${width}${dark ? ' dark' : ''}: ` +
        (result.violations.map((v) => `${v.id} (${v.impact})`).join(', ') || 'none'),
    );
  }
});
