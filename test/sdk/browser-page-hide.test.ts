import test from 'ava';
import type { Page } from 'playwright-core';
import { eventually } from '../helpers/server.ts';
import { openTab } from '../helpers/browser.ts';
import { type World, eventsOf, initIn, world } from '../helpers/shop.ts';

/** @watchlog/browser in Chromium when the page is hidden: events still queued arrive when the page
 *  navigates away or is closed, and a tab switched away from sends its queue by beacon. The shop
 *  page, its backend and watchlog are test/helpers/shop.ts; the calls themselves are in
 *  browser.test.ts. */

for (const [how, leave] of [
  ['navigates away', (page: Page, w: World) => page.goto(`${w.pageUrl}/next`).then(() => undefined)],
  ['is closed', (page: Page) => page.close()],
] as const) {
  test(`page hide: events still queued when the page ${how} arrive`, async (t) => {
    const w = await world(t);
    const { page } = await openTab(t, w.pageUrl);
    await page.goto('/');
    await page.waitForFunction('window.loaded === true');
    await initIn(page, w, { flushIntervalMs: 60_000, maxBatch: 1000 });
    await page.evaluate(
      `Promise.all([1, 2, 3].map((n) =>
        fetch(${JSON.stringify(w.backendUrl)} + '/api/orders/' + n).then((r) => r.text())))`,
    );
    t.like(await page.evaluate('window.handle.stats()'), { recorded: 3, sent: 0 }, 'queued, nothing sent yet');

    await leave(page, w);
    const browser = await eventsOf(w, 'storefront', 3);
    t.deepEqual(browser.map((e) => e.path).sort(), ['/api/orders/1', '/api/orders/2', '/api/orders/3']);
    const ids = new Set(w.backendCalls.map((c) => c.requestId));
    t.true(
      browser.every((e) => ids.has(e.request_id)),
      "paired with the backend's calls",
    );
  });
}

test(
  'page hide: a tab switched away from (visibilitychange to hidden) sends its queue by beacon: ' +
    'text/plain, the key in the query, from an allowed origin',
  async (t) => {
    const w = await world(t);
    const { page, errors } = await openTab(t, w.pageUrl);
    await page.goto('/');
    await page.waitForFunction('window.loaded === true');
    await initIn(page, w, { flushIntervalMs: 60_000, maxBatch: 1000 });
    const beacons: Array<{ url: string; type: string | undefined; events: Array<Record<string, unknown>> }> = [];
    page.on('request', (r) => {
      if (r.url().startsWith(`${w.server.url}/v1/audit/batch`))
        beacons.push({
          url: r.url(),
          type: r.headers()['content-type'],
          events: JSON.parse(r.postData() ?? 'null') as Array<Record<string, unknown>>,
        });
    });
    await page.evaluate(
      `Promise.all([1, 2].map((n) =>
        fetch(${JSON.stringify(w.backendUrl)} + '/api/orders/' + n).then((r) => r.text())))`,
    );
    // Headless tabs stay visible: the page is told it is hidden, as the browser tells it.
    await page.evaluate(`
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    document.dispatchEvent(new Event('visibilitychange'));`);
    t.like(await page.evaluate('window.handle.stats()'), { recorded: 2, beaconed: 2, sent: 0 });
    const browser = await eventsOf(w, 'storefront', 2);
    t.deepEqual(browser.map((e) => e.path).sort(), ['/api/orders/1', '/api/orders/2']);
    await eventually(async () => (beacons.length === 1 ? true : undefined));
    t.is(beacons[0]!.url, `${w.server.url}/v1/audit/batch?api_key=${encodeURIComponent(w.browserKey)}`);
    t.regex(beacons[0]!.type ?? '', /^text\/plain/);
    t.deepEqual(beacons[0]!.events.map((e) => e.path).sort(), ['/api/orders/1', '/api/orders/2']);
    t.deepEqual(errors, []);
  },
);
