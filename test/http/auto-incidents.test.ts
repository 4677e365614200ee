import test from 'ava';
import Database from 'better-sqlite3';
import path from 'node:path';
import { recordCheck } from '../../src/commands/monitors.ts';
import type { CheckResult } from '../../src/domain/monitor.ts';
import { api, caughtUp, eventually, login, projectWithKey, startTestServer, tempDir } from '../helpers/server.ts';

/** A status page with `auto_incidents` opens an incident when a monitor it shows is confirmed DOWN,
 *  and resolves it when the monitor is UP again (src/reactors/status-pages/reactor.ts). */

const check = (ok: boolean, at: number): CheckResult => ({
  checked_at: new Date(at).toISOString(),
  ok,
  response_ms: 5,
  status_code: ok ? 200 : 503,
});
const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };

const setUp = async (url: string, token: string, auto: boolean, slug: string) => {
  const { projectId } = await projectWithKey(url, token, slug);
  const monitor = (
    await api(url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'orders', url: 'http://127.0.0.1:9/' },
    })
  ).body as { id: string };
  const page = await api(url, 'POST', '/v1/status-pages', {
    token,
    body: {
      project_id: projectId,
      slug,
      title: 'Shop status',
      published: true,
      auto_incidents: auto,
      groups: [{ name: 'Shop', monitor_ids: [monitor.id] }],
    },
  });
  if (page.status !== 201) throw new Error(JSON.stringify(page.body));
  return { projectId, monitorId: monitor.id };
};

/** Checks that make the monitor DOWN (two failures confirm it) or UP again. */
const transition = async (
  server: { runtime: { commands: Parameters<typeof recordCheck>[0] } },
  monitorId: string,
  oks: readonly boolean[],
) => {
  const start = Date.now();
  for (const [i, ok] of oks.entries()) await recordCheck(server.runtime.commands, monitorId, check(ok, start + i), ctx);
};

type Incident = { id: string; status: string; title: string; auto: { monitor_id: string } | null };
const incidentsOf = async (url: string, token: string, projectId: string): Promise<Incident[]> =>
  (await api(url, 'GET', `/v1/incidents?project_id=${projectId}`, { token })).body.data as Incident[];

test(
  'DOWN opens one incident, shown on the public page and in summary.json; UP resolves it; ' +
    'a replay of the reactor opens no second one',
  async (t) => {
    const dataDir = tempDir();
    let server = await startTestServer({ dataDir, notifications: true });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, monitorId } = await setUp(server.url, token, true, 'auto-shop');

    await transition(server, monitorId, [true, false, false]);
    const [opened] = await eventually(async () => {
      const list = await incidentsOf(server.url, token, projectId);
      return list.length > 0 ? list : undefined;
    }, 10_000);
    t.like(opened, { title: 'orders is down', status: 'investigating', auto: { monitor_id: monitorId } });
    await caughtUp(server, ['statusPages', 'incidents', 'monitors']);
    const html = (await api(server.url, 'GET', '/status/auto-shop')).body as string;
    t.true(html.includes('orders is down'));
    const summary = (await api(server.url, 'GET', '/status/auto-shop/summary.json')).body;
    t.is(summary.incidents.length, 1);
    t.is(summary.incidents[0].name, 'orders is down');

    // The reactor goes back to before the DOWN and meets it again: the incident's id comes from
    // the DOWN's, so no second one opens.
    await server.stop({ remove: false });
    const state = new Database(path.join(dataDir, 'state.db'));
    state.prepare("UPDATE checkpoints SET position = '1' WHERE projection = 'status-page-effects'").run();
    state.close();
    server = await startTestServer({ dataDir, notifications: true });
    const head = await server.runtime.log.headPosition();
    await eventually(
      async () => ((await server.runtime.reactorStates.stores.pageEffects.checkpoint()) === head ? true : undefined),
      10_000,
    );
    await caughtUp(server, ['incidents']);
    t.is((await incidentsOf(server.url, token, projectId)).length, 1);

    await transition(server, monitorId, [true, true]);
    await eventually(async () => {
      const [incident] = await incidentsOf(server.url, token, projectId);
      return incident?.status === 'resolved' ? true : undefined;
    }, 10_000);
    await caughtUp(server, ['statusPages', 'incidents', 'monitors']);
    const after = (await api(server.url, 'GET', '/status/auto-shop/summary.json')).body;
    t.deepEqual(after.incidents, []);
    const list = await incidentsOf(server.url, token, projectId);
    t.is(list.length, 1);
  },
);

test('a page without the setting opens nothing; nor does a DOWN older than an hour when reached', async (t) => {
  let ahead = 0;
  const server = await startTestServer({
    notifications: true,
    notifier: { now: () => new Date(Date.now() + ahead) },
  });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const plain = await setUp(server.url, token, false, 'plain-shop');
  const late = await setUp(server.url, token, true, 'late-shop');

  await transition(server, plain.monitorId, [true, false, false]);
  // The reactor's clock is two hours on when it reaches this DOWN.
  ahead = 2 * 3_600_000;
  await transition(server, late.monitorId, [true, false, false]);
  const head = await server.runtime.log.headPosition();
  await eventually(
    async () => ((await server.runtime.reactorStates.stores.pageEffects.checkpoint()) === head ? true : undefined),
    10_000,
  );
  await caughtUp(server, ['incidents']);
  t.deepEqual(await incidentsOf(server.url, token, plain.projectId), []);
  t.deepEqual(await incidentsOf(server.url, token, late.projectId), []);
});

test('a reactor with no state of its own starts at the head: an earlier DOWN opens nothing', async (t) => {
  const dataDir = tempDir();
  let server = await startTestServer({ dataDir, notifications: false });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, monitorId } = await setUp(server.url, token, true, 'new-shop');
  await transition(server, monitorId, [true, false, false]);
  await server.stop({ remove: false });
  server = await startTestServer({ dataDir, notifications: true });
  const head = await server.runtime.log.headPosition();
  await eventually(
    async () => ((await server.runtime.reactorStates.stores.pageEffects.checkpoint()) === head ? true : undefined),
    10_000,
  );
  await caughtUp(server, ['incidents']);
  t.deepEqual(await incidentsOf(server.url, token, projectId), []);
});
