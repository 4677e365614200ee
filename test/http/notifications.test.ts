import test from 'ava';
import { randomUUID } from 'node:crypto';
import { recordCheck } from '../../src/commands/monitors.ts';
import type { CheckResult } from '../../src/domain/monitor.ts';
import { pushService, serverWithPushService, subscribe } from '../helpers/push-service.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import { api, eventually, login, projectWithKey, startTestServer, tempDir } from '../helpers/server.ts';

const SECRET = 'webhook-secret-1';

const check = (ok: boolean, offsetS: number): CheckResult => ({
  checked_at: new Date(Date.now() + offsetS * 1000).toISOString(),
  ok,
  response_ms: 5,
  ...(ok ? { status_code: 200 } : { status_code: 503 }),
});
const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };

test(
  'UP→DOWN→UP notifies every active channel twice, signed; ' +
    'opted-out and paused channels get nothing; a restart resends nothing',
  async (t) => {
    const dataDir = tempDir();
    let server = await startTestServer({ dataDir, notifications: true });
    const hook = await webhookReceiver(SECRET);
    const quiet = await webhookReceiver(SECRET);
    const service = await pushService();
    t.teardown(async () => {
      await server.stop();
      await hook.close();
      await quiet.close();
      service.stop();
    });
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token, 'notified');
    const key = (await api(server.url, 'GET', '/v1/webpush/public-key', { token })).body.public_key as string;
    t.is(key, server.runtime.vapid.publicKey);
    const browser = await subscribe(service, key);

    const channel = async (body: Record<string, unknown>) => {
      const res = await api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
      t.is(res.status, 201, JSON.stringify(res.body));
      return res.body as { id: string };
    };
    const webhook = await channel({ type: 'webhook', url: hook.url, secret: SECRET });
    await channel({ type: 'webpush', subscription: browser.subscription });
    await channel({ type: 'webhook', url: quiet.url, events: ['alert'] });
    const paused = await channel({ type: 'webhook', url: quiet.url });
    t.is(
      (await api(server.url, 'PUT', `/v1/channels/${paused.id}`, { token, body: { active: false } })).body.active,
      false,
    );
    const listed = (await api(server.url, 'GET', `/v1/channels?project_id=${projectId}`, { token })).body as Array<
      Record<string, unknown>
    >;
    t.is(listed.length, 4);
    t.like(listed[0], {
      id: webhook.id,
      type: 'webhook',
      url: hook.url,
      has_secret: true,
      events: ['healthcheck'],
      active: true,
    });
    t.false(JSON.stringify(listed).includes(SECRET), 'secrets never leave the server');
    t.false(JSON.stringify(listed).includes(browser.subscription.keys.auth), 'push keys never leave the server');

    const monitor = (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: { project_id: projectId, name: 'orders', url: 'http://127.0.0.1:9/' },
      })
    ).body;
    for (const [i, ok] of [true, false, false, true, true].entries())
      await recordCheck(server.runtime.commands, monitor.id, check(ok, i), ctx);

    await eventually(
      async () => (hook.received.length === 2 && (await browser.messages()).length === 2 ? true : undefined),
      10_000,
    );
    t.deepEqual(
      hook.received.map((r) => r.body.type),
      ['monitor.down', 'monitor.up'],
    );
    t.true(
      hook.received.every((r) => r.verified),
      'the receiver verifies every signature',
    );
    t.like(hook.received[0]!.body, {
      status: 'DOWN',
      status_code: 503,
      monitor: { id: monitor.id, name: 'orders', url: 'http://127.0.0.1:9/' },
      project_id: projectId,
    });
    t.like(hook.received[1]!.body, { status: 'UP', status_code: 200, downtime_seconds: 2 });
    t.deepEqual(
      (await browser.messages()).map((m) => (JSON.parse(m) as { type: string }).type),
      ['monitor.down', 'monitor.up'],
    );
    t.deepEqual(
      hook.received.map((r) => r.delivery),
      hook.received.map((r) => r.body.id),
    );
    t.is(quiet.received.length, 0);

    // Every delivery is on record with the reactor's checkpoint: a restart sends nothing again.
    await server.stop({ remove: false });
    server = await startTestServer({ dataDir, notifications: true });
    const head = await server.runtime.log.headPosition();
    await eventually(
      async () => ((await server.runtime.readModels.stores.deliveries.checkpoint()) === head ? true : undefined),
      10_000,
    );
    t.is(hook.received.length, 2);
    t.is((await browser.messages()).length, 2);
  },
);

