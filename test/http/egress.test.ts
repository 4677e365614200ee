import test from 'ava';
import { createECDH, randomBytes } from 'node:crypto';
import {
  api,
  eventually,
  login,
  projectWithKey,
  startTestServer,
  tempDir,
  type TestServer,
} from '../helpers/server.ts';
import { startTarget, type Target } from '../helpers/target.ts';

/** The egress policy through the real app (WATCHLOG_EGRESS_DENY / _ALLOW in its environment), on
 *  loopback only: the target on 127.0.0.1 counts the TCP connections it accepts, and nothing the
 *  policy refuses may reach it. The deny list is the loopback ranges, as docker-compose.yml sets. */

const LOOPBACK = '127.0.0.0/8,::1/128';
/** localhost may also resolve to ::1; whichever denied address comes first is named. */
const BLOCKED = /^blocked by egress policy \((127\.0\.0\.1 is in 127\.0\.0\.0\/8|::1 is in ::1)\)$/;
const BLOCKED_LITERAL = 'blocked by egress policy (127.0.0.1 is in 127.0.0.0/8)';

let server: TestServer;
let token: string;
let target: Target;
let port: string;

test.before(async () => {
  server = await startTestServer({ env: { WATCHLOG_EGRESS_DENY: LOOPBACK }, jobs: true, notifications: true });
  token = await login(server.url);
  target = await startTarget(200);
  port = new URL(target.url).port;
});
test.after.always(async () => {
  await server.stop();
  await target.close();
});

const monitor = (body: Record<string, unknown>) => api(server.url, 'POST', '/v1/monitors', { token, body });
const pushKeys = () => ({
  p256dh: createECDH('prime256v1').generateKeys().toString('base64url'),
  auth: randomBytes(16).toString('base64url'),
});

test(
  'POST /v1/monitors/:id/test on a host name that resolves to a denied address: ' + 'a blocked result, no connection',
  async (t) => {
    const { projectId } = await projectWithKey(server.url, token, 'on-demand');
    const created = await monitor({
      project_id: projectId,
      name: 'internal',
      url: `http://localhost:${port}/health`,
      enabled: false,
    });
    t.is(created.status, 201, 'a host name is not resolved when saved');
    const res = await api(server.url, 'POST', `/v1/monitors/${created.body.id}/test`, { token });
    t.is(res.status, 200);
    t.like(res.body, { ok: false, status_code: null });
    t.regex(res.body.error, BLOCKED);
    t.is(target.connections, 0);
  },
);

test(
  'scheduled checks: the monitor goes DOWN with the policy text in its history, ' +
    'last_error and down event; its channels get nothing through, and no retry',
  async (t) => {
    const { projectId } = await projectWithKey(server.url, token, 'scheduled');
    const channel = (body: Record<string, unknown>) =>
      api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
    const webhook = await channel({ type: 'webhook', url: `http://localhost:${port}/hook`, secret: 'webhook-secret' });
    const push = await channel({
      type: 'webpush',
      subscription: { endpoint: `http://localhost:${port}/push/1`, keys: pushKeys() },
    });
    t.deepEqual([webhook.status, push.status], [201, 201]);

    const { body: created } = await monitor({
      project_id: projectId,
      name: 'scheduled',
      url: `http://localhost:${port}/health`,
      interval_seconds: 10,
      timeout_seconds: 2,
    });
    const down = await eventually(async () => {
      const m = (await api(server.url, 'GET', `/v1/monitors/${created.id}`, { token })).body;
      return m.status === 'DOWN' ? m : undefined;
    }, 10_000);
    t.regex(down.last_error, BLOCKED);
    t.is(down.last_status_code, null);
    const [check] = (await api(server.url, 'GET', `/v1/monitors/${created.id}/history`, { token })).body;
    t.like(check, { ok: false, status_code: null });
    t.regex(check.error, BLOCKED);

    const event = await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.down`, {
        token,
      });
      return res.body.pagination.totalItems === 1 ? res.body.data[0] : undefined;
    });
    const detail = (await api(server.url, 'GET', `/v1/audit/${event.id}`, { token })).body;
    t.regex(detail.request_body.error, BLOCKED);

    // The transition's deliveries: recorded as not delivered, with the policy's text, one attempt each.
    const deliveries = await eventually(async () => {
      const found = await server.runtime.readModels.deliveries.forEvent(event.id, { all: true });
      return found.length === 2 && found.every((d) => d.status === 'failed') ? found : undefined;
    }, 10_000);
    for (const d of deliveries) {
      t.is(d.attempts.length, 1);
      t.like(d.attempts[0], { outcome: 'failed', status: null });
      t.regex(d.attempts[0]!.error ?? '', BLOCKED);
    }
    t.deepEqual(deliveries.map((d) => d.channel_id).sort(), [webhook.body.id, push.body.id].sort());
    t.is(
      (await api(server.url, 'GET', `/v1/channels/${push.body.id}`, { token })).body.active,
      true,
      'a refused push endpoint is not "gone"',
    );
    t.is(target.connections, 0);
  },
);

test('a URL whose host is a literal denied address is 400 when saved, naming the field and the rule', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'literal');
  const details = (res: { body: { error: { details: unknown } } }) => res.body.error.details;

  const created = await monitor({ project_id: projectId, name: 'direct', url: `http://127.0.0.1:${port}/health` });
  t.is(created.status, 400);
  t.is(created.body.error.message, 'invalid monitor: url');
  t.deepEqual(details(created), [{ path: 'url', message: BLOCKED_LITERAL }]);
  // IPv4-mapped IPv6 and the other spellings of 127.0.0.1 a URL accepts are the same address.
  for (const host of ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '2130706433', '127.1']) {
    const res = await monitor({ project_id: projectId, name: 'mapped', url: `http://${host}:${port}/` });
    t.is(res.status, 400, host);
    t.deepEqual(details(res), [{ path: 'url', message: BLOCKED_LITERAL }], host);
  }
  t.deepEqual(details(await monitor({ project_id: projectId, name: 'v6', url: `http://[::1]:${port}/` })), [
    { path: 'url', message: 'blocked by egress policy (::1 is in ::1)' },
  ]);

  const ok = await monitor({
    project_id: projectId,
    name: 'by name',
    url: `http://localhost:${port}/`,
    enabled: false,
  });
  t.is(ok.status, 201);
  const put = await api(server.url, 'PUT', `/v1/monitors/${ok.body.id}`, {
    token,
    body: { url: `http://127.0.0.1:${port}/` },
  });
  t.is(put.status, 400);
  t.deepEqual(details(put), [{ path: 'url', message: BLOCKED_LITERAL }]);
  t.is((await api(server.url, 'GET', `/v1/monitors/${ok.body.id}`, { token })).body.url, `http://localhost:${port}/`);

  const channel = (body: Record<string, unknown>) =>
    api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
  const hook = await channel({ type: 'webhook', url: `http://127.0.0.1:${port}/hook` });
  t.is(hook.status, 400);
  t.deepEqual(details(hook), [{ path: 'url', message: BLOCKED_LITERAL }]);
  const push = await channel({
    type: 'webpush',
    subscription: { endpoint: `https://[::ffff:127.0.0.1]:${port}/push`, keys: pushKeys() },
  });
  t.is(push.status, 400);
  t.deepEqual(details(push), [{ path: 'subscription.endpoint', message: BLOCKED_LITERAL }]);
  t.is((await api(server.url, 'GET', `/v1/channels?project_id=${projectId}`, { token })).body.length, 0);
  t.is(target.connections, 0);
});

