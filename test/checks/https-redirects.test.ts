import test from 'ava';
import http from 'node:http';
import https from 'node:https';
import { egressPolicy } from '../../src/checks/egress.ts';
import { probe } from '../../src/checks/probe.ts';
import { parseAddressList } from '../../src/domain/egress-rules.ts';
import type { MonitorSettings } from '../../src/domain/monitor.ts';
import { daysLeft } from '../../src/domain/monitor-certificates.ts';
import { certificateFor, listen } from '../helpers/probe-servers.ts';

/** Redirects and certificates against real servers on 127.0.0.1, through an egress policy that
 *  allows loopback and denies link-local (where 169.254.169.254 is). */

const egress = egressPolicy({
  deny: parseAddressList('169.254.0.0/16', { hosts: false }).list.cidrs,
  allow: [],
  allowHosts: [],
});

const monitor = (url: string, extra: Partial<MonitorSettings> = {}): MonitorSettings => ({
  name: 'site',
  url,
  interval_seconds: 60,
  timeout_seconds: 2,
  expected_status: 200,
  enabled: true,
  ...extra,
});

/** A server answering `/redirect?to=<url>` with a 302 there, and anything else with 200. */
const redirector = async (t: import('ava').ExecutionContext, secure?: { key: string; cert: string }) => {
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  const handler: http.RequestListener = (req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
    if (req.url?.startsWith('/redirect') && to !== null) res.writeHead(302, { location: to }).end();
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('done');
  };
  const server = secure ? https.createServer(secure, handler) : http.createServer(handler);
  const listening = await listen(server);
  t.teardown(() => listening.close());
  return { seen, base: `${secure ? 'https' : 'http'}://127.0.0.1:${listening.port}`, listening };
};

const via = (base: string, to: string) => `${base}/redirect?to=${encodeURIComponent(to)}`;

test('two redirects: followed within max_redirects, too many past it, the 302 itself by default', async (t) => {
  const a = await redirector(t);
  const b = await redirector(t);
  // a → b → a/done
  const start = via(a.base, via(b.base, `${a.base}/done`));
  t.like((await probe(monitor(start, { max_redirects: 2 }), egress)).result, { ok: true, status_code: 200 });
  t.deepEqual(
    [...a.seen, ...b.seen].map((s) => s.url.split('?')[0]),
    ['/redirect', '/done', '/redirect'],
  );
  t.like((await probe(monitor(start, { max_redirects: 1 }), egress)).result, {
    ok: false,
    error: 'too many redirects (more than 1)',
  });
  // SPEC's default: redirects are not followed, and the 302 is the status.
  const spec = await probe(monitor(start), egress);
  t.deepEqual(spec.result, {
    checked_at: spec.result.checked_at,
    ok: false,
    status_code: 302,
    response_ms: spec.result.response_ms,
    error: 'expected status 200, received 302',
  });
  t.like((await probe(monitor(start, { expected_status: 302 }), egress)).result, { ok: true, status_code: 302 });
});

test("a redirect's last hop to an address the egress policy denies fails with the policy's text", async (t) => {
  const a = await redirector(t);
  const b = await redirector(t);
  const start = via(a.base, via(b.base, 'http://169.254.169.254/latest/meta-data/'));
  const probed = await probe(monitor(start, { max_redirects: 5 }), egress);
  t.true(probed.refused);
  t.deepEqual(probed.result, {
    checked_at: probed.result.checked_at,
    ok: false,
    response_ms: probed.result.response_ms,
    error: 'blocked by egress policy (169.254.169.254 is in 169.254.0.0/16)',
  });
  t.is(a.seen.length + b.seen.length, 2, 'both hops were asked; the denied one never was');
});

test('credentials are not sent to another host a redirect leads to', async (t) => {
  const a = await redirector(t);
  const b = await redirector(t);
  const { result } = await probe(
    monitor(via(a.base, `${b.base}/done`), { max_redirects: 1, auth: { type: 'bearer', token: 'secret' } }),
    egress,
  );
  t.like(result, { ok: true });
  t.is(a.seen[0]?.authorization, 'Bearer secret');
  t.is(b.seen[0]?.authorization, undefined);
});

test('a self-signed certificate expiring in 5 days: a TLS error, unless ignored; recorded either way', async (t) => {
  const site = await redirector(t, await certificateFor(5));
  const url = `${site.base}/health`;
  const refused = await probe(monitor(url), egress);
  t.deepEqual(refused.result, {
    checked_at: refused.result.checked_at,
    ok: false,
    response_ms: refused.result.response_ms,
    error: 'TLS error: self-signed certificate',
  });
  t.is(site.seen.length, 0);

  const ignored = await probe(
    monitor(url, {
      ignore_tls_errors: true,
      assertions: [{ source: 'certificate_expiry_days', op: 'gt', value: 3 }],
    }),
    egress,
  );
  t.like(ignored.result, { ok: true, status_code: 200 });
  const cert = ignored.result.certificate!;
  t.truthy(cert);
  const left = daysLeft(cert, ignored.result.checked_at);
  t.true(left === 4 || left === 5, String(left));
  t.true(cert.names.includes('127.0.0.1') && cert.names.includes('localhost'), cert.names.join());
  t.is(cert.subject, 'CN=localhost');
  t.is(cert.issuer, 'CN=localhost');
  t.true(Date.parse(cert.valid_from) < Date.parse(ignored.result.checked_at));
  t.is(new Date(cert.valid_to).toISOString(), cert.valid_to, 'an ISO time');
  t.like(ignored.result.assertions?.[0], { passed: true, received: String(left) });
});

test("after redirects from http to https, the last hop's certificate is the one recorded", async (t) => {
  const site = await redirector(t, await certificateFor(30));
  const plain = await redirector(t);
  const { result } = await probe(
    monitor(via(plain.base, `${site.base}/health`), { max_redirects: 1, ignore_tls_errors: true }),
    egress,
  );
  t.like(result, { ok: true, status_code: 200 });
  const left = daysLeft(result.certificate!, result.checked_at);
  t.true(left === 29 || left === 30, String(left));
});
