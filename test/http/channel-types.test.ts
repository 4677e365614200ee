import test from 'ava';
import { recordCheck } from '../../src/commands/monitors.ts';
import type { CheckResult } from '../../src/domain/monitor.ts';
import { providerReceiver } from '../helpers/provider-receiver.ts';
import { smtpServer } from '../helpers/smtp.ts';
import {
  api,
  eventually,
  login,
  projectWithKey,
  startTestServer,
  tempDir,
  type TestServer,
} from '../helpers/server.ts';

/** Channel types, test sends, the quiet period, the delivery log, retries and degraded channels,
 *  through the real app and notification reactor (docs/notifications.md). */

const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
const check = (ok: boolean, offsetS: number): CheckResult => ({
  checked_at: new Date(Date.now() + offsetS * 1000).toISOString(),
  ok,
  response_ms: 5,
  ...(ok ? { status_code: 200 } : { status_code: 503 }),
});

/** A monitor (never checked by a job: its checks are recorded by the test) in a new project. */
const setUp = async (server: TestServer, name = 'shop') => {
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, name);
  const monitor = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'checkout-api', url: 'http://127.0.0.1:9/health' },
    })
  ).body as { id: string };
  const channel = async (body: Record<string, unknown>) => {
    const res = await api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string } & Record<string, unknown>;
  };
  /** Records checks with these outcomes, `step` seconds apart from `from`, through `on` (the
   *  server, or the one started after a restart). */
  const checks = async (outcomes: boolean[], from = 0, step = 1, on = server) => {
    for (const [i, ok] of outcomes.entries())
      await recordCheck(on.runtime.commands, monitor.id, check(ok, from + i * step), ctx);
  };
  return { token, projectId, monitor, channel, checks };
};

const paths = (res: { body: { error: { details: Array<{ path: string }> } } }) =>
  res.body.error.details.map((d) => d.path).sort();

