import test from 'ava';
import http from 'node:http';
import zlib from 'node:zlib';
import { egressPolicy } from '../../src/checks/egress.ts';
import { observeHttp } from '../../src/checks/http-probe.ts';
import { probe } from '../../src/checks/probe.ts';
import { MAX_BODY_BYTES } from '../../src/domain/check-judge.ts';
import { parseAddressList } from '../../src/domain/egress-rules.ts';
import type { MonitorSettings } from '../../src/domain/monitor.ts';
import { listen } from '../helpers/probe-servers.ts';

/** The HTTP probe's options against real servers on 127.0.0.1, through an egress policy that
 *  allows loopback and denies link-local (where 169.254.169.254 is). */

const egress = egressPolicy({
  deny: parseAddressList('169.254.0.0/16', { hosts: false }).list.cidrs,
  allow: [],
  allowHosts: [],
});

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A server whose answers the test writes; it keeps every request it read. */
const server = async (t: import('ava').ExecutionContext, answer: (req: Seen, res: http.ServerResponse) => void) => {
  const requests: Seen[] = [];
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(seen);
      answer(seen, res);
    });
  });
  const listening = await listen(s);
  t.teardown(() => listening.close());
  return { requests, url: `http://127.0.0.1:${listening.port}`, listening };
};

const monitor = (url: string, extra: Partial<MonitorSettings> = {}): MonitorSettings => ({
  name: 'api',
  url,
  interval_seconds: 60,
  timeout_seconds: 2,
  expected_status: 200,
  enabled: true,
  ...extra,
});

test('the method, headers, body with its content type, and credentials reach the server', async (t) => {
  const target = await server(t, (_, res) => res.writeHead(201).end());
  const { result } = await probe(
    monitor(`${target.url}/orders`, {
      method: 'POST',
      headers: { 'X-Trace': 'abc', 'User-Agent': 'probe-test/1' },
      body: '{"dry_run":true}',
      content_type: 'application/json',
      auth: { type: 'basic', username: 'ops', password: 'pä:ss' },
      accepted_statuses: ['200-299'],
    }),
    egress,
  );
  t.like(result, { ok: true, status_code: 201 });
  const [seen] = target.requests;
  t.is(seen?.method, 'POST');
  t.is(seen?.url, '/orders');
  t.is(seen?.body, '{"dry_run":true}');
  t.like(seen?.headers, {
    'x-trace': 'abc',
    'user-agent': 'probe-test/1',
    'content-type': 'application/json',
    authorization: `Basic ${Buffer.from('ops:pä:ss').toString('base64')}`,
  });

  await probe(monitor(target.url, { method: 'DELETE', auth: { type: 'bearer', token: 't0ken' } }), egress);
  t.is(target.requests[1]?.method, 'DELETE');
  t.is(target.requests[1]?.headers.authorization, 'Bearer t0ken');
  t.is(target.requests[1]?.headers['accept-encoding'], undefined, 'no body read, none asked to be encoded');
});

test('header and status assertions; accepted statuses say so when they fail', async (t) => {
  const target = await server(t, (_, res) => res.writeHead(503, { 'x-version': '7', 'retry-after': '30' }).end());
  const { result } = await probe(
    monitor(target.url, {
      accepted_statuses: ['200-299', '301'],
      assertions: [
        { source: 'header', path: 'X-Version', op: 'equals', value: '7' },
        { source: 'header', path: 'retry-after', op: 'not_exists' },
      ],
    }),
    egress,
  );
  t.like(result, {
    ok: false,
    status_code: 503,
    error: 'expected status in 200-299, 301, received 503; header retry-after not_exists: got "30"',
  });
  t.deepEqual(
    result.assertions?.map((a) => a.passed),
    [true, false],
  );
});

