import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { transitionNotification, verifySignature } from '../../src/domain/notification.ts';
import { sendWebhook } from '../../src/reactors/notifications/webhook.ts';
import { egressPolicy } from '../../src/checks/egress.ts';
import { loadConfig } from '../../src/config.ts';
import { startTarget } from '../helpers/target.ts';
import { defaultEgress as egress } from '../helpers/egress.ts';
import { freePort } from '../helpers/process.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers with the statuses it is given, in order. */
const receiver = async (statuses: number[]) => {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res
        .writeHead(statuses[received.length - 1] ?? 200)
        .end(statuses[received.length - 1] === 410 ? 'gone for good' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

const down = transitionNotification('evt-1', {
  type: 'MonitorWentDown',
  data: {
    monitor_id: 'm1',
    project_id: 'p1',
    name: 'orders',
    url: 'http://orders.test/health',
    expected_status: 200,
    went_down_at: '2026-11-23T10:00:00.000Z',
    response_ms: 31,
    error: 'expected status 200, received 503',
    status_code: 503,
  },
});
const options = { egress, timeoutMs: 2000 };
const LINK = 'https://watchlog.example.com/p/p1/monitors?open=m1';

test('a signed JSON POST the receiver can verify with the shared secret, with the dashboard link', async (t) => {
  const hook = await receiver([204]);
  t.teardown(() => hook.close());
  const answer = await sendWebhook({ url: hook.url, secret: 's3cret' }, down, LINK, options);
  t.deepEqual(answer, { ok: true, retryable: false, status: 204, error: null, response: null });
  const [got] = hook.received;
  t.true(verifySignature('s3cret', got!.body, got!.headers['x-watchlog-signature'] as string));
  t.false(verifySignature('other', got!.body, got!.headers['x-watchlog-signature'] as string));
  t.false(verifySignature('s3cret', got!.body.replace('503', '500'), got!.headers['x-watchlog-signature'] as string));
  t.is(got!.headers['content-type'], 'application/json');
  t.is(got!.headers['x-watchlog-delivery'], 'evt-1');
  t.is(got!.headers['x-watchlog-event'], 'monitor.down');
  t.deepEqual(JSON.parse(got!.body), {
    id: 'evt-1',
    type: 'monitor.down',
    project_id: 'p1',
    monitor: { id: 'm1', name: 'orders', url: 'http://orders.test/health' },
    status: 'DOWN',
    status_code: 503,
    response_ms: 31,
    error: 'expected status 200, received 503',
    downtime_seconds: null,
    timestamp: '2026-11-23T10:00:00.000Z',
    dashboard_url: LINK,
  });
});

test('without a secret there is no signature header; without a public URL the link is null', async (t) => {
  const hook = await receiver([200]);
  t.teardown(() => hook.close());
  t.true((await sendWebhook({ url: hook.url }, down, null, options)).ok);
  t.is(hook.received[0]!.headers['x-watchlog-signature'], undefined);
  t.is((JSON.parse(hook.received[0]!.body) as { dashboard_url: unknown }).dashboard_url, null);
});

test("5xx and 429 may pass on a later try; other 4xx will not; the answer's body is kept", async (t) => {
  const hook = await receiver([503, 429, 410]);
  t.teardown(() => hook.close());
  t.like(await sendWebhook({ url: hook.url }, down, null, options), {
    ok: false,
    retryable: true,
    status: 503,
    error: 'answered 503',
  });
  t.like(await sendWebhook({ url: hook.url }, down, null, options), { ok: false, retryable: true, status: 429 });
  t.like(await sendWebhook({ url: hook.url }, down, null, options), {
    ok: false,
    retryable: false,
    status: 410,
    response: 'gone for good',
  });
});

test('a closed port is an error that may pass later', async (t) => {
  const port = await freePort();
  const answer = await sendWebhook({ url: `http://127.0.0.1:${port}/` }, down, null, options);
  t.like(answer, { ok: false, retryable: true, status: null });
  t.regex(answer.error ?? '', /ECONNREFUSED/);
});

test('a webhook the egress policy refuses is not delivered, final, and never connected to', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  const denied = egressPolicy(loadConfig({ WATCHLOG_EGRESS_DENY: '127.0.0.0/8,::1/128' }).egress);
  for (const url of [
    `http://localhost:${port}/hook`,
    `http://127.0.0.1:${port}/hook`,
    `http://[::ffff:127.0.0.1]:${port}/hook`,
  ]) {
    const answer = await sendWebhook({ url, secret: 'k' }, down, null, { egress: denied, timeoutMs: 2000 });
    t.like(answer, { ok: false, retryable: false, status: null }, url);
    t.regex(
      answer.error ?? '',
      /^blocked by egress policy \((127\.0\.0\.1 is in 127\.0\.0\.0\/8|::1 is in ::1)\)$/,
      url,
    );
  }
  t.is(target.connections, 0);
});
