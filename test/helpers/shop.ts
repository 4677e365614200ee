import type { ExecutionContext } from 'ava';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from './server.ts';

/** The world of the @watchlog/browser tests (test/sdk/browser*.test.ts): a shop page on one
 *  origin, its instrumented backend on another (another port), and watchlog on a third. The SDK is
 *  the built package (the root `pretest` builds the workspaces). */

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
  out.post = await summary(await fetch(api + '/api/orders', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ item: 'book' }),
  }));
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

export interface World {
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
export const world = async (t: ExecutionContext): Promise<World> => {
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
export const initIn = (page: Page, w: World, extra: Record<string, unknown> = {}) => {
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

export interface Detail {
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
export const eventsOf = async (w: World, service: string, expected: number): Promise<Detail[]> => {
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
