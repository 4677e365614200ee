import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** A SaaS's page for `<watchlog-audit-log>` (packages/viewer) in the browser tests: under a strict
 *  CSP (no inline script or style), loading the built bundle from its own origin. */

const BUNDLE = path.resolve('packages/viewer/dist/watchlog-viewer.js');

export const hostPage = (token: string, attributes = '', script = '/viewer.js') => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Acme: audit log</title>
<link rel="stylesheet" href="/host.css"><script type="module" src="${script}"></script></head>
<body><h1>Your organisation's audit log</h1>
<watchlog-audit-log token="${token}" page-size="4" ${attributes}></watchlog-audit-log></body></html>`;

/** The host: its page, the bundle, and `/v1/*` passed on to watchlog (a backend that proxies it);
 *  `csp` adds to its policy (a watchlog on another origin to read from, or to frame). */
export const startHost = async (watchlog: string, page: () => string, csp = "connect-src 'self'") => {
  const target = new URL(watchlog);
  const scripts = csp.includes('script-src') ? '' : "script-src 'self'; ";
  const policy = `default-src 'none'; style-src 'self'; ${scripts}${csp}`;
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/v1/')) {
      const upstream = http.request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      req.pipe(upstream);
      return;
    }
    if (req.url === '/host.css') {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('watchlog-audit-log { --watchlog-accent: rgb(1, 2, 3); }');
      return;
    }
    if (req.url === '/viewer.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(readFileSync(BUNDLE));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': policy });
    res.end(page());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
};