test('every channel type is saved with its settings and shown without a secret; faulty fields are named', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_EGRESS_DENY: '169.254.0.0/16' } });
  t.teardown(() => server.stop());
  const { token, projectId, channel } = await setUp(server);
  const secrets = ['T000/B000/sl4ck', 'disc0rd-t0ken', 'te4ms-sig', 'R0UT1NGKEY', 'smtp-p4ss', 'tk_ntfy'];
  const created = [
    await channel({
      type: 'slack',
      url: 'https://hooks.slack.com/services/T000/B000/sl4ck',
      name: 'Ops Slack',
      events: ['healthcheck', 'alert'],
    }),
    await channel({ type: 'discord', url: 'https://discord.com/api/webhooks/1/disc0rd-t0ken', quiet_minutes: 15 }),
    await channel({
      type: 'teams',
      url: 'https://prod.westeurope.logic.azure.com/workflows/1/triggers/manual/paths/invoke?sig=te4ms-sig',
    }),
    await channel({ type: 'pagerduty', routing_key: 'R0UT1NGKEY', severity: 'error' }),
    await channel({
      type: 'email',
      smtp: { host: 'smtp.example.com', username: 'mailer', password: 'smtp-p4ss' },
      from: 'watchlog@example.com',
      to: ['ops@example.com'],
    }),
    await channel({ type: 'ntfy', topic: 'ops-alerts', token: 'tk_ntfy' }),
  ];
  t.like(created[0], {
    type: 'slack',
    name: 'Ops Slack',
    url: 'https://hooks.slack.com/…',
    has_secret: true,
    events: ['healthcheck', 'alert'],
    project_scope: 'project',
    degraded: false,
  });
  t.like(created[1], { type: 'discord', url: 'https://discord.com/…', quiet_minutes: 15 });
  t.like(created[3], {
    type: 'pagerduty',
    url: 'https://events.pagerduty.com/v2/enqueue',
    settings: { severity: 'error' },
  });
  t.like(created[4], {
    type: 'email',
    url: 'smtp://smtp.example.com:587',
    has_secret: true,
    settings: {
      from: 'watchlog@example.com',
      to: ['ops@example.com'],
      smtp: {
        host: 'smtp.example.com',
        port: 587,
        security: 'starttls',
        username: 'mailer',
        reject_unauthorized: true,
        has_ca: false,
      },
    },
  });
  t.like(created[5], {
    type: 'ntfy',
    url: 'https://ntfy.sh/ops-alerts',
    has_secret: true,
    settings: { topic: 'ops-alerts' },
  });
  const listed = JSON.stringify((await api(server.url, 'GET', `/v1/channels?project_id=${projectId}`, { token })).body);
  for (const secret of secrets) t.false(listed.includes(secret), `${secret} is never shown`);

  const post = (body: Record<string, unknown>) =>
    api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
  t.deepEqual(
    paths(await post({ type: 'email', smtp: { host: '', port: 0, security: 'ssl' }, from: 'nobody', to: [] })),
    ['from', 'smtp.host', 'smtp.port', 'smtp.security', 'to'],
  );
  t.deepEqual(
    paths(
      await post({
        type: 'email',
        smtp: { host: 'smtp.example.com', tls: true },
        from: 'a@example.com',
        to: ['ok@example.com', 'not-an-address'],
      }),
    ),
    ['smtp.tls', 'to.1'],
  );
  t.deepEqual(paths(await post({ type: 'pagerduty', severity: 'fatal' })), ['routing_key', 'severity']);
  t.deepEqual(paths(await post({ type: 'ntfy', topic: 'no spaces here', url: 'ftp://ntfy.example.com' })), [
    'topic',
    'url',
  ]);
  t.deepEqual(paths(await post({ type: 'slack', url: 'https://hooks.slack.com/x', secret: 'a-secret-1' })), ['secret']);
  t.deepEqual(paths(await post({ type: 'teams', url: 'https://x.example.com/', quiet_minutes: 2000, name: '' })), [
    'name',
    'quiet_minutes',
  ]);
  const denied = await post({
    type: 'email',
    smtp: { host: '169.254.169.254' },
    from: 'a@example.com',
    to: ['b@example.com'],
  });
  t.is(denied.status, 400);
  t.deepEqual(denied.body.error.details, [
    { path: 'smtp.host', message: 'blocked by egress policy (169.254.169.254 is in 169.254.0.0/16)' },
  ]);
  const wrongType = await post({ type: 'sms', url: 'https://x.example.com/' });
  t.deepEqual(wrongType.body.error.details, [
    { path: 'type', message: 'must be one of webhook, webpush, slack, discord, teams, email, pagerduty, ntfy' },
  ]);

  // A channel for every project is an admin's: a member may not make one, nor see it.
  const member = { email: 'member@example.com', password: 'member-password' };
  await api(server.url, 'POST', '/v1/users', { token, body: { ...member, role: 'member', project_ids: [projectId] } });
  const memberToken = await login(server.url, member.email, member.password);
  const asMember = await api(server.url, 'POST', '/v1/channels', {
    token: memberToken,
    body: { project_id: projectId, type: 'slack', url: 'https://hooks.slack.com/x', project_scope: 'all' },
  });
  t.is(asMember.status, 400);
  t.deepEqual(asMember.body.error.details, [{ path: 'project_scope', message: 'may be all only for admins' }]);
  const everywhere = await channel({
    type: 'slack',
    url: 'https://hooks.slack.com/services/all',
    project_scope: 'all',
  });
  t.is((await api(server.url, 'GET', `/v1/channels/${everywhere.id}`, { token: memberToken })).status, 404);
  t.false(
    JSON.stringify((await api(server.url, 'GET', '/v1/channels', { token: memberToken })).body).includes(everywhere.id),
  );

  const updated = await api(server.url, 'PUT', `/v1/channels/${created[0]!.id}`, {
    token,
    body: { name: null, quiet_minutes: 5, active: false },
  });
  t.like(updated.body, { name: null, quiet_minutes: 5, active: false });
  t.deepEqual(
    paths(
      await api(server.url, 'PUT', `/v1/channels/${created[0]!.id}`, {
        token,
        body: { url: 'https://elsewhere.example.com' },
      }),
    ),
    ['url'],
  );
});

