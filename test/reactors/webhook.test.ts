import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { retryDelayMs, transitionNotification, verifySignature } from '../../src/domain/notification.ts';
import { deliverWebhook } from '../../src/reactors/notifications/webhook.ts';
import { egressPolicy } from '../../src/checks/egress.ts';
import { loadConfig } from '../../src/config.ts';
import { startTarget } from '../helpers/target.ts';
import { defaultEgress as egress } from '../helpers/egress.ts';
import { freePort } from '../helpers/process.ts';

interface Received { headers: http.IncomingHttpHeaders; body: string }

/** A webhook receiver on 127.0.0.1 that answers with the statuses it is given, in order. */
const receiver = async (statuses: number[]) => {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(statuses[received.length - 1] ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
};

const down = transitionNotification('evt-1', {
  type: 'MonitorWentDown',
  data: {
    monitor_id: 'm1', project_id: 'p1', name: 'orders', url: 'http://orders.test/health', expected_status: 200,
    went_down_at: '2026-11-23T10:00:00.000Z', response_ms: 31, error: 'expected status 200, received 503', status_code: 503,
  },
});
const noSleep = async () => undefined;

test('a signed JSON POST the receiver can verify with the shared secret', async (t) => {
  const hook = await receiver([204]);
  t.teardown(() => hook.close());
  const outcome = await deliverWebhook({ url: hook.url, secret: 's3cret' }, down, { egress, sleep: noSleep });
  t.deepEqual(outcome, { ok: true, attempts: 1, status: 204 });
  const [got] = hook.received;
  t.true(verifySignature('s3cret', got!.body, got!.headers['x-watchlog-signature'] as string));
  t.false(verifySignature('other', got!.body, got!.headers['x-watchlog-signature'] as string));
  t.false(verifySignature('s3cret', got!.body.replace('503', '500'), got!.headers['x-watchlog-signature'] as string));
  t.is(got!.headers['content-type'], 'application/json');
  t.is(got!.headers['x-watchlog-delivery'], 'evt-1');
  t.deepEqual(JSON.parse(got!.body), {
    id: 'evt-1', type: 'monitor.down', project_id: 'p1', monitor: { id: 'm1', name: 'orders', url: 'http://orders.test/health' },
    status: 'DOWN', status_code: 503, response_ms: 31, error: 'expected status 200, received 503', downtime_seconds: null,
    timestamp: '2026-11-23T10:00:00.000Z',
  });
});

test('without a secret there is no signature header', async (t) => {
  const hook = await receiver([200]);
  t.teardown(() => hook.close());
  t.true((await deliverWebhook({ url: hook.url }, down, { egress, sleep: noSleep })).ok);
  t.is(hook.received[0]!.headers['x-watchlog-signature'], undefined);
});

test('5xx and 429 are retried with backoff, the same delivery id each time; other 4xx give up at once', async (t) => {
  const flaky = await receiver([503, 429, 200]);
  t.teardown(() => flaky.close());
  const waits: number[] = [];
  const outcome = await deliverWebhook({ url: flaky.url, secret: 'k' }, down, { egress, sleep: async (ms) => { waits.push(ms); } });
  t.deepEqual(outcome, { ok: true, attempts: 3, status: 200 });
  t.deepEqual(waits, [500, 1000]);
  t.deepEqual(new Set(flaky.received.map((r) => r.headers['x-watchlog-delivery'])), new Set(['evt-1']));

  const refusing = await receiver([410]);
  t.teardown(() => refusing.close());
  t.like(await deliverWebhook({ url: refusing.url }, down, { egress, sleep: noSleep }), { ok: false, attempts: 1, status: 410 });
});

test('a closed port is retried up to the limit, then reported', async (t) => {
  const port = await freePort();
  const outcome = await deliverWebhook({ url: `http://127.0.0.1:${port}/` }, down, { egress, sleep: noSleep, maxAttempts: 3 });
  t.false(outcome.ok);
  t.is(outcome.attempts, 3);
  t.regex(outcome.error ?? '', /ECONNREFUSED/);
  t.deepEqual([1, 2, 3, 4, 8, 9].map((a) => retryDelayMs(a)), [500, 1000, 2000, 4000, 30_000, 30_000]);
});

test('a webhook the egress policy refuses is not delivered, not retried, and never connected to', async (t) => {
  const target = await startTarget(200);
  t.teardown(() => target.close());
  const port = new URL(target.url).port;
  const denied = egressPolicy(loadConfig({ WATCHLOG_EGRESS_DENY: '127.0.0.0/8,::1/128' }).egress);
  const waits: number[] = [];
  for (const url of [`http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`, `http://[::ffff:127.0.0.1]:${port}/hook`]) {
    const outcome = await deliverWebhook({ url, secret: 'k' }, down, { egress: denied, maxAttempts: 3, sleep: async (ms) => { waits.push(ms); } });
    t.false(outcome.ok, url);
    t.is(outcome.attempts, 1, url);
    t.regex(outcome.error ?? '', /^blocked by egress policy \((127\.0\.0\.1 is in 127\.0\.0\.0\/8|::1 is in ::1)\)$/, url);
  }
  t.deepEqual(waits, [], 'no backoff: retrying cannot help');
  t.is(target.connections, 0);
});
