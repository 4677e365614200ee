import test from 'ava';
import { deliveriesSettled, paths, setUp } from '../helpers/channels.ts';
import { providerReceiver } from '../helpers/provider-receiver.ts';
import { api, eventually, login, startTestServer, tempDir, type TestServer } from '../helpers/server.ts';

/** Deliveries through the real app and notification reactor (docs/notifications.md): the quiet
 *  period, the delivery log, retries and degraded channels, lanes, and restarts. */

test(
  'PagerDuty: a DOWN triggers and the UP resolves with the same dedup key, ' + 'each exactly once, across a restart',
  async (t) => {
    const dataDir = tempDir();
    let server = await startTestServer({ dataDir, notifications: true });
    const pd = await providerReceiver(() => ({
      status: 202,
      body: '{"status":"success","message":"Event processed"}',
    }));
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
    // Nothing left to send: no third message is coming.
    await deliveriesSettled(server);
    t.deepEqual(
      pd.received.map((r) => [r.json.event_action, r.json.dedup_key]),
      [
        ['trigger', `watchlog-monitor-${monitor.id}`],
        ['resolve', `watchlog-monitor-${monitor.id}`],
      ],
    );
  },
);

/** One server for the quiet period and the retries: each has a project, monitor and channels of
 *  its own (a channel is degraded after 2 failures in a row). */
let shared: TestServer;
test.before(async () => {
  shared = await startTestServer({ notifications: true, env: { WATCHLOG_NOTIFY_DEGRADED_AFTER: '2' } });
});
test.after.always(() => shared.stop());

test(
  'the quiet period: a second DOWN of a monitor within it is not sent, ' +
    'a recovery always is; the delivery log says why',
  async (t) => {
    const server = shared;
    const quiet = await providerReceiver();
    const loud = await providerReceiver();
    t.teardown(async () => {
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
    await eventually(
      async () => (loud.received.length === 5 && quiet.received.length === 4 ? true : undefined),
      15_000,
    );
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
  },
);

test(
  'retries with backoff, each try in the delivery log; degraded after failures in a row; ' +
    'POST /v1/deliveries/:id/retry sends a failed one again',
  async (t) => {
    const server = shared;
    let failing = true;
    const hook = await providerReceiver(() =>
      failing ? { status: 500, body: 'broken' } : { status: 200, body: 'ok' },
    );
    t.teardown(() => hook.close());
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
  },
);

test("one slow channel never delays another: each channel's deliveries go out in order, on their own", async (t) => {
  // A server of its own: the order of the two lanes is timed. Its try timeout is far above the
  // slow receiver's 1.5 s, so that a loaded machine cannot turn a slow answer into a retry.
  const server = await startTestServer({ notifications: true, notifier: { timeoutMs: 15_000 } });
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

test(
  'exactly one message per transition across a restart, ' + 'also for a delivery stopped between its tries',
  async (t) => {
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
    // Another restart, and a check that is no transition, send nothing more: the reactor reaches
    // the check with nothing left to send.
    await server.stop({ remove: false });
    server = await startTestServer({ dataDir, notifications: true });
    await checks([false], 2, 1, server);
    await deliveriesSettled(server);
    t.is(hook.received.length, 3);
    t.deepEqual(
      new Set(hook.received.map((r) => r.headers['x-watchlog-delivery'])).size,
      1,
      "every try carries the transition's id",
    );
    t.is(hook.received.filter((r) => r.json.type === 'monitor.down').length, 3);
  },
);