test('POST /v1/channels/:id/test sends a test notification now and answers with what the provider said; nothing is recorded', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_PUBLIC_URL: 'https://watchlog.example.com/' } });
  const slack = await providerReceiver((n) =>
    n === 0 ? { status: 200, body: 'ok' } : { status: 404, body: 'no_service' },
  );
  const smtp = await smtpServer();
  t.teardown(async () => {
    await server.stop();
    await slack.close();
    await smtp.close();
  });
  const { token, projectId, channel } = await setUp(server);
  const chat = await channel({ type: 'slack', url: `${slack.base}/services/T/B/X`, name: 'Ops Slack', active: false });
  const ok = await api(server.url, 'POST', `/v1/channels/${chat.id}/test`, { token });
  t.is(ok.status, 200);
  t.like(ok.body, { ok: true, status: 200, response: 'ok', error: null });
  t.true(Number.isInteger(ok.body.duration_ms));
  const sent = slack.received[0]!.json;
  t.is(sent.blocks[0].text.text, '🧪 watchlog test notification');
  t.true((sent.text as string).includes('Ops Slack'));
  t.is(sent.blocks.at(-1).elements[0].url, `https://watchlog.example.com/p/${projectId}/settings?tab=channels`);
  t.like((await api(server.url, 'POST', `/v1/channels/${chat.id}/test`, { token })).body, {
    ok: false,
    status: 404,
    response: 'no_service',
    error: 'answered 404',
  });

  const mail = await channel({
    type: 'email',
    smtp: { host: '127.0.0.1', port: smtp.port, security: 'none' },
    from: 'watchlog@example.com',
    to: ['ops@example.com'],
  });
  t.like((await api(server.url, 'POST', `/v1/channels/${mail.id}/test`, { token })).body, { ok: true, status: 250 });
  t.is(smtp.messages[0]!.mail.subject, '[watchlog] watchlog test notification');

  const auditor = { email: 'auditor@example.com', password: 'auditor-password' };
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { ...auditor, role: 'auditor', project_ids: [projectId] },
  });
  t.is(
    (
      await api(server.url, 'POST', `/v1/channels/${chat.id}/test`, {
        token: await login(server.url, auditor.email, auditor.password),
      })
    ).status,
    403,
  );
  t.is(
    (await api(server.url, 'POST', '/v1/channels/00000000-0000-4000-8000-000000000000/test', { token })).status,
    404,
  );
  t.is((await api(server.url, 'POST', `/v1/channels/${chat.id}/test?x=1`, { token })).status, 400);
  t.deepEqual((await api(server.url, 'GET', `/v1/channels/${chat.id}/deliveries`, { token })).body.data, []);
});

test('PagerDuty: a DOWN triggers and the UP resolves with the same dedup key, each exactly once, across a restart', async (t) => {
  const dataDir = tempDir();
  let server = await startTestServer({ dataDir, notifications: true });
  const pd = await providerReceiver(() => ({ status: 202, body: '{"status":"success","message":"Event processed"}' }));
  t.teardown(async () => {
    await server.stop();
    await pd.close();
  });
  const { channel, checks, monitor } = await setUp(server);
  await channel({ type: 'pagerduty', routing_key: 'R0UT1NGKEY0000000000000000000001', url: `${pd.base}/v2/enqueue` });
  await checks([true, false]);
  await eventually(async () => (pd.received.length === 1 ? true : undefined), 10_000);
  await server.stop({ remove: false });
  server = await startTestServer({ dataDir, notifications: true });
  await checks([true], 2, 1, server);
  await eventually(async () => (pd.received.length === 2 ? true : undefined), 10_000);
  await new Promise((r) => setTimeout(r, 500));
  t.deepEqual(
    pd.received.map((r) => [r.json.event_action, r.json.dedup_key]),
    [
      ['trigger', `watchlog-monitor-${monitor.id}`],
      ['resolve', `watchlog-monitor-${monitor.id}`],
    ],
  );
});

test('the quiet period: a second DOWN of a monitor within it is not sent, a recovery always is; the delivery log says why', async (t) => {
  const server = await startTestServer({ notifications: true });
  const quiet = await providerReceiver();
  const loud = await providerReceiver();
  t.teardown(async () => {
    await server.stop();
    await quiet.close();
    await loud.close();
  });
  const { token, channel, checks } = await setUp(server);
  const calm = await channel({ type: 'discord', url: `${quiet.base}/api/webhooks/1/x`, quiet_minutes: 10 });
  await channel({ type: 'discord', url: `${loud.base}/api/webhooks/2/y` });
  // DOWN, UP, DOWN a minute later, UP, then DOWN eleven minutes after the first.
  await checks([true, false], 0, 60);
  await checks([true, false, true], 120, 60);
  await checks([false], 660);
  await eventually(async () => (loud.received.length === 5 && quiet.received.length === 4 ? true : undefined), 15_000);
  const titles = (r: typeof quiet) => r.received.map((x) => (x.json.embeds[0].title as string).replace(/^\S+ /, ''));
  t.deepEqual(titles(loud), [
    'checkout-api is DOWN',
    'checkout-api is UP',
    'checkout-api is DOWN',
    'checkout-api is UP',
    'checkout-api is DOWN',
  ]);
  t.deepEqual(titles(quiet), [
    'checkout-api is DOWN',
    'checkout-api is UP',
    'checkout-api is UP',
    'checkout-api is DOWN',
  ]);
  const log = await eventually(async () => {
    const res = (await api(server.url, 'GET', `/v1/channels/${calm.id}/deliveries`, { token })).body;
    return res.pagination.totalItems === 5 && res.data.every((d: { status: string }) => d.status !== 'pending')
      ? res
      : undefined;
  }, 10_000);
  t.deepEqual(
    log.data.map((d: { status: string }) => d.status),
    ['delivered', 'delivered', 'skipped', 'delivered', 'delivered'],
  );
  t.regex(
    log.data[2].reason,
    /^not sent: within the channel's quiet period \(10 min\) after the DOWN sent for this monitor at /,
  );
  t.deepEqual(log.data[2].attempts, []);
});

