import test from 'ava';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { ADMIN, api, startTestServer, tempDir, type TestServer } from '../helpers/server.ts';

// The dashboard is built by `npm test`'s pretest (the workspace build), as `npm start` builds it.
const BUILT = path.resolve('web', 'dist');

/** The server of the tests that need nothing of their own (neither changes any state). */
let server: TestServer;
test.before(async () => {
  server = await startTestServer();
});
test.after.always(() => server.stop());

test(
  'GET / serves the built dashboard with a strict CSP and no inline script; ' +
    'client routes get index.html; the API keeps its JSON 404',
  async (t) => {
    const index = readFileSync(path.join(BUILT, 'index.html'), 'utf8');
    t.notRegex(index, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script has a src');
    t.notRegex(index, /<style|\sstyle=/, 'no inline style');

    const root = await fetch(`${server.url}/`);
    t.is(root.status, 200);
    t.regex(root.headers.get('content-type')!, /^text\/html/);
    const csp = root.headers.get('content-security-policy')!;
    t.regex(csp, /script-src 'self'(;|$)/);
    t.regex(csp, /frame-ancestors 'none'/);
    t.is(root.headers.get('cache-control'), 'no-cache');
    t.is(await root.text(), index);

    for (const route of ['/projects', '/p/0b6c2a3e-8f0e-4d3a-9a51-3f0f1a1b2c3d/events', '/login']) {
      const res = await fetch(server.url + route, { headers: { accept: 'text/html' } });
      t.is(res.status, 200, route);
      t.is(await res.text(), index, route);
    }

    const asset = readdirSync(path.join(BUILT, 'assets')).find((f) => f.endsWith('.js'))!;
    const js = await fetch(`${server.url}/assets/${asset}`, { headers: { 'accept-encoding': 'gzip' } });
    t.is(js.status, 200);
    t.is(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    t.regex(js.headers.get('content-type')!, /^text\/javascript/);
    // fetch decodes gzip itself; the raw bytes prove the encoding.
    t.is(js.headers.get('content-encoding'), 'gzip');
    t.deepEqual(Buffer.from(await js.arrayBuffer()), readFileSync(path.join(BUILT, 'assets', asset)));
    const etag = js.headers.get('etag')!;
    t.is((await fetch(`${server.url}/assets/${asset}`, { headers: { 'if-none-match': etag } })).status, 304);
    const head = await fetch(`${server.url}/`, { method: 'HEAD' });
    t.is(head.status, 200);
    t.is(await head.text(), '');

    // A missing asset is a 404, never index.html (a stale page must not run HTML as a script).
    const missing = await fetch(`${server.url}/assets/gone-123.js`);
    t.is(missing.status, 404);
    const api404 = await api(server.url, 'GET', '/v1/nothing-here', { headers: { accept: 'text/html' } });
    t.is(api404.status, 404);
    t.is(api404.body.error.code, 'not_found');
    t.is(
      (await api(server.url, 'POST', '/projects', { body: {} })).status,
      404,
      'the dashboard answers GET and HEAD only',
    );
    t.is((await api(server.url, 'POST', '/v1/auth/login', { body: ADMIN })).status, 200, 'the API is untouched');
  },
);

test('without a build, / says how to make one', async (t) => {
  const unbuilt = await startTestServer({ env: { WATCHLOG_DASHBOARD_DIR: tempDir() } });
  t.teardown(() => unbuilt.stop());
  const res = await fetch(`${unbuilt.url}/`);
  t.is(res.status, 404);
  t.regex(await res.text(), /npm run build/);
  t.is((await api(unbuilt.url, 'GET', '/healthz')).status, 200);
});

test('GET /v1/auth/me is the caller, without the password hash', async (t) => {
  const { token } = (await api(server.url, 'POST', '/v1/auth/login', { body: ADMIN })).body;
  const me = await api(server.url, 'GET', '/v1/auth/me', { token });
  t.is(me.status, 200);
  t.like(me.body, { email: ADMIN.email, role: 'admin', disabled: false });
  t.false('password_hash' in me.body);
  t.is((await api(server.url, 'GET', '/v1/auth/me')).status, 401);
});
