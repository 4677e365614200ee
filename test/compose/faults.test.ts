import test from 'ava';
import path from 'node:path';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';
import { converged, load } from '../helpers/load.ts';
import { arrivedIds, firstArrivals, httpReceiver } from '../helpers/sink-receivers.ts';
import { runCli, serviceSetup, startService, waitForLog } from '../helpers/process.ts';

/** Fault injection under load: the log's writer thread, the projectors' threads and the whole
 *  process are killed while events arrive. Nothing acknowledged is lost, nothing is counted
 *  twice, readiness says so while it lasts, and the process keeps serving. */

test.serial(
  'the log writer thread killed under load: no acknowledged event lost or doubled, ' +
    'readiness false then true, the process serves on',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    if (!(server.runtime.log instanceof SqliteEventLog)) return t.pass('the KurrentDB log has no writer thread');
    const log = server.runtime.log;
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    const running = load(server.url, apiKey);
    await eventually(async () => (running.acked.length > 200 ? true : undefined), 30_000);
    await log.writerThread!.terminate();
    await new Promise((r) => setImmediate(r));
    t.false(log.health().ok, 'not ready while the writer is down');
    await eventually(async () => ((await api(server.url, 'GET', '/readyz')).status === 200 ? true : undefined), 30_000);
    const before = running.acked.length;
    await eventually(async () => (running.acked.length > before + 200 ? true : undefined), 30_000);
    await running.stop();
    t.true(
      running.refused.every((s) => s === 503),
      `only 503s were refused: ${[...new Set(running.refused)].join(', ')}`,
    );
    await converged(
      t,
      server.url,
      token,
      projectId,
      running.acked,
      async () => (await log.readStream(`audit-${projectId}`)).length,
    );
  },
);

test.serial(
  "the projectors' thread killed under load: " +
    'restarted with its leases at once, readiness false then true, read models converge',
  async (t) => {
    const server = await startTestServer({ projectorThread: true });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    await eventually(async () => ((await api(server.url, 'GET', '/readyz')).status === 200 ? true : undefined), 30_000);
    const running = load(server.url, apiKey);
    await eventually(async () => (running.acked.length > 200 ? true : undefined), 30_000);
    await server.projectorThread!.thread!.terminate();
    const notReady = await eventually(async () => {
      const res = await api(server.url, 'GET', '/readyz');
      return res.status === 503 ? res : undefined;
    }, 10_000);
    t.false(notReady.body.read_models['audit-events'].projector, 'its projector is gone');
    await eventually(async () => ((await api(server.url, 'GET', '/readyz')).status === 200 ? true : undefined), 30_000);
    await running.stop();
    t.deepEqual(running.refused, [], 'ingest never stopped: only the projections paused');
    await converged(
      t,
      server.url,
      token,
      projectId,
      running.acked,
      async () => (await server.runtime.log.readStream(`audit-${projectId}`)).length,
    );
  },
);

test.serial(
  "the sinks' thread killed while a sink forwards: restarted, readiness untouched, every record arrives " +
    'in order; with no sink active, no thread',
  async (t) => {
    const server = await startTestServer({
      projectorThread: true,
      env: { WATCHLOG_SINK_BATCH_SIZE: '25', WATCHLOG_SINK_BACKOFF_MIN_MS: '20', WATCHLOG_SINK_BACKOFF_MAX_MS: '200' },
    });
    t.teardown(() => server.stop());
    const receiver = await httpReceiver();
    t.teardown(() => receiver.close());
    receiver.delayMs = 20;
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    const sink = await api(server.url, 'POST', `/v1/projects/${projectId}/sinks`, {
      token,
      body: { type: 'http', url: `${receiver.url}/in` },
    });
    t.is(sink.status, 201);
    const ingest = async (round: number) => {
      const res = await api(server.url, 'POST', '/v1/audit/batch', {
        apiKey,
        body: Array.from({ length: 200 }, (_, i) => sampleEvent({ path: `/orders/${round}/${i}` })),
      });
      t.is(res.status, 202);
      return (res.body as { accepted: Array<{ id: string }> }).accepted.map((a) => a.id);
    };
    const arrived = () => arrivedIds(receiver);
    const ids = await ingest(0);
    await eventually(async () => (arrived().length >= 50 ? true : undefined), 30_000);
    const killed = server.projectorThread!.sinksThread!;
    await killed.terminate();
    t.is((await api(server.url, 'GET', '/readyz')).status, 200, "the read models' thread goes on");
    await eventually(async () => {
      const next = server.projectorThread!.sinksThread;
      return next !== null && next !== killed ? true : undefined;
    }, 10_000);
    ids.push(...(await ingest(1)));
    await eventually(async () => (new Set(arrived()).size >= ids.length ? true : undefined), 30_000);
    t.deepEqual(firstArrivals(arrived()), ids, 'every record, in log order, none missing');
    const id = (sink.body as { id: string }).id;
    const paused = await api(server.url, 'PUT', `/v1/projects/${projectId}/sinks/${id}`, {
      token,
      body: { active: false },
    });
    t.is(paused.status, 200);
    await eventually(async () => (server.projectorThread!.sinksThread === null ? true : undefined), 10_000);
    t.is(server.projectorThread!.sinksThread, null, 'with no sink active, the sinks run no thread');
  },
);

