import test from 'ava';
import { api, eventually } from '../helpers/server.ts';
import { openTab } from '../helpers/browser.ts';
import { type Detail, eventsOf, initIn, world } from '../helpers/shop.ts';

/** @watchlog/browser in Chromium: a shop page on one origin, its instrumented backend on another
 *  (another port), and watchlog on a third (test/helpers/shop.ts). Here, the page's calls to its
 *  backend; what leaves when the page is hidden is in browser-page-hide.test.ts. */

/** What the browser logs for the calls that fail on purpose (the backend that is down, its 500). */
const EXPECTED_ERRORS =
  /^Failed to load resource: (net::ERR_CONNECTION_REFUSED|the server responded with a status of 500)/;

test(
  "a page's fetch and XHR calls to its backend: both sides arrive with one request_id, " +
    'answers unchanged, the call whose backend never reported is an orphan',
  async (t) => {
    const w = await world(t);
    const { page, errors } = await openTab(t, w.pageUrl);
    await page.goto('/');
    await page.waitForFunction('window.loaded === true');

    const calls = `window.calls(${JSON.stringify(w.backendUrl)}, ${JSON.stringify(w.downUrl)})`;
    const without = await page.evaluate(calls);
    const before = w.backendCalls.length;
    await initIn(page, w);
    const withSdk = await page.evaluate(calls);
    t.deepEqual(withSdk, without, 'every answer, header, error and XHR event sequence is the same with the SDK');
    t.like(withSdk, {
      get: { status: 200, custom: 'custom-/api/orders/1' },
      post: { status: 201 },
      putBodyUsed: true,
      serverError: { status: 500 },
      patch: { status: 200 },
      down: { rejected: 'TypeError', message: 'Failed to fetch' },
      aborted: { name: 'AbortError' },
      refused: { rejected: 'TypeError' },
      xhrGet: {
        status: 200,
        isXhr: true,
        seen: ['readyState 1', 'readyState 2', 'readyState 3', 'readyState 4', 'load', 'loadend'],
      },
      xhrDown: { status: 0, seen: ['readyState 1', 'readyState 4', 'error', 'loadend'] },
    });

    // What reached the backend: the header on each SPEC call, none on PATCH or before init().
    const sdkCalls = w.backendCalls.slice(before);
    t.true(w.backendCalls.slice(0, before).every((c) => c.requestId === undefined));
    t.deepEqual(
      sdkCalls.map((c) => `${c.method} ${c.path} ${c.requestId === undefined ? '-' : 'id'}`),
      [
        'GET /api/orders/1 id',
        'POST /api/orders id',
        'PUT /api/orders/2 id',
        'DELETE /api/fail id',
        'GET /api/lost id',
        'PATCH /api/orders/1 -',
        'GET /api/orders/3 id',
        'POST /api/orders id',
      ],
    );
    t.true(
      w.sameOriginHeaders.every((h) => h['x-request-id'] === undefined),
      'calls outside the backends are untouched',
    );

    await page.evaluate('window.handle.flush()');
    t.deepEqual(await page.evaluate('window.handle.stats()'), {
      recorded: 10,
      sent: 10,
      rejected: 0,
      dropped: 0,
      failed: 0,
      skipped: 1,
      retries: 0,
      beaconed: 0,
    });

    const browser = await eventsOf(w, 'storefront', 10);
    const backend = (await eventsOf(w, 'orders-api', 12)).filter((e) => e.request_id !== undefined);
    t.true(
      browser.every(
        (e) =>
          e.source === 'browser' &&
          e.identifier === 'shopper-7' &&
          /Chrome/.test(e.user_agent ?? '') &&
          e.session_id === browser[0]!.session_id,
      ),
    );
    t.true(backend.every((e) => e.source === 'backend'));
    const byId = new Map(browser.map((e) => [e.request_id, e]));
    t.is(backend.length, 6);
    for (const b of backend) {
      const paired = byId.get(b.request_id);
      t.truthy(paired, `${b.method} ${b.path} has its browser event`);
      t.like(paired, { method: b.method, path: b.path, status_code: b.status_code });
    }
    for (const c of sdkCalls.filter((c) => c.requestId))
      t.true(byId.has(c.requestId), `${c.method} ${c.path}: the header sent is the browser event's request_id`);
    const pathsOf = (events: Detail[]) =>
      events.map((e) => `${e.method} ${e.path} ${e.status_code ?? e.error_message}`).sort();
    t.deepEqual(pathsOf(browser.filter((e) => !backend.some((b) => b.request_id === e.request_id))), [
      'GET /api/lost 200',
      'GET /api/orders/1 AbortError: signal is aborted without reason',
      'GET /api/x TypeError: Failed to fetch',
      'GET /api/y network error',
    ]);
    // A call fetch refused before sending it left no event.
    t.is(browser.filter((e) => e.path === '/api/orders/1').length, 2);

    // Two minutes later (on the service clock) the browser events without a backend side are orphans.
    const lost = sdkCalls.find((c) => c.path === '/api/lost')!.requestId;
    w.advance(3 * 60_000);
    const orphans = await eventually(async () => {
      const res = await api<{ data: Array<{ request_id: string; path: string }> }>(
        w.server.url,
        'GET',
        `/v1/audit/orphans?project_id=${w.projectId}`,
        { token: w.token },
      );
      return res.body.data?.length === 4 ? res.body.data : undefined;
    }, 30_000);
    t.deepEqual(orphans.map((o) => o.path).sort(), ['/api/lost', '/api/orders/1', '/api/x', '/api/y']);
    t.true(
      orphans.some((o) => o.request_id === lost),
      'the lost call is listed under the id its backend received',
    );

    // stop() restores the page's own functions.
    t.true(
      await page.evaluate(`(async () => {
    const wrappedFetch = window.fetch, wrappedSend = XMLHttpRequest.prototype.send;
    await window.handle.stop();
    return window.fetch !== wrappedFetch && XMLHttpRequest.prototype.send !== wrappedSend &&
      String(window.fetch).includes('[native code]') && String(XMLHttpRequest.prototype.send).includes('[native code]');
  })()`),
    );
    t.deepEqual(
      errors.filter((e) => !EXPECTED_ERRORS.test(e)),
      [],
    );
  },
);
