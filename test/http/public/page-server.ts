import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STATUS_ASSETS, STATUS_PAGE_CSP } from '../../../src/http/public/assets.ts';
import { etagOf, renderStatusPage } from '../../../src/http/public/html.ts';
import { type PublicStatus, versionOf } from '../../../src/http/public/status-model.ts';

/** The status page served as the routes will serve it (its CSP, its ETag, 304 on a match, the
 *  assets under their hashed names), on 127.0.0.1, for the browser tests. `set` changes what the
 *  page shows; `requests` counts the page's requests and `fail` answers them with a 503. The
 *  history page, when given, is served as it is. */
export interface PageServer {
  url: string;
  set(status: PublicStatus): void;
  requests: { page: number; notModified: number };
  fail: boolean;
  close(): Promise<void>;
}

export const servePage = async (initial: PublicStatus, history = ''): Promise<PageServer> => {
  let status = initial;
  const state: PageServer = {
    url: '',
    set: (next) => {
      status = next;
    },
    requests: { page: 0, notModified: 0 },
    fail: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const asset = STATUS_ASSETS.get(path);
    if (asset !== undefined) {
      res.writeHead(200, { 'Content-Type': asset.type, ETag: asset.etag, 'Cache-Control': 'no-store' });
      res.end(asset.body);
      return;
    }
    if (path === '/status/acme/history' && history !== '') {
      res.writeHead(200, { 'Content-Security-Policy': STATUS_PAGE_CSP, 'Content-Type': 'text/html; charset=utf-8' });
      res.end(history);
      return;
    }
    if (path !== '/status/acme') {
      res.writeHead(404).end();
      return;
    }
    state.requests.page += 1;
    if (state.fail) {
      res.writeHead(503).end();
      return;
    }
    const etag = etagOf(versionOf(status));
    const headers = { 'Content-Security-Policy': STATUS_PAGE_CSP, ETag: etag, 'Cache-Control': 'no-cache' };
    if (req.headers['if-none-match'] === etag) {
      state.requests.notModified += 1;
      res.writeHead(304, headers).end();
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8' });
    // With the subscription form, so that the CSP and accessibility checks cover it.
    res.end(renderStatusPage(status, undefined, { subscribe: true }));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
};