test('a JSON field that changes between requests: the assertion passes, then fails saying what it got', async (t) => {
  let status = 'ok';
  const target = await server(t, (_, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status, checks: [1, 2] })),
  );
  const settings = monitor(`${target.url}/status`, {
    assertions: [
      { source: 'json', path: '$.status', op: 'equals', value: 'ok' },
      { source: 'json', path: '$.checks[-1]', op: 'equals', value: 2 },
      { source: 'body', op: 'contains', value: '"checks"' },
    ],
  });
  const first = await probe(settings, egress);
  t.like(first.result, { ok: true, status_code: 200 });
  t.is(first.result.error, undefined);
  t.is(target.requests[0]?.headers['accept-encoding'], 'gzip, deflate, br', 'a body read may come encoded');
  status = 'degraded';
  const second = await probe(settings, egress);
  t.like(second.result, { ok: false, status_code: 200, error: 'json $.status equals "ok": got "degraded"' });
  t.like(second.result.assertions?.[0], { passed: false, received: '"degraded"' });
});

test('gzip, br and deflate bodies are decoded before the assertions', async (t) => {
  const json = Buffer.from(JSON.stringify({ status: 'ok' }));
  const encoders = { gzip: zlib.gzipSync, br: zlib.brotliCompressSync, deflate: zlib.deflateSync };
  const target = await server(t, (req, res) => {
    const encoding = req.url.slice(1) as keyof typeof encoders;
    res.writeHead(200, { 'content-encoding': encoding }).end(encoders[encoding](json));
  });
  for (const encoding of Object.keys(encoders)) {
    const { result } = await probe(
      monitor(`${target.url}/${encoding}`, {
        assertions: [{ source: 'json', path: '$.status', op: 'equals', value: 'ok' }],
      }),
      egress,
    );
    t.like(result, { ok: true }, encoding);
  }
});

/** Writes `total` bytes of "a" (Infinity: never ends), minding backpressure. */
const stream = (res: http.ServerResponse, total: number) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let sent = 0;
  const more = () => {
    while (sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', more);
        return;
      }
    }
    res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  more();
};

test('a body is read to MAX_BODY_BYTES at most: the rest is not read, and the check says so', async (t) => {
  const target = await server(t, (req, res) => stream(res, req.url === '/endless' ? Infinity : 5 * 1024 * 1024));
  const settings = monitor(target.url, { assertions: [{ source: 'body', op: 'matches', value: '^a+$' }] });
  const { observation } = await observeHttp(settings, egress);
  t.is(MAX_BODY_BYTES, 1024 * 1024);
  t.is(observation.body?.length, MAX_BODY_BYTES);
  t.true(observation.body_truncated);
  t.like((await probe(settings, egress)).result, { ok: true, status_code: 200 });
  // A body that never ends is no different: the check stops reading, it does not wait for the end.
  const endless = await observeHttp({ ...settings, url: `${target.url}/endless` }, egress);
  t.is(endless.observation.body?.length, MAX_BODY_BYTES);
  t.true(endless.observation.body_truncated);
  t.is(endless.observation.error, undefined);
});

test('without a body assertion the body is not read: the check ends at the response headers', async (t) => {
  const target = await server(t, (_, res) => stream(res, Infinity));
  const { observation } = await observeHttp(monitor(target.url), egress);
  t.like(observation, { status_code: 200 });
  t.is(observation.body, undefined);
  t.is(observation.error, undefined);
});

test('a small body is read whole, not marked truncated', async (t) => {
  const target = await server(t, (_, res) => res.writeHead(200).end('hello'));
  const { observation } = await observeHttp(
    monitor(target.url, { assertions: [{ source: 'body', op: 'equals', value: 'hello' }] }),
    egress,
  );
  t.is(observation.body, 'hello');
  t.is(observation.body_truncated, undefined);
});

test('the timeout bounds the body too: a body that stalls fails the check, the status kept', async (t) => {
  const target = await server(t, (_, res) => {
    res.writeHead(200);
    res.write('{"status":');
  });
  const { result } = await probe(
    monitor(target.url, {
      timeout_seconds: 1,
      assertions: [{ source: 'json', path: '$.status', op: 'exists' }],
    }),
    egress,
  );
  t.like(result, { ok: false, status_code: 200, error: 'timeout: response body not read within 1 s' });
  t.is(result.assertions, undefined);
});
