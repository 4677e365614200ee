import test from 'ava';
import Database from 'better-sqlite3';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { freePort } from '../helpers/process.ts';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';
import { startTarget, type Target } from '../helpers/target.ts';

let server: TestServer;
let token: string;
let target: Target;
let projectId: string;

test.before(async () => {
  server = await startTestServer({ jobs: true });
  token = await login(server.url);
  target = await startTarget(200);
  ({ projectId } = await projectWithKey(server.url, token, 'checks'));
});
test.after.always(async () => {
  await server.stop();
  await target.close();
});

const create = async (body: Record<string, unknown>) => {
  const res = await api(server.url, 'POST', '/v1/monitors', { token, body: { project_id: projectId, ...body } });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body as { id: string };
};
const monitor = async (id: string) => (await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body;
const history = async (id: string) =>
  (await api(server.url, 'GET', `/v1/monitors/${id}/history`, { token })).body as Array<{ checked_at: string }>;
const dueAt = (id: string) => server.jobs!.dueAt(id);
/** When the worker checks `id` next after the check recorded at `checkedAt`: the read model shows
 *  a check a moment before the worker has set the next time, so wait for that. */
const dueAfter = (id: string, checkedAt: string) =>
  eventually(async () => {
    const due = dueAt(id);
    return due !== null && due > Date.parse(checkedAt) + 1000 ? due : undefined;
  }, 5000);

test('a new monitor is checked at once by the worker holding its shard, then again after its interval', async (t) => {
  const { id } = await create({ name: 'repeat', url: target.url, interval_seconds: 10, timeout_seconds: 2 });
  const first = await eventually(async () => {
    const m = await monitor(id);
    return m.status === 'UP' ? m : undefined;
  }, 5000);
  t.is(first.last_status_code, 200);
  const checks = await eventually(async () => {
    const h = await history(id);
    return h.length >= 2 ? h : undefined;
  }, 15_000);
  const gap = Date.parse(checks[0]!.checked_at) - Date.parse(checks[1]!.checked_at);
  // One interval, moved by at most a tenth toward the monitor's phase (nextInPhase).
  t.true(gap >= 8_900 && gap < 12_000, `the second check one interval after the first (${gap} ms)`);
});

test('UP→DOWN→UP through the job handler: two audit events, and the monitor follows', async (t) => {
  const { id } = await create({ name: 'flipping', url: target.url, timeout_seconds: 2 });
  await eventually(async () => ((await monitor(id)).status === 'UP' ? true : undefined), 5000);
  target.status = 503;
  await server.jobs!.check(id);
  target.status = 200;
  await server.jobs!.check(id);
  await server.jobs!.check(id);
  const events = await eventually(async () => {
    const res = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&service_name=flipping&sort_order=asc`, {
      token,
    });
    return res.body.pagination.totalItems === 2 ? res.body.data : undefined;
  });
  t.deepEqual(
    events.map((e: { event_type: string }) => e.event_type),
    ['system.healthcheck.down', 'system.healthcheck.up'],
  );
  const up = await eventually(async () => {
    const m = await monitor(id);
    return m.status === 'UP' ? m : undefined;
  });
  t.is(up.last_status_code, 200);
});

test('a slow target and a closed port go DOWN with the error recorded', async (t) => {
  const slow = await startTarget(200);
  slow.delayMs = 4000;
  t.teardown(() => slow.close());
  const port = await freePort();
  const timedOut = await create({ name: 'slow', url: slow.url, timeout_seconds: 1 });
  const refused = await create({ name: 'closed', url: `http://127.0.0.1:${port}/`, timeout_seconds: 1 });
  const down = async (id: string) =>
    eventually(async () => {
      const m = await monitor(id);
      return m.status === 'DOWN' ? m : undefined;
    }, 8000);
  t.regex((await down(timedOut.id)).last_error, /timeout: no response within 1 s/);
  const closed = await down(refused.id);
  t.regex(closed.last_error, /connection refused/);
  t.is(closed.last_status_code, null);
  const downEvents = async () =>
    (
      await api(
        server.url,
        'GET',
        `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.down&service_name=closed`,
        { token },
      )
    ).body;
  const downs = await eventually(async () => {
    const body = await downEvents();
    return body.pagination.totalItems > 0 ? body : undefined;
  });
  t.is(downs.pagination.totalItems, 1, 'one DOWN event, for the transition');
  t.like(downs.data[0], {
    event_type: 'system.healthcheck.down',
    service_name: 'closed',
    identifier: 'system',
    path: `http://127.0.0.1:${port}/`,
  });
  const detail = await api(server.url, 'GET', `/v1/audit/${downs.data[0].id}`, { token });
  t.regex(detail.body.request_body.error, /connection refused/);
});

test('pausing stops the checks, enabling checks at once then on the new interval, deleting stops them', async (t) => {
  const { id } = await create({ name: 'toggle', url: target.url, timeout_seconds: 2 });
  const [first] = await eventually(async () => {
    const h = await history(id);
    return h.length === 1 ? h : undefined;
  }, 5000);
  const firstNext = await dueAfter(id, first!.checked_at);
  t.true(firstNext > Date.now() + 45_000, 'next due one interval (60 s) on, give or take a tenth');
  await api(server.url, 'PUT', `/v1/monitors/${id}`, { token, body: { enabled: false } });
  await eventually(async () => (dueAt(id) === null ? true : undefined), 5000);
  await api(server.url, 'PUT', `/v1/monitors/${id}`, { token, body: { enabled: true, interval_seconds: 20 } });
  const checks = await eventually(async () => {
    const h = await history(id);
    return h.length === 2 ? h : undefined;
  }, 5000);
  const next = await dueAfter(id, checks[0]!.checked_at);
  t.is(checks.length, 2);
  const left = next - Date.now();
  t.true(left > 13_000 && left <= 22_000, `then every 20 s, give or take a tenth (due in ${left} ms)`);
  t.is((await api(server.url, 'DELETE', `/v1/monitors/${id}`, { token })).status, 204);
  await eventually(async () => (dueAt(id) === null ? true : undefined), 5000);
  t.is(dueAt(id), null);
});

test('a worker job deletes log rows that maxCount hides, so check history does not grow the file', async (t) => {
  if (server.config.eventStoreUrl !== undefined) return t.pass('the KurrentDB server scavenges on its own');
  const stream = `monitor-${randomUUID()}-checks`;
  await server.runtime.log.setStreamMaxCount(stream, 3);
  for (let i = 0; i < 10; i++) {
    await server.runtime.log.append(
      stream,
      [
        {
          id: randomUUID(),
          type: 'CheckRecorded',
          data: {
            monitor_id: 'm',
            project_id: projectId,
            checked_at: new Date().toISOString(),
            ok: true,
            status_code: 200,
            response_ms: i,
          },
          metadata: { recorded_at: new Date().toISOString(), actor: 'test', correlation_id: 'c', schema_version: 1 },
        },
      ],
      'any',
    );
  }
  const rows = () => {
    const db = new Database(path.join(server.dataDir, 'log.db'), { readonly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS n FROM events WHERE stream = ?').get(stream) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  await eventually(async () => (rows() === 3 ? true : undefined), 5000);
  t.deepEqual(
    (await server.runtime.log.readStream(stream)).map((e) => e.revision),
    [7, 8, 9],
  );
});