test('retries with backoff, each try in the delivery log; degraded after failures in a row; POST /v1/deliveries/:id/retry sends a failed one again', async (t) => {
  const server = await startTestServer({ notifications: true, env: { WATCHLOG_NOTIFY_DEGRADED_AFTER: '2' } });
  let failing = true;
  const hook = await providerReceiver(() => (failing ? { status: 500, body: 'broken' } : { status: 200, body: 'ok' }));
  t.teardown(async () => {
    await server.stop();
    await hook.close();
  });
  const { token, projectId, channel, checks } = await setUp(server);
  const ntfy = await channel({ type: 'ntfy', url: hook.base, topic: 'ops' });
  await checks([true, false, true]);
  const failed = await eventually(async () => {
    const res = (await api(server.url, 'GET', `/v1/channels/${ntfy.id}/deliveries`, { token })).body;
    return res.data.length === 2 && res.data.every((d: { status: string }) => d.status === 'failed')
      ? res.data
      : undefined;
  }, 15_000);
  t.is(hook.received.length, 6, 'three tries each');
  const [upDelivery, downDelivery] = failed;
  t.like(downDelivery, {
    channel_id: ntfy.id,
    channel_type: 'ntfy',
    project_id: projectId,
    event_type: 'monitor.down',
    title: 'checkout-api is DOWN',
    status: 'failed',
  });
  t.deepEqual(
    downDelivery.attempts.map((a: Record<string, unknown>) => [a.attempt, a.outcome, a.status, a.error, a.response]),
    [
      [1, 'failed', 500, 'answered 500', 'broken'],
      [2, 'failed', 500, 'answered 500', 'broken'],
      [3, 'failed', 500, 'answered 500', 'broken'],
    ],
  );
  const times = downDelivery.attempts.map((a: { at: string }) => Date.parse(a.at));
  t.true(times[1] - times[0] >= 15 && times[2] - times[1] >= 30, `backoff between tries: ${times.join(', ')}`);

  const degraded = await eventually(async () => {
    const res = (await api(server.url, 'GET', `/v1/channels/${ntfy.id}`, { token })).body;
    return res.degraded ? res : undefined;
  }, 10_000);
  t.is(degraded.degraded_reason, '2 deliveries in a row failed; the last: answered 500');
  t.truthy(degraded.degraded_since);
  t.deepEqual(
    (await api(server.url, 'GET', `/v1/deliveries?event_id=${downDelivery.event_id}`, { token })).body.map(
      (d: { id: string }) => d.id,
    ),
    [downDelivery.id],
  );
  t.like((await api(server.url, 'GET', `/v1/deliveries/${downDelivery.id}`, { token })).body, {
    id: downDelivery.id,
    status: 'failed',
  });

  failing = false;
  const retried = await api(server.url, 'POST', `/v1/deliveries/${downDelivery.id}/retry`, { token });
  t.is(retried.status, 202);
  t.like(retried.body, { id: downDelivery.id, status: 'pending' });
  const delivered = await eventually(async () => {
    const d = (await api(server.url, 'GET', `/v1/deliveries/${downDelivery.id}`, { token })).body;
    return d.status === 'delivered' ? d : undefined;
  }, 10_000);
  t.deepEqual(
    delivered.attempts.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome]),
    [
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
      [4, 'delivered'],
    ],
  );
  t.is(hook.received.length, 7);
  t.is(hook.received[6]!.json.title, 'checkout-api is DOWN', 'the same notification, sent again');
  await eventually(
    async () =>
      (await api(server.url, 'GET', `/v1/channels/${ntfy.id}`, { token })).body.degraded === false ? true : undefined,
    10_000,
  );

  const again = await api(server.url, 'POST', `/v1/deliveries/${downDelivery.id}/retry`, { token });
  t.is(again.status, 409);
  t.is(again.body.error.message, 'only a failed or cancelled delivery can be sent again; this one is delivered');
  t.is(
    (await api(server.url, 'POST', '/v1/deliveries/00000000-0000-4000-8000-000000000000/retry', { token })).status,
    404,
  );
  t.is(
    (
      await api(server.url, 'POST', `/v1/deliveries/${upDelivery.id}/retry`, {
        token: await (async () => {
          const auditor = { email: 'auditor@example.com', password: 'auditor-password' };
          await api(server.url, 'POST', '/v1/users', {
            token,
            body: { ...auditor, role: 'auditor', project_ids: [projectId] },
          });
          return login(server.url, auditor.email, auditor.password);
        })(),
      })
    ).status,
    403,
  );

  t.deepEqual(
    paths(await api(server.url, 'GET', `/v1/channels/${ntfy.id}/deliveries?status=lost&limit=0`, { token })),
    ['limit', 'status'],
  );
  t.deepEqual(paths(await api(server.url, 'GET', '/v1/deliveries', { token })), ['event_id']);
  const paged = (
    await api(server.url, 'GET', `/v1/channels/${ntfy.id}/deliveries?limit=1&page=2&status=failed`, { token })
  ).body;
  t.deepEqual(paged.pagination, { page: 2, limit: 1, totalItems: 1, totalPage: 1 });
});

