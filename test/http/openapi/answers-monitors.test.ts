import test from 'ava';
import { driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';
import { providerReceiver } from '../../helpers/provider-receiver.ts';
import { eventually } from '../../helpers/server.ts';
import { type Target, startTarget } from '../../helpers/target.ts';

/** Monitors, notification channels and deliveries, and the auditors' operations, each real
 *  answer checked against the description (test/helpers/openapi-driver.ts). The worker's jobs,
 *  the notification reactor and the checkpoint sealer run. */

let target: Target;
let hook: Awaited<ReturnType<typeof providerReceiver>>;
/** Whether the webhook receiver answers 500. */
let hookFails = true;
const ids: Record<string, string> = {};

const drive = driveServer({
  jobs: true,
  checkpoints: true,
  notifications: true,
  env: { WATCHLOG_CHECKPOINT_INTERVAL_MS: '200' },
});

test.serial.before(async () => {
  target = await startTarget(200);
  hook = await providerReceiver(() => (hookFails ? { status: 500, body: 'broken' } : { status: 200, body: 'ok' }));
  const { server, admin } = drive();
  const res = await fetch(`${server.url}/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'shop' }),
  });
  ids.project = ((await res.json()) as { id: string }).id;
});
test.after.always(async () => {
  await target?.close();
  await hook?.close();
});

test.serial('monitors and notification channels', async (t) => {
  // A webhook that fails until told otherwise: the monitor's DOWN is a failed delivery to retry.
  const listener = await drive().call(
    t,
    'POST /v1/channels',
    '/v1/channels',
    { token: drive().admin, body: { project_id: ids.project, type: 'webhook', url: `${hook.base}/hook` } },
    201,
  );
  const monitor = await drive().call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: drive().admin, body: { project_id: ids.project, name: 'orders', url: target.url, interval_seconds: 10 } },
    201,
  );
  ids.monitor = monitor.body.id;
  const heartbeat = await drive().call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: drive().admin, body: { project_id: ids.project, name: 'cron', type: 'heartbeat', interval_seconds: 60 } },
    201,
  );
  const beat = `/v1/heartbeat/${heartbeat.body.heartbeat_token}`;
  await drive().call(t, 'GET /v1/heartbeat/:token', beat, {}, 200);
  await drive().call(t, 'POST /v1/heartbeat/:token', `${beat}?status=down&msg=failed`, {}, 200);
  await drive().call(t, 'GET /v1/heartbeat/:token', `/v1/heartbeat/${'x'.repeat(43)}`, {}, 404);
  await drive().call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: drive().admin, body: { project_id: ids.project, name: 'orders', url: 'ftp://x', interval_seconds: 5 } },
    400,
  );
  await drive().call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: drive().admin, body: { project_id: '00000000-0000-4000-8000-000000000000', name: 'x', url: target.url } },
    404,
  );
  await drive().call(t, 'GET /v1/monitors', `/v1/monitors?project_id=${ids.project}`, { token: drive().admin }, 200);
  await drive().call(
    t,
    'PUT /v1/monitors/:id',
    `/v1/monitors/${ids.monitor}`,
    { token: drive().admin, body: { expected_status: 200 } },
    200,
  );
  await drive().call(
    t,
    'POST /v1/monitors/:id/test',
    `/v1/monitors/${ids.monitor}/test`,
    { token: drive().admin },
    200,
  );
  await eventually(
    async () =>
      (
        await drive().call(
          t,
          'GET /v1/monitors/:id/history',
          `/v1/monitors/${ids.monitor}/history?limit=5`,
          { token: drive().admin },
          200,
        )
      ).body.length > 0
        ? true
        : undefined,
    15_000,
  );
  // Its state follows the check: a monitor with every field set.
  await eventually(async () =>
    (await drive().call(t, 'GET /v1/monitors/:id', `/v1/monitors/${ids.monitor}`, { token: drive().admin }, 200)).body
      .status === 'UP'
      ? true
      : undefined,
  );
  await drive().call(
    t,
    'GET /v1/monitors/:id/history',
    `/v1/monitors/${ids.monitor}/history?limit=201`,
    { token: drive().admin },
    400,
  );
  target.status = 500;
  const failed = await eventually(async () => {
    const page = (
      await drive().call(
        t,
        'GET /v1/channels/:id/deliveries',
        `/v1/channels/${listener.body.id}/deliveries?status=failed`,
        { token: drive().admin },
        200,
      )
    ).body;
    return page.data[0];
  }, 30_000);
  t.is(failed.attempts.length, 3);
  await drive().call(
    t,
    'GET /v1/channels/:id/deliveries',
    `/v1/channels/${listener.body.id}/deliveries?status=lost`,
    { token: drive().admin },
    400,
  );
  t.deepEqual(
    (
      await drive().call(
        t,
        'GET /v1/deliveries',
        `/v1/deliveries?event_id=${failed.event_id}`,
        { token: drive().admin },
        200,
      )
    ).body.map((d: { id: string }) => d.id),
    [failed.id],
  );
  await drive().call(t, 'GET /v1/deliveries', '/v1/deliveries', { token: drive().admin }, 400);
  await drive().call(t, 'GET /v1/deliveries/:id', `/v1/deliveries/${failed.id}`, { token: drive().admin }, 200);
  await drive().call(
    t,
    'GET /v1/deliveries/:id',
    '/v1/deliveries/00000000-0000-4000-8000-000000000000',
    { token: drive().admin },
    404,
  );
  const tested = await drive().call(
    t,
    'POST /v1/channels/:id/test',
    `/v1/channels/${listener.body.id}/test`,
    { token: drive().admin },
    200,
  );
  t.like(tested.body, { ok: false, status: 500, response: 'broken' });
  hookFails = false;
  await drive().call(
    t,
    'POST /v1/deliveries/:id/retry',
    `/v1/deliveries/${failed.id}/retry`,
    { token: drive().admin },
    202,
  );
  await eventually(
    async () =>
      (await drive().call(t, 'GET /v1/deliveries/:id', `/v1/deliveries/${failed.id}`, { token: drive().admin }, 200))
        .body.status === 'delivered'
        ? true
        : undefined,
    15_000,
  );
  await drive().call(
    t,
    'POST /v1/deliveries/:id/retry',
    `/v1/deliveries/${failed.id}/retry`,
    { token: drive().admin },
    409,
  );
  await drive().call(t, 'DELETE /v1/monitors/:id', `/v1/monitors/${ids.monitor}`, { token: drive().admin }, 204);
  await drive().call(t, 'GET /v1/monitors/:id', `/v1/monitors/${ids.monitor}`, { token: drive().admin }, 404);

  await drive().call(t, 'GET /v1/webpush/public-key', '/v1/webpush/public-key', { token: drive().admin }, 200);
  const channel = await drive().call(
    t,
    'POST /v1/channels',
    '/v1/channels',
    {
      token: drive().admin,
      body: {
        project_id: ids.project,
        type: 'webhook',
        url: 'http://127.0.0.1:9/hook',
        secret: 'a shared secret',
        events: ['healthcheck', 'alert'],
      },
    },
    201,
  );
  ids.channel = channel.body.id;
  await drive().call(
    t,
    'POST /v1/channels',
    '/v1/channels',
    { token: drive().admin, body: { project_id: ids.project, type: 'sms' } },
    400,
  );
  await drive().call(t, 'GET /v1/channels', '/v1/channels', { token: drive().admin }, 200);
  await drive().call(t, 'GET /v1/channels/:id', `/v1/channels/${ids.channel}`, { token: drive().admin }, 200);
  await drive().call(
    t,
    'PUT /v1/channels/:id',
    `/v1/channels/${ids.channel}`,
    { token: drive().admin, body: { active: false } },
    200,
  );
  await drive().call(
    t,
    'PUT /v1/channels/:id',
    `/v1/channels/${ids.channel}`,
    { token: drive().admin, body: { colour: 'red' } },
    400,
  );
  await drive().call(t, 'DELETE /v1/channels/:id', `/v1/channels/${ids.channel}`, { token: drive().admin }, 204);
});

test.serial('auditors: the stream, checkpoints and proofs', async (t) => {
  const scope = `project_id=${ids.project}`;
  const stream = await drive().call(t, 'GET /v1/stream', `/v1/stream?${scope}&limit=2`, { token: drive().admin }, 200);
  t.is(stream.text.trim().split('\n').length, 2);
  await drive().call(t, 'GET /v1/stream', '/v1/stream', { token: drive().admin }, 400);
  await drive().call(t, 'GET /v1/checkpoints/key', '/v1/checkpoints/key', { token: drive().admin }, 200);
  const latest = await eventually(async () => {
    const res = await drive().call(
      t,
      'GET /v1/checkpoints/latest',
      `/v1/checkpoints/latest?${scope}`,
      { token: drive().admin },
      (
        await fetch(`${drive().server.url}/v1/checkpoints/latest?${scope}`, {
          headers: { authorization: `Bearer ${drive().admin}` },
        })
      ).status,
    );
    return res.status === 200 && res.body.size >= 2 ? res.body : undefined;
  }, 15_000);
  await drive().call(
    t,
    'GET /v1/proofs/inclusion',
    `/v1/proofs/inclusion?${scope}&index=0&size=${latest.size}`,
    { token: drive().admin },
    200,
  );
  await drive().call(
    t,
    'GET /v1/proofs/inclusion',
    `/v1/proofs/inclusion?${scope}&index=${latest.size}&size=${latest.size}`,
    { token: drive().admin },
    400,
  );
  await drive().call(
    t,
    'GET /v1/proofs/consistency',
    `/v1/proofs/consistency?${scope}&from=1&to=${latest.size}`,
    { token: drive().admin },
    200,
  );
});

everyOperationDriven('answers-monitors.test.ts', drive);
