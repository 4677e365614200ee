import test, { type ExecutionContext } from 'ava';
import { copyFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { newEvent } from '../../src/commands/handle.ts';
import { recordCheck } from '../../src/commands/monitors.ts';
import type { CheckResult } from '../../src/domain/monitor.ts';
import { checksStream } from '../../src/domain/streams.ts';
import { ARTIFACTS, browser, openTab, screenshot } from '../helpers/browser.ts';
import { api, caughtUp, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';

/** A status page of a real server (its routes, cache and read models, the monitors' checks
 *  recorded as the checker records them) in Chromium: whole without JavaScript, live with it
 *  (a DOWN shows without a reload), accessible by axe-core, and readable on a 375 px phone. */

const SLUG = 'acme-public';
const DAY_MS = 86_400_000;
const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };

let server: TestServer;
let token: string;
const ids = new Map<string, string>();

const check = (ok: boolean, at: number): CheckResult =>
  ok
    ? { checked_at: new Date(at).toISOString(), ok, status_code: 200, response_ms: 40 + (at % 90) }
    : { checked_at: new Date(at).toISOString(), ok, status_code: 503, response_ms: 12, error: 'expected 200, got 503' };

/** 30 days of checks, one an hour, most days all OK, some with one failure (a yellow bar) or
 *  three (red), written as the checker's CheckRecorded events; then one OK check now, recorded as
 *  the checker records it (the monitor comes UP). A checks stream keeps its last 200 checks, so
 *  they go in by the day, each once the monitors read model has applied the last. */
const history = async (id: string, project_id: string, seed: number) => {
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  for (let day = 29; day >= 1; day -= 1) {
    const failures = (day * 7 + seed * 3) % 13 === 0 ? 1 : (day * 5 + seed) % 29 === 0 ? 3 : 0;
    const checks = Array.from({ length: 24 }, (_, hour) =>
      check(hour < 10 || hour >= 10 + failures, today - day * DAY_MS + hour * 3_600_000),
    );
    await server.runtime.commands.log.append(
      checksStream(id),
      checks.map((c) => newEvent({ type: 'CheckRecorded', data: { monitor_id: id, project_id, ...c } }, ctx)),
      'any',
    );
    await caughtUp(server, ['monitors']);
  }
  await recordCheck(server.runtime.commands, id, check(true, Date.now() - 60_000), ctx);
};

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'public-page');
  const groups = [
    { name: 'Website', monitors: ['Storefront', 'Checkout'] },
    { name: 'API', monitors: ['Public API', 'Webhooks', 'Database'] },
  ];
  for (const [n, name] of groups.flatMap((g) => g.monitors).entries()) {
    const created = await api<{ id: string }>(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name, url: `http://127.0.0.1:9/${n}` },
    });
    if (created.status !== 201) throw new Error(`monitor: ${created.status} ${JSON.stringify(created.body)}`);
    ids.set(name, created.body.id);
    await history(created.body.id, projectId, n);
  }
  const incident = await api<{ id: string }>(server.url, 'POST', '/v1/incidents', {
    token,
    body: {
      project_id: projectId,
      title: 'Webhooks delayed',
      status: 'investigating',
      impact: 'minor',
      monitor_ids: [ids.get('Webhooks')],
      message: 'Webhook deliveries are running a few minutes late.',
    },
  });
  await api(server.url, 'POST', `/v1/incidents/${incident.body.id}/updates`, {
    token,
    body: { status: 'resolved', message: 'Deliveries caught up; every webhook was sent.' },
  });
  const page = await api(server.url, 'POST', '/v1/status-pages', {
    token,
    body: {
      project_id: projectId,
      slug: SLUG,
      title: 'Acme',
      description: 'The state of Acme’s services.',
      published: true,
      show_uptime_days: 30,
      groups: groups.map((g) => ({ name: g.name, monitor_ids: g.monitors.map((m) => ids.get(m)) })),
    },
  });
  if (page.status !== 201) throw new Error(`status page: ${page.status} ${JSON.stringify(page.body)}`);
  await caughtUp(server, ['statusPages', 'monitors', 'incidents']);
});
test.after.always(async () => {
  await server?.stop();
});