test(
  'a notifier with no state of its own starts at the head of the log: ' +
    'what came before is neither sent nor recorded as skipped',
  async (t) => {
    const dataDir = tempDir();
    // The service runs first without the reactor (its state then holds no checkpoint).
    let server = await startTestServer({ dataDir, notifications: false });
    const hook = await webhookReceiver(SECRET);
    t.teardown(async () => {
      await server.stop();
      await hook.close();
    });
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token, 'late notifier');
    t.is(
      (
        await api(server.url, 'POST', '/v1/channels', {
          token,
          body: { project_id: projectId, type: 'webhook', url: hook.url, secret: SECRET },
        })
      ).status,
      201,
    );
    const monitor = (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: { project_id: projectId, name: 'orders', url: 'http://127.0.0.1:9/' },
      })
    ).body;
    for (const [i, ok] of [true, false].entries())
      await recordCheck(server.runtime.commands, monitor.id, check(ok, i), ctx);
    await server.stop({ remove: false });

    server = await startTestServer({ dataDir, notifications: true });
    const before = await server.runtime.log.headPosition();
    await eventually(
      async () =>
        (await server.runtime.reactorStates.stores.notifications.checkpoint()) === before ? true : undefined,
      10_000,
    );
    await recordCheck(server.runtime.commands, monitor.id, check(true, 2), ctx);
    await eventually(async () => (hook.received.length === 1 ? true : undefined), 10_000);
    t.deepEqual(
      hook.received.map((r) => r.body.type),
      ['monitor.up'],
      'the DOWN recorded before the reactor ever ran is not sent',
    );
    const records = await server.runtime.log.readAll(null, 10_000);
    t.deepEqual(
      records.filter((r) => r.type === 'DeliverySkipped').map((r) => r.data),
      [],
      'nor recorded as skipped',
    );
    t.is(records.filter((r) => r.type === 'DeliveryScheduled').length, 1);
  },
);

test('a push subscription the service has expired deactivates its channel', async (t) => {
  const { server, service, token } = await serverWithPushService(t);
  const { projectId } = await projectWithKey(server.url, token, 'expired');
  const browser = await subscribe(service, server.runtime.vapid.publicKey);
  const channel = (
    await api(server.url, 'POST', '/v1/channels', {
      token,
      body: { project_id: projectId, type: 'webpush', subscription: browser.subscription },
    })
  ).body;
  await service.post(`/expire-subscription/${browser.clientHash}`, {});
  const monitor = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'm', url: 'http://127.0.0.1:9/' },
    })
  ).body;
  await recordCheck(server.runtime.commands, monitor.id, check(false, 0), ctx);
  const view = await eventually(async () => {
    const res = (await api(server.url, 'GET', `/v1/channels/${channel.id}`, { token })).body;
    return res.active === false ? res : undefined;
  }, 10_000);
  t.regex(view.deactivated_reason, /push subscription gone \(410\)/);
});

test('channel input is validated; channels of invisible projects are 404; deleting removes one', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'validated');
  const post = (body: unknown) => api(server.url, 'POST', '/v1/channels', { token, body });
  const paths = (res: { body: { error: { details: Array<{ path: string }> } } }) =>
    res.body.error.details.map((d) => d.path).sort();
  const bad = await post({ project_id: projectId, type: 'webhook', url: 'ftp://x', secret: 'short' });
  t.is(bad.status, 400);
  t.deepEqual(paths(bad), ['secret', 'url']);
  t.deepEqual(
    paths(
      await post({
        project_id: projectId,
        type: 'webpush',
        subscription: { endpoint: 'https://push.test/x', keys: {} },
      }),
    ),
    ['subscription.keys.auth', 'subscription.keys.p256dh'],
  );
  t.is((await post({ project_id: projectId, type: 'sms', url: 'https://x.test' })).status, 400);
  t.deepEqual(
    paths(await post({ project_id: projectId, type: 'webhook', url: 'https://x.test', events: ['everything'] })),
    ['events.0'],
  );
  t.is((await post({ project_id: randomUUID(), type: 'webhook', url: 'https://x.test' })).status, 404);
  const created = await post({ project_id: projectId, type: 'webhook', url: 'https://x.test/hook' });
  t.is(created.status, 201);
  t.like(created.body, { has_secret: false, events: ['healthcheck'], active: true, deactivated_reason: null });
  t.is(
    (await api(server.url, 'PUT', `/v1/channels/${created.body.id}`, { token, body: { active: 'no' } })).status,
    400,
  );
  t.is((await api(server.url, 'DELETE', `/v1/channels/${created.body.id}`, { token })).status, 204);
  t.is((await api(server.url, 'GET', `/v1/channels/${created.body.id}`, { token })).status, 404);
  t.is((await api(server.url, 'DELETE', `/v1/channels/${created.body.id}`, { token })).status, 404);
  t.is((await api(server.url, 'GET', '/v1/channels')).status, 401);
});
