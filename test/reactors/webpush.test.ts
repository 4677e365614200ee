import test from 'ava';
import { createECDH, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { egressPolicy } from '../../src/checks/egress.ts';
import { loadConfig } from '../../src/config.ts';
import { transitionNotification } from '../../src/domain/notification.ts';
import { loadOrCreateVapidKeys } from '../../src/compose/secrets.ts';
import { sendWebPush } from '../../src/reactors/notifications/webpush.ts';
import { pushService } from '../helpers/push-service.ts';
import { defaultEgress as egress } from '../helpers/egress.ts';
import { tempDir } from '../helpers/server.ts';
import { startTarget } from '../helpers/target.ts';

const up = transitionNotification('evt-up', {
  type: 'MonitorCameUp',
  data: {
    monitor_id: 'm1',
    project_id: 'p1',
    name: 'orders',
    url: 'http://orders.test/health',
    came_up_at: '2026-11-23T10:05:00.000Z',
    status_code: 200,
    response_ms: 12,
    downtime_seconds: 300,
  },
});

test('VAPID keys are generated once into the data dir and reused', (t) => {
  const dir = tempDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const first = loadOrCreateVapidKeys(dir);
  t.regex(first.publicKey, /^[A-Za-z0-9_-]{80,}$/);
  t.deepEqual(loadOrCreateVapidKeys(dir), first);
});

test(
  'a notification reaches the push service encrypted and is decrypted there; ' +
    'an expired subscription is reported gone',
  async (t) => {
    const service = await pushService();
    t.teardown(() => service.stop());
    const dir = tempDir();
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const keys = loadOrCreateVapidKeys(dir);
    // The service takes the flag as a string, as a form post would send it.
    const subscribed = await service.post('/subscribe', {
      userVisibleOnly: 'true',
      applicationServerKey: keys.publicKey,
    });
    t.is(subscribed.status, 200, subscribed.body);
    const { data } = JSON.parse(subscribed.body) as {
      data: { endpoint: string; keys: { p256dh: string; auth: string }; clientHash: string };
    };
    const subscription = { endpoint: data.endpoint, keys: data.keys };

    const outcome = await sendWebPush(subscription, up, keys, 'mailto:ops@example.com', { egress, timeoutMs: 2000 });
    t.like(outcome, { ok: true, status: 201, gone: false }, outcome.error ?? undefined);
    const received = JSON.parse((await service.post('/get-notifications', { clientHash: data.clientHash })).body) as {
      data: { messages: string[] };
    };
    t.is(received.data.messages.length, 1);
    t.deepEqual(JSON.parse(received.data.messages[0]!), JSON.parse(JSON.stringify(up)));

    await service.post(`/expire-subscription/${data.clientHash}`, {});
    const gone = await sendWebPush(subscription, up, keys, 'mailto:ops@example.com', { egress, timeoutMs: 2000 });
    t.like(gone, { ok: false, retryable: false, status: 410, gone: true });
  },
);

test(
  'a push endpoint the egress policy refuses is not delivered, ' + 'final, not gone, and never connected to',
  async (t) => {
    const target = await startTarget(201);
    t.teardown(() => target.close());
    const port = new URL(target.url).port;
    const dir = tempDir();
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const keys = loadOrCreateVapidKeys(dir);
    const browser = createECDH('prime256v1');
    const subscription = {
      endpoint: `http://localhost:${port}/push/abc`,
      keys: { p256dh: browser.generateKeys().toString('base64url'), auth: randomBytes(16).toString('base64url') },
    };
    const denied = egressPolicy(loadConfig({ WATCHLOG_EGRESS_DENY: '127.0.0.0/8,::1/128' }).egress);
    const outcome = await sendWebPush(subscription, up, keys, 'mailto:ops@example.com', {
      egress: denied,
      timeoutMs: 2000,
    });
    t.like(outcome, { ok: false, retryable: false, gone: false });
    t.regex(outcome.error ?? '', /^blocked by egress policy \((127\.0\.0\.1 is in 127\.0\.0\.0\/8|::1 is in ::1)\)$/);
    t.is(target.connections, 0);
    // The same endpoint under the default rules is reached.
    t.like(await sendWebPush(subscription, up, keys, 'mailto:ops@example.com', { egress, timeoutMs: 2000 }), {
      ok: true,
      status: 201,
    });
    t.is(target.connections, 1);
  },
);