test.serial('its answers, taken before the router, are the routes’ answers', async (t) => {
  const get = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
  const page = await get(`/status/${SLUG}`, { headers: { 'accept-encoding': 'gzip' } });
  t.is(page.status, 200);
  const etag = page.headers.get('etag')!;
  t.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  t.is(page.headers.get('content-encoding'), 'gzip');
  t.is(page.headers.get('vary'), 'Accept-Encoding');
  t.is(page.headers.get('cache-control'), 'public, no-cache');
  t.regex(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  t.truthy(page.headers.get('x-request-id'), 'the access log still saw it');
  t.regex(await page.text(), /<h1/);
  const plain = await get(`/status/${SLUG}`, { headers: { 'accept-encoding': 'identity' } });
  t.is(plain.headers.get('content-encoding'), null);
  t.is((await get(`/status/${SLUG}`, { headers: { 'if-none-match': etag } })).status, 304);
  t.is((await get(`/status/${SLUG}`, { headers: { 'if-none-match': `"other", ${etag}` } })).status, 304);
  const head = await get(`/status/${SLUG}`, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(await head.text(), '');
  t.is((await get(`/status/${SLUG}/summary.json`)).headers.get('content-type'), 'application/json; charset=utf-8');
  t.regex((await get(`/status/${SLUG}/feed.atom`)).headers.get('content-type') ?? '', /^application\/atom\+xml/);
  // What it does not answer goes on to the routes, which answer as they did.
  t.is((await get(`/status/${SLUG}?page=2`)).status, 400);
  t.is((await get('/status/no-such-page')).status, 404);
  t.is((await get('/status/Not_A_Slug')).status, 404);
  t.is((await get(`/status/${SLUG}`, { method: 'POST' })).status, 405);
});

const names = (page: Page) => page.locator('.monitor__name').allTextContents();

test.serial('without JavaScript the page is whole: banner, groups, every monitor, times in UTC', async (t) => {
  const context = await (await browser()).newContext({
    javaScriptEnabled: false,
    viewport: { width: 375, height: 812 },
  });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${server.url}/status/${SLUG}`);
  t.is(await page.locator('[data-banner]').textContent(), 'All systems operational');
  t.is(await page.getByRole('heading', { level: 1 }).count(), 1);
  t.deepEqual(await page.locator('.group h3').allTextContents(), ['Website', 'API']);
  t.deepEqual(await names(page), ['Storefront', 'Checkout', 'Public API', 'Webhooks', 'Database']);
  t.is(await page.locator('.state--operational').count(), 5);
  t.is(await page.locator('.monitor').first().locator('.bars > li').count(), 30);
  t.regex((await page.locator('.banner time').textContent()) ?? '', /UTC$/);
  t.true(await page.getByRole('heading', { name: 'Webhooks delayed' }).isVisible());
});

test.serial('a 375 px phone: no sideways scroll; screenshot', async (t) => {
  const { page, errors } = await openTab(t, server.url, { width: 375, height: 812 });
  await page.goto(`/status/${SLUG}`);
  await page.getByRole('heading', { name: 'All systems operational' }).waitFor();
  t.true(await page.evaluate<boolean>('document.documentElement.scrollWidth <= 375'));
  await screenshot(page, 'status-page-375');
  t.log(`saved ${path.join(ARTIFACTS, 'status-page-375.png')}`);
  // docs/screenshots/status-page-375.png is this file, copied when the page's look changes:
  // WATCHLOG_DOCS_SCREENSHOTS=1 npx ava test/web/public-status-page.test.ts
  if (process.env.WATCHLOG_DOCS_SCREENSHOTS === '1')
    copyFileSync(
      path.join(ARTIFACTS, 'status-page-375.png'),
      path.resolve('docs', 'screenshots', 'status-page-375.png'),
    );
  t.deepEqual(errors, []);
});

test.serial('with JavaScript a DOWN shows without a reload, and the banner change is announced', async (t) => {
  const { page, errors } = await openTab(t, server.url);
  let navigations = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations += 1;
  });
  let polls = 0;
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === `/status/${SLUG}` && request.headers()['if-none-match']) polls += 1;
  });
  await page.goto(`/status/${SLUG}`);
  await page.evaluate('window.__notReloaded = true');
  const row = page.locator('li.monitor').filter({ has: page.locator('.monitor__name', { hasText: /^Public API$/ }) });
  t.is(await row.locator('.state').getAttribute('class'), 'state state--operational');

  await recordCheck(server.runtime.commands, ids.get('Public API')!, check(false, Date.now()), ctx);
  const recorded = Date.now();
  await row.locator('.state--down').waitFor({ timeout: 15_000 });
  t.log(`DOWN shown ${Date.now() - recorded} ms after the check was recorded (the page asks every 1.5 s)`);
  await page.getByRole('heading', { name: 'Partial outage' }).waitFor();
  t.is(await page.locator('#live').textContent(), 'Status changed: Partial outage');
  t.true(polls >= 1, 'the page asked with If-None-Match');
  t.is(navigations, 1, 'no navigation after the first');
  t.true(await page.evaluate<boolean>('window.__notReloaded === true'), 'the same document');
  t.deepEqual(errors, []);

  // Back UP, for the tests after this one.
  await recordCheck(server.runtime.commands, ids.get('Public API')!, check(true, Date.now()), ctx);
  await row.locator('.state--operational').waitFor({ timeout: 15_000 });
});

/** axe-core's source (a devDependency: `npm ci` installs it). */
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeResult {
  violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[];
}

const axe = async (t: ExecutionContext, page: Page, what: string) => {
  // evaluate runs outside the page's CSP, as an extension would.
  await page.evaluate(axeSource);
  const tags = JSON.stringify(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']);
  const result = await page.evaluate<AxeResult>(`axe.run({ runOnly: { type: 'tag', values: ${tags} } })`);
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  t.deepEqual(
    bad.map((v) => `${v.id}: ${JSON.stringify(v.nodes.slice(0, 2).map((n) => n.target))}`),
    [],
    what,
  );
  t.log(`${what}: ${result.violations.map((v) => `${v.id} (${v.impact})`).join(', ') || 'no violation'}`);
};

test.serial('axe-core: no serious or critical violation on the page and its history, phone and wide', async (t) => {
  for (const width of [375, 1280]) {
    const { page } = await openTab(t, server.url, { width, height: 812 });
    await page.goto(`/status/${SLUG}`);
    await axe(t, page, `the page at ${width} px`);
    await page.getByRole('region', { name: 'Past incidents' }).getByRole('link', { name: 'Incident history' }).click();
    await page.getByRole('heading', { name: 'Acme: incident history' }).waitFor();
    await axe(t, page, `the history at ${width} px`);
  }
});