test('WATCHLOG_EGRESS_ALLOW overrides the deny list: by address, and by host name', async (t) => {
  const allowed = await startTestServer({
    env: { WATCHLOG_EGRESS_DENY: LOOPBACK, WATCHLOG_EGRESS_ALLOW: '127.0.0.1,localhost' },
  });
  const reached = await startTarget(200);
  t.teardown(async () => {
    await allowed.stop();
    await reached.close();
  });
  const admin = await login(allowed.url);
  const { projectId } = await projectWithKey(allowed.url, admin, 'allowed');
  const reachedPort = new URL(reached.url).port;
  for (const [i, url] of [
    `http://127.0.0.1:${reachedPort}/health`,
    `http://localhost:${reachedPort}/health`,
  ].entries()) {
    const created = await api(allowed.url, 'POST', '/v1/monitors', {
      token: admin,
      body: { project_id: projectId, name: `allowed ${i}`, url, enabled: false },
    });
    t.is(created.status, 201, url);
    const res = await api(allowed.url, 'POST', `/v1/monitors/${created.body.id}/test`, { token: admin });
    t.like(res.body, { ok: true, status_code: 200, error: null }, url);
  }
  t.is(reached.connections, 2);
  // 127.0.0.2 is not on the allow list.
  t.is(
    (
      await api(allowed.url, 'POST', '/v1/monitors', {
        token: admin,
        body: { project_id: projectId, name: 'other', url: 'http://127.0.0.2/' },
      })
    ).status,
    400,
  );
});

test('a monitor saved before the deny list covered it is refused when checked: IPv4-mapped IPv6 literal', async (t) => {
  const dataDir = tempDir();
  const before = await startTestServer({ dataDir });
  const admin = await login(before.url);
  const { projectId } = await projectWithKey(before.url, admin, 'tightened');
  const created = await api(before.url, 'POST', '/v1/monitors', {
    token: admin,
    body: { project_id: projectId, name: 'mapped', url: `http://[::ffff:127.0.0.1]:${port}/health`, enabled: false },
  });
  t.is(created.status, 201, 'loopback is allowed by default');
  await before.stop({ remove: false });

  const after = await startTestServer({ dataDir, env: { WATCHLOG_EGRESS_DENY: LOOPBACK } });
  t.teardown(() => after.stop());
  const res = await api(after.url, 'POST', `/v1/monitors/${created.body.id}/test`, { token: await login(after.url) });
  t.like(res.body, { ok: false, status_code: null, error: BLOCKED_LITERAL });
  t.is(target.connections, 0);
});