test("one slow channel never delays another: each channel's deliveries go out in order, on their own", async (t) => {
  const server = await startTestServer({ notifications: true });
  const slow = await providerReceiver(() => ({ status: 200, delayMs: 1500 }));
  const fast = await providerReceiver();
  t.teardown(async () => {
    await server.stop();
    await slow.close();
    await fast.close();
  });
  const { channel, checks } = await setUp(server);
  await channel({ type: 'slack', url: `${slow.base}/slow` });
  await channel({ type: 'slack', url: `${fast.base}/fast` });
  await checks([true, false, true, false, true]);
  await eventually(async () => (fast.received.length === 4 ? true : undefined), 10_000);
  const fastDone = fast.received[3]!.at;
  t.true(
    slow.received.length <= 2,
    `the slow channel has had ${slow.received.length} requests when the fast one has had all 4`,
  );
  await eventually(async () => (slow.received.length === 4 ? true : undefined), 20_000);
  t.true(fastDone < slow.received[1]!.at, 'the fast channel was done before the slow one had its second');
  const order = (r: typeof slow) => r.received.map((x) => (x.json.blocks[0].text.text as string).split(' ').at(-1));
  t.deepEqual(order(slow), ['DOWN', 'UP', 'DOWN', 'UP']);
  t.deepEqual(order(fast), ['DOWN', 'UP', 'DOWN', 'UP']);
});

test('exactly one message per transition across a restart, also for a delivery stopped between its tries', async (t) => {
  const dataDir = tempDir();
  // Long backoff, so that the stop comes while the delivery waits for its second try.
  let server = await startTestServer({
    dataDir,
    notifications: true,
    notifier: { retry: { attempts: 5, minTimeoutMs: 3000, maxTimeoutMs: 3000 }, timeoutMs: 2000 },
  });
  let failures = 2;
  const hook = await providerReceiver(() =>
    failures-- > 0 ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' },
  );
  t.teardown(async () => {
    await server.stop();
    await hook.close();
  });
  const { token, channel, checks } = await setUp(server);
  const webhook = await channel({ type: 'webhook', url: `${hook.base}/hook` });
  await checks([true, false]);
  await eventually(async () => (hook.received.length === 1 ? true : undefined), 10_000);
  await server.stop({ remove: false });
  t.is(hook.received.length, 1, 'the stop ended the wait for the second try');

  server = await startTestServer({ dataDir, notifications: true });
  const delivered = await eventually(async () => {
    const res = (await api(server.url, 'GET', `/v1/channels/${webhook.id}/deliveries`, { token })).body;
    return res.data[0]?.status === 'delivered' ? res.data[0] : undefined;
  }, 15_000);
  t.deepEqual(
    delivered.attempts.map((a: { attempt: number; status: number }) => [a.attempt, a.status]),
    [
      [1, 503],
      [2, 503],
      [3, 200],
    ],
  );
  // Another restart, and a while, send nothing more.
  await server.stop({ remove: false });
  server = await startTestServer({ dataDir, notifications: true });
  await checks([false], 2, 1, server);
  await new Promise((r) => setTimeout(r, 1500));
  t.is(hook.received.length, 3);
  t.deepEqual(
    new Set(hook.received.map((r) => r.headers['x-watchlog-delivery'])).size,
    1,
    "every try carries the transition's id",
  );
  t.is(hook.received.filter((r) => r.json.type === 'monitor.down').length, 3);
});
