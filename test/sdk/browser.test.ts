import test, { type ExecutionContext } from 'ava';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';
import { openTab } from '../helpers/browser.ts';

/** @watchlog/browser in Chromium: a shop page on one origin, its instrumented backend on another
 *  (another port), and watchlog on a third. The SDK is the built package (the root `pretest`
 *  builds the workspaces). */

const SDK = path.resolve('packages', 'browser', 'dist', 'index.js');

const listen = async (
  t: ExecutionContext,
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<string> => {
  const server = createServer((req, res) => {
    // A fixed answer, so two runs of the same calls compare equal (no Date header).
    res.sendDate = false;
    void handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const readBody = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

/** A port nothing listens on: calls to it fail as a backend that is down. */
const closedPort = async (): Promise<string> => {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
};

/** The shop's page: loads the SDK as a module and offers the calls a test makes, as a page would
 *  make them. Every answer is summed up in plain data, so a run with the SDK can be compared to a
 *  run without it. */
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>shop</title></head><body>
<script type="module">
import * as sdk from '/sdk.js';
window.sdk = sdk;
const summary = async (res) => ({
  status: res.status, ok: res.ok, statusText: res.statusText, type: res.type, url: res.url, redirected: res.redirected,
  custom: res.headers.get('x-custom'), contentType: res.headers.get('content-type'), body: await res.text(),
});
const failure = (e) => ({ rejected: e.constructor.name, name: e.name, message: e.message });
const xhr = (method, url, body) => new Promise((resolve) => {
  const x = new XMLHttpRequest();
  const seen = [];
  x.onreadystatechange = () => seen.push('readyState ' + x.readyState);
  for (const type of ['load', 'error', 'abort', 'timeout', 'loadend']) {
    x.addEventListener(type, () => {
      seen.push(type);
      if (type === 'loadend') resolve({
        seen, status: x.status, statusText: x.statusText, text: x.responseText, url: x.responseURL,
        custom: x.getResponseHeader('x-custom'), headers: x.getAllResponseHeaders(), isXhr: x instanceof XMLHttpRequest,
      });
    });
  }
  x.open(method, url);
  if (body !== undefined) x.setRequestHeader('Content-Type', 'application/json');
  x.send(body);
});
window.calls = async (api, down) => {
  const out = {};
  out.get = await summary(await fetch(api + '/api/orders/1?coupon=x'));
  out.post = await summary(await fetch(api + '/api/orders', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ item: 'book' }) }));
  const request = new Request(api + '/api/orders/2', { method: 'PUT', body: 'put-body' });
  out.put = await summary(await fetch(request));
  out.putBodyUsed = request.bodyUsed;
  out.serverError = await summary(await fetch(api + '/api/fail', { method: 'DELETE' }));
  out.lost = await summary(await fetch(api + '/api/lost'));
  out.patch = await summary(await fetch(api + '/api/orders/1', { method: 'PATCH', body: 'p' }));
  out.sameOrigin = await summary(await fetch('/echo'));
  out.down = await fetch(down + '/api/x').then(summary, failure);
  const aborted = new AbortController();
  aborted.abort();
  out.aborted = await fetch(api + '/api/orders/1', { signal: aborted.signal }).then(summary, failure);
  out.refused = await fetch(api + '/api/orders/1', { method: 'GET', body: 'x' }).then(summary, failure);
  out.xhrGet = await xhr('GET', api + '/api/orders/3');
  out.xhrPost = await xhr('POST', api + '/api/orders', JSON.stringify({ item: 'pen' }));
  out.xhrDown = await xhr('GET', down + '/api/y');
  return out;
};
window.loaded = true;
</script></body></html>`;

interface BackendCall {
  method: string;
  path: string;
  requestId: string | undefined;
}

interface World {
  server: TestServer;
  token: string;
  projectId: string;
  pageUrl: string;
  backendUrl: string;
  downUrl: string;
  browserKey: string;
  /** Every call the backend received (preflights apart), with the X-Request-ID it carried. */
  backendCalls: BackendCall[];
  /** Headers of the calls the page made to its own origin. */
  sameOriginHeaders: Array<Record<string, string | string[] | undefined>>;
  /** Moves the service clock (ingest stamps, the orphans' judgement). */
  advance(ms: number): void;
}

/** watchlog (with a movable clock), the shop page's server, and the backend: on each call it
 *  records its own event to watchlog with a direct `POST /v1/audit`, request_id taken from
 *  X-Request-ID, except on `/api/lost`, a backend that failed to report. */
const world = async (t: ExecutionContext): Promise<World> => {
  let offsetMs = 0;
  const server = await startTestServer({ now: () => new Date(Date.now() + offsetMs) });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey: backendKey } = await projectWithKey(server.url, token, 'shop');

  const sameOriginHeaders: World['sameOriginHeaders'] = [];
  const pageUrl = await listen(t, async (req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(SDK));
    } else if (req.url === '/echo') {
      sameOriginHeaders.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('same origin');
    } else {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(req.url === '/' ? PAGE : '<!doctype html><title>next</title><p>next page');
    }
  });

  // The browser's key may only be used from the shop's page.
  const key = await api<{ key: string }>(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
    token,
    body: { name: 'storefront', allowed_origins: [pageUrl] },
  });
  t.is(key.status, 201, JSON.stringify(key.body));

  const backendCalls: BackendCall[] = [];
  const backendUrl = await listen(t, async (req, res) => {
    // Its CORS allows the page's origin and the X-Request-ID header (the README's step).
    const cors = {
      'access-control-allow-origin': pageUrl,
      'access-control-expose-headers': 'X-Custom',
      vary: 'Origin',
    };
    if (req.method === 'OPTIONS') {
      res
        .writeHead(204, {
          ...cors,
          'access-control-allow-methods': 'GET, POST, PUT, DELETE, PATCH',
          'access-control-allow-headers': 'Content-Type, X-Request-ID',
        })
        .end();
      return;
    }
    const started = Date.now();
    const url = new URL(req.url ?? '/', backendUrl);
    const header = req.headers['x-request-id'];
    const requestId = typeof header === 'string' ? header : undefined;
    const method = req.method ?? 'GET';
    backendCalls.push({ method, path: url.pathname, requestId });
    const body = await readBody(req);
    const status = url.pathname === '/api/fail' ? 500 : method === 'POST' ? 201 : 200;
    if (url.pathname !== '/api/lost' && ['GET', 'POST', 'PUT', 'DELETE'].includes(method)) {
      const reported = await api(server.url, 'POST', '/v1/audit', {
        apiKey: backendKey,
        body: {
          path: url.pathname,
          method,
          status_code: status,
          response_time: Date.now() - started,
          identifier: 'shopper-7',
          service_name: 'orders-api',
          environment: 'development',
          source: 'backend',
          ...(requestId ? { request_id: requestId } : {}),
        },
      });
      if (reported.status !== 202)
        throw new Error(`backend report: ${reported.status} ${JSON.stringify(reported.body)}`);
    }
    res.writeHead(status, { ...cors, 'content-type': 'application/json', 'x-custom': `custom-${url.pathname}` });
    res.end(JSON.stringify({ method, path: url.pathname, query: url.search, body }));
  });

  return {
    server,
    token,
    projectId,
    pageUrl,
    backendUrl,
    downUrl: await closedPort(),
    browserKey: key.body.key,
    backendCalls,
    sameOriginHeaders,
    advance: (ms) => {
      offsetMs += ms;
    },
  };
};

/** init() in the page, as the README says, with identify() naming the shopper. */
const initIn = (page: Page, w: World, extra: Record<string, unknown> = {}) => {
  const options = JSON.stringify({
    endpoint: w.server.url,
    apiKey: w.browserKey,
    serviceName: 'storefront',
    environment: 'development',
    backends: [`${w.backendUrl}/api`, w.downUrl],
    ...extra,
  });
  return page.evaluate(`window.handle = window.sdk.init({ ...${options}, identify: () => 'shopper-7' }); true`);
};

interface Detail {
  id: string;
  path: string;
  method: string;
  status_code?: number;
  request_id?: string;
  source: string;
  error_message?: string;
  identifier: string;
  session_id?: string;
  user_agent?: string;
}

/** Every event of a service, in full (the list does not carry request_id or source). */
const eventsOf = async (w: World, service: string, expected: number): Promise<Detail[]> => {
  const list = await eventually(async () => {
    const res = await api<{ data: Array<{ id: string }> }>(
      w.server.url,
      'GET',
      `/v1/audit?project_id=${w.projectId}&service_name=${service}&limit=100`,
      { token: w.token },
    );
    return res.body.data?.length === expected ? res.body.data : undefined;
  }, 30_000);
  return Promise.all(
    list.map(async ({ id }) => (await api<Detail>(w.server.url, 'GET', `/v1/audit/${id}`, { token: w.token })).body),
  );
};

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
    return window.fetch !== wrappedFetch && XMLHttpRequest.prototype.send !== wrappedSend && String(window.fetch).includes('[native code]') && String(XMLHttpRequest.prototype.send).includes('[native code]');
  })()`),
    );
    t.deepEqual(
      errors.filter((e) => !EXPECTED_ERRORS.test(e)),
      [],
    );
  },
);

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
      `Promise.all([1, 2, 3].map((n) => fetch(${JSON.stringify(w.backendUrl)} + '/api/orders/' + n).then((r) => r.text())))`,
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
      `Promise.all([1, 2].map((n) => fetch(${JSON.stringify(w.backendUrl)} + '/api/orders/' + n).then((r) => r.text())))`,
    );
    // Headless tabs stay visible: the page is told it is hidden, as the browser tells it.
    await page.evaluate(`Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
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
