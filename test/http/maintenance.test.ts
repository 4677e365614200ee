import test from 'ava';
import { scheduleMaintenance, updateMaintenance } from '../../src/commands/maintenances.ts';
import { deliveriesSettled } from '../helpers/channels.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import { api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';
import { startTarget } from '../helpers/target.ts';

/** Maintenance windows end to end: a worker checking a real target, the maintenance clock, the
 *  notification reactor delivering to a real webhook receiver, and the API's answers. */

const SECRET = 'webhook-secret-maint';
const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();

interface Check {
  ok: boolean;
  in_maintenance?: true;
}

test(
  'a maintenance window suppresses the notification of a DOWN inside it, and the next DOWN outside it is sent; ' +
    'the checks inside are recorded and left out of uptime, and the monitor says it is in maintenance',
  async (t) => {
    const server = await startTestServer({ jobs: true, notifications: true });
    const hook = await webhookReceiver(SECRET);
    const target = await startTarget(200);
    t.teardown(async () => {
      await server.stop();
      await hook.close();
      await target.close();
    });
    const token = await login(server.url);
    const { projectId } = await projectWithKey(server.url, token, 'maintained');
    const channel = (
      await api(server.url, 'POST', '/v1/channels', {
        token,
        body: { project_id: projectId, type: 'webhook', url: hook.url, secret: SECRET },
      })
    ).body as { id: string };
    const create = async (name: string) =>
      (
        await api(server.url, 'POST', '/v1/monitors', {
          token,
          body: { project_id: projectId, name, url: target.url, timeout_seconds: 2 },
        })
      ).body as { id: string };
    const [checkout, search] = [await create('checkout'), await create('search')];
    const monitor = async (id: string) => (await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body;
    await eventually(async () =>
      (await monitor(checkout.id)).status === 'UP' && (await monitor(search.id)).status === 'UP' ? true : undefined,
    );
    t.false((await monitor(checkout.id)).in_maintenance);

    const window = await scheduleMaintenance(
      server.runtime.commands,
      {
        project_id: projectId,
        title: 'Checkout deploy',
        monitor_ids: [checkout.id],
        starts_at: ago(60),
        ends_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
      ctx,
    );
    await eventually(async () => ((await monitor(checkout.id)).in_maintenance === true ? true : undefined));
    const listed = (await api(server.url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body as Array<{
      id: string;
      in_maintenance: boolean;
    }>;
    t.deepEqual(
      listed.map((m) => [m.id, m.in_maintenance]),
      [
        [checkout.id, true],
        [search.id, false],
      ],
      'a window listing monitors covers those only',
    );

    // Inside: DOWN, still DOWN, UP again. Recorded, none of it sent.
    target.status = 503;
    await server.jobs!.check(checkout.id);
    await server.jobs!.check(checkout.id);
    target.status = 200;
    await server.jobs!.check(checkout.id);
    await deliveriesSettled(server);
    t.deepEqual(hook.received, [], 'nothing was sent for the transitions inside the window');
    const deliveries = await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/channels/${channel.id}/deliveries`, { token });
      return res.body.data.length === 2 ? (res.body.data as Array<Record<string, unknown>>) : undefined;
    });
    t.deepEqual(
      deliveries.map((d) => [d.event_type, d.status]),
      [
        ['monitor.up', 'skipped'],
        ['monitor.down', 'skipped'],
      ],
    );
    for (const d of deliveries) t.regex(String(d.reason), /^not sent: a maintenance window covered the monitor when/);

    // The window ends (changed to end now): the clock closes it, and the next DOWN is sent.
    await updateMaintenance(server.runtime.commands, window.id, { ends_at: new Date().toISOString() }, ctx);
    await eventually(async () => ((await monitor(checkout.id)).in_maintenance === false ? true : undefined));
    target.status = 503;
    await server.jobs!.check(checkout.id);
    const sent = await eventually(async () => (hook.received.length === 1 ? hook.received : undefined), 10_000);
    t.like(sent[0]!.body, { type: 'monitor.down', status: 'DOWN', monitor: { id: checkout.id, name: 'checkout' } });
    t.true(sent[0]!.verified);
    await deliveriesSettled(server);
    t.is(hook.received.length, 1);

    // The history keeps every check; uptime counts only those outside the window.
    const history = (await api(server.url, 'GET', `/v1/monitors/${checkout.id}/history`, { token })).body as Check[];
    t.deepEqual(
      history.map((c) => [c.ok, c.in_maintenance ?? false]),
      [
        [false, false],
        [true, true],
        [false, true],
        [false, true],
        [true, false],
      ],
    );
    const outside = history.filter((c) => !c.in_maintenance);
    const answer = await monitor(checkout.id);
    t.is(answer.uptime_24h, outside.filter((c) => c.ok).length / outside.length);
    t.not(answer.uptime_24h, history.filter((c) => c.ok).length / history.length);
    t.is(answer.status, 'DOWN');

    // The transitions inside are audited as any other, between the window's start and end.
    const audit = (
      await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&identifier=system&sort_order=asc`, { token })
    ).body.data as Array<{ event_type: string }>;
    t.deepEqual(
      audit.map((e) => e.event_type),
      [
        'system.maintenance.started',
        'system.healthcheck.down',
        'system.healthcheck.up',
        'system.maintenance.ended',
        'system.healthcheck.down',
      ],
    );
  },
);

test('a heartbeat that reports a failure inside a window covering every monitor is recorded, not sent', async (t) => {
  const server = await startTestServer({ jobs: true, notifications: true });
  const hook = await webhookReceiver(SECRET);
  t.teardown(async () => {
    await server.stop();
    await hook.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'beats');
  await api(server.url, 'POST', '/v1/channels', {
    token,
    body: { project_id: projectId, type: 'webhook', url: hook.url, secret: SECRET },
  });
  const created = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'nightly-job', type: 'heartbeat', interval_seconds: 3600 },
    })
  ).body as { id: string; heartbeat_token: string };
  await scheduleMaintenance(
    server.runtime.commands,
    {
      project_id: projectId,
      title: 'Migration',
      monitor_ids: 'all',
      starts_at: ago(60),
      ends_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
    ctx,
  );
  await eventually(async () =>
    (await api(server.url, 'GET', `/v1/monitors/${created.id}`, { token })).body.in_maintenance === true
      ? true
      : undefined,
  );
  const beat = await api(server.url, 'GET', `/v1/heartbeat/${created.heartbeat_token}?status=down&msg=disk+full`);
  t.deepEqual(beat.body, { status: 'recorded' });
  await deliveriesSettled(server);
  t.deepEqual(hook.received, []);
  const history = (await api(server.url, 'GET', `/v1/monitors/${created.id}/history`, { token })).body as Check[];
  t.like(history[0], { ok: false, in_maintenance: true, heartbeat: 'beat' });
  const answer = (await api(server.url, 'GET', `/v1/monitors/${created.id}`, { token })).body;
  t.like(answer, { status: 'DOWN', in_maintenance: true, uptime_24h: null });
});