test.serial(
  'kill -9 of the whole process under load: after a restart every acknowledged event is there, once',
  async (t) => {
    const { dataDir, url, env } = await serviceSetup(t);
    const first = await startService(t, env, 60_000);
    let token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);
    const running = load(url, apiKey);
    await eventually(async () => (running.acked.length > 300 ? true : undefined), 60_000);
    first.child.kill('SIGKILL');
    await first.exited;
    await running.stop();

    const second = runCli(['start'], env);
    t.teardown(() => second.child.kill('SIGKILL'));
    await waitForLog(second, 'listening', 60_000);
    await eventually(async () => ((await api(url, 'GET', '/readyz')).status === 200 ? true : undefined), 60_000);
    token = await login(url);
    // The log holds the acknowledged events and maybe a few whose answer the kill cut off.
    const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
    t.teardown(() => log.close());
    const inLog = async () => (await log.readStream(`audit-${projectId}`)).length;
    await converged(t, url, token, projectId, running.acked, inLog);
    t.true((await inLog()) >= running.acked.length);
  },
);

/** Clients that send every event with an idempotency key of its own and, when a request gets no
 *  answer (the process died under it), keep it to send again, unchanged, after the restart. */
const keyedLoad = (url: string, apiKey: string, prefix: string, connections = 16) => {
  const answered = new Map<string, string>();
  const unanswered: Array<{ key: string; body: unknown }> = [];
  let running = true;
  const clients = Array.from({ length: connections }, async (_, c) => {
    for (let i = 0; running; i += 1) {
      const key = `${prefix}-${c}-${i}`;
      const body = sampleEvent({ identifier: `c${c}`, path: `/keyed/${i}`, request_id: key });
      try {
        const res = await api(url, 'POST', '/v1/audit', { apiKey, body, headers: { 'idempotency-key': key } });
        if (res.status === 202) answered.set(key, res.body.id as string);
        else unanswered.push({ key, body });
      } catch {
        unanswered.push({ key, body });
        return;
      }
    }
  });
  return {
    answered,
    unanswered,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
};

test.serial(
  'kill -9 between commit and answer: ' +
    'the same request sent again after the restart answers the stored id, and nothing is stored twice',
  async (t) => {
    const { url, env } = await serviceSetup(t);
    let service = await startService(t, env, 60_000);
    let token = await login(url);
    const { projectId, apiKey } = await projectWithKey(url, token);
    const ids = new Map<string, string>();
    let replays = 0;
    let crashes = 0;
    // A kill lands between a commit and its answer often, not always: crash until it has, at least twice.
    while (crashes < 2 || (replays === 0 && crashes < 8)) {
      const running = keyedLoad(url, apiKey, `crash${crashes}`);
      await eventually(async () => (running.answered.size > 150 ? true : undefined), 60_000);
      service.child.kill('SIGKILL');
      await service.exited;
      await running.stop();
      crashes += 1;
      for (const [key, id] of running.answered) ids.set(key, id);
      const restarted = runCli(['start'], env);
      service = restarted;
      t.teardown(() => restarted.child.kill('SIGKILL'));
      await waitForLog(restarted, 'listening', 60_000);
      for (const { key, body } of running.unanswered) {
        const res = await api(url, 'POST', '/v1/audit', { apiKey, body, headers: { 'idempotency-key': key } });
        t.is(res.status, 202, `${key}: ${JSON.stringify(res.body)}`);
        if (res.headers.get('idempotent-replayed') === 'true') replays += 1;
        ids.set(key, res.body.id as string);
      }
    }
    t.log(
      `${crashes} crashes, ${ids.size} events sent, ` +
        `${replays} of them committed before the kill but unanswered, then answered on their retry`,
    );
    t.true(replays > 0, 'a kill fell between a commit and its answer');
    token = await login(url);
    const stored = await eventually(async () => {
      const res = await api<Array<{ id: string; request_id: string }>>(
        url,
        'GET',
        `/v1/audit/export?format=json&project_id=${projectId}`,
        { token },
      );
      return res.body.length >= ids.size ? res.body : undefined;
    }, 60_000);
    t.is(stored.length, ids.size, 'one event per key: nothing stored twice');
    const byRequest = new Map(stored.map((e) => [e.request_id, e.id]));
    t.true(
      [...ids].every(([key, id]) => byRequest.get(key) === id),
      "each key's event under the id its client was answered",
    );
  },
);
