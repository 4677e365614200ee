import test from 'ava';
import { randomUUID } from 'node:crypto';
import { recordCheck } from '../../src/commands/monitors.ts';
import { runCheck } from '../../src/checks/probe.ts';
import { api, eventually, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';
import { startTarget, type Target } from '../helpers/target.ts';

let server: TestServer;
let token: string;
let target: Target;

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
  target = await startTarget(200);
});
test.after.always(async () => {
  await server.stop();
  await target.close();
});

const post = (body: unknown, t = token) => api(server.url, 'POST', '/v1/monitors', { token: t, body });
const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };

test('create applies the defaults and answers 201 with the monitor, PENDING before its first check', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'defaults');
  const res = await post({ project_id: projectId, name: 'orders', url: target.url });
  t.is(res.status, 201);
  t.like(res.body, {
    project_id: projectId,
    name: 'orders',
    url: target.url,
    interval_seconds: 60,
    timeout_seconds: 10,
    expected_status: 200,
    enabled: true,
    status: 'PENDING',
    status_since: null,
    last_checked_at: null,
    last_status_code: null,
    last_response_ms: null,
  });
  t.regex(res.body.id, /^[0-9a-f-]{36}$/);
  t.is(res.body.created_at, res.body.updated_at);
  t.deepEqual((await api(server.url, 'GET', `/v1/monitors/${res.body.id}`, { token })).body, res.body);
});

test('invalid values are 400 naming each field; a timeout longer than the interval too', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'invalid');
  const bad = await post({
    project_id: projectId,
    name: '',
    url: 'ftp://x',
    interval_seconds: 9,
    timeout_seconds: 0,
    expected_status: 600,
  });
  t.is(bad.status, 400);
  t.is(bad.body.error.code, 'validation_error');
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'expected_status',
    'interval_seconds',
    'name',
    'timeout_seconds',
    'url',
  ]);
  const missing = await post({});
  t.deepEqual(missing.body.error.details.map((d: { path: string }) => d.path).sort(), ['name', 'project_id', 'url']);
  const slow = await post({
    project_id: projectId,
    name: 'a',
    url: target.url,
    interval_seconds: 10,
    timeout_seconds: 11,
  });
  t.is(slow.status, 400);
  t.deepEqual(slow.body.error.details, [{ path: 'timeout_seconds', message: 'must not exceed interval_seconds (10)' }]);
  t.is((await post({ project_id: randomUUID(), name: 'a', url: target.url })).status, 404, 'unknown project');
  t.is(
    (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: '{"project_id":',
        headers: { 'content-type': 'application/json' },
      })
    ).status,
    400,
  );
  t.is((await api(server.url, 'GET', '/v1/monitors?project_id=nope', { token })).status, 400);
});

test('at most 10 monitors per project: the 11th is 409 with the error shape, even when sent at once', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'limit');
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) => post({ project_id: projectId, name: `m${i}`, url: target.url })),
  );
  t.is(results.filter((r) => r.status === 201).length, 10);
  const refused = results.filter((r) => r.status === 409);
  t.is(refused.length, 2);
  t.is(refused[0]!.body.error.code, 'conflict');
  t.regex(refused[0]!.body.error.message, /at most 10 monitors/);
  t.is((await api(server.url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body.length, 10);
});

test('PUT changes only the given fields; DELETE removes the monitor and its history', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'put');
  const created = (await post({ project_id: projectId, name: 'a', url: target.url, interval_seconds: 30 })).body;
  const put = await api(server.url, 'PUT', `/v1/monitors/${created.id}`, {
    token,
    body: { enabled: false, expected_status: 204 },
  });
  t.is(put.status, 200);
  t.like(put.body, { name: 'a', url: target.url, interval_seconds: 30, enabled: false, expected_status: 204 });
  t.not(put.body.updated_at, undefined);
  const bad = await api(server.url, 'PUT', `/v1/monitors/${created.id}`, {
    token,
    body: { interval_seconds: 5, enabled: 'yes' },
  });
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['enabled', 'interval_seconds']);

  await recordCheck(
    server.runtime.commands,
    created.id,
    await runCheck({ ...created, expected_status: 200 }, server.runtime.egress),
    ctx,
  );
  await eventually(async () =>
    (await api(server.url, 'GET', `/v1/monitors/${created.id}/history`, { token })).body.length === 1
      ? true
      : undefined,
  );

  t.is((await api(server.url, 'DELETE', `/v1/monitors/${created.id}`, { token })).status, 204);
  t.is((await api(server.url, 'GET', `/v1/monitors/${created.id}`, { token })).status, 404);
  t.is((await api(server.url, 'GET', `/v1/monitors/${created.id}/history`, { token })).status, 404);
  t.is((await api(server.url, 'DELETE', `/v1/monitors/${created.id}`, { token })).status, 404);
  t.is((await api(server.url, 'PUT', `/v1/monitors/${randomUUID()}`, { token, body: { enabled: true } })).status, 404);
});

// Serial: these two set the shared target's status, which the other would see.
test.serial('UP→DOWN→UP: two transitions, two system.healthcheck events; repeated failures add none', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'flip');
  const monitor = (await post({ project_id: projectId, name: 'flip-service', url: target.url, timeout_seconds: 1 }))
    .body;
  const check = async (status: number) => {
    target.status = status;
    return recordCheck(server.runtime.commands, monitor.id, await runCheck(monitor, server.runtime.egress), ctx);
  };
  const kinds = [];
  for (const status of [200, 200, 503, 500, 503, 200, 200]) kinds.push((await check(status)).events[0]?.type ?? '-');
  target.status = 200;
  t.deepEqual(kinds, ['MonitorStatusEstablished', '-', 'MonitorWentDown', '-', '-', 'MonitorCameUp', '-']);

  const events = await eventually(async () => {
    const res = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&sort_order=asc`, { token });
    return res.body.pagination.totalItems === 2 ? res.body.data : undefined;
  });
  t.deepEqual(
    events.map((e: { event_type: string }) => e.event_type),
    ['system.healthcheck.down', 'system.healthcheck.up'],
  );
  t.like(events[0], { service_name: 'flip-service', path: target.url, identifier: 'system', status_code: 503 });
  const down = (await api(server.url, 'GET', `/v1/audit/${events[0].id}`, { token })).body;
  t.like(down.request_body, {
    url: target.url,
    expected_status: 200,
    status_code: 503,
    error: 'expected status 200, received 503',
  });
  const up = (await api(server.url, 'GET', `/v1/audit/${events[1].id}`, { token })).body;
  t.like(up.request_body, { url: target.url, status_code: 200 });
  t.true(Number.isInteger(up.request_body.downtime_seconds));
  const filtered = await api(
    server.url,
    'GET',
    `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.down`,
    { token },
  );
  t.is(filtered.body.pagination.totalItems, 1);

  const view = await eventually(async () => {
    const res = (await api(server.url, 'GET', `/v1/monitors/${monitor.id}`, { token })).body;
    return res.status === 'UP' && res.last_status_code === 200 ? res : undefined;
  });
  t.is(view.status_since, events[1].timestamp);
  await eventually(async () =>
    (await api(server.url, 'GET', `/v1/monitors/${monitor.id}/history`, { token })).body.length === 7
      ? true
      : undefined,
  );
  const history = (await api(server.url, 'GET', `/v1/monitors/${monitor.id}/history?limit=5`, { token })).body;
  t.deepEqual(
    history.map((h: { status_code: number }) => h.status_code),
    [200, 200, 503, 500, 503],
  );
  t.deepEqual(Object.keys(history[0]).sort(), ['checked_at', 'error', 'ok', 'response_ms', 'status_code']);
  t.is((await api(server.url, 'GET', `/v1/monitors/${monitor.id}/history?limit=201`, { token })).status, 400);
  t.is(
    (await api(server.url, 'GET', `/v1/monitors/${monitor.id}/history`, { token })).body.length,
    7,
    'default limit 50',
  );
});

test('two workers recording the same failing check give one transition', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'race');
  const monitor = (await post({ project_id: projectId, name: 'race', url: target.url })).body;
  const failing = { checked_at: new Date().toISOString(), ok: false, status_code: 502, response_ms: 3 };
  const results = await Promise.all(
    Array.from({ length: 4 }, () => recordCheck(server.runtime.commands, monitor.id, failing, ctx)),
  );
  t.is(results.filter((r) => r.events[0]?.type === 'MonitorWentDown').length, 1);
  const stream = await server.runtime.log.readStream(`monitor-${monitor.id}`);
  t.deepEqual(
    stream.map((e) => e.type),
    ['MonitorCreated', 'MonitorWentDown'],
  );
});

test.serial('POST /test runs one check now and records nothing', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'probe');
  const monitor = (await post({ project_id: projectId, name: 'probe', url: target.url })).body;
  target.status = 200;
  const res = await api(server.url, 'POST', `/v1/monitors/${monitor.id}/test`, { token });
  t.is(res.status, 200);
  t.like(res.body, { ok: true, status_code: 200, error: null });
  t.is((await server.runtime.log.readStream(`monitor-${monitor.id}-checks`)).length, 0);
  t.is((await api(server.url, 'GET', `/v1/monitors/${monitor.id}`, { token })).body.status, 'PENDING');
});

test("members see and change only their projects' monitors; auditors only read", async (t) => {
  const mine = await projectWithKey(server.url, token, 'mine');
  const theirs = await projectWithKey(server.url, token, 'theirs');
  const a = (await post({ project_id: mine.projectId, name: 'mine', url: target.url })).body;
  const b = (await post({ project_id: theirs.projectId, name: 'theirs', url: target.url })).body;
  for (const role of ['member', 'auditor']) {
    const email = `${role}-${randomUUID().slice(0, 6)}@example.com`;
    await api(server.url, 'POST', '/v1/users', {
      token,
      body: { email, password: 'long enough pw', role, project_ids: [mine.projectId] },
    });
    const their = await login(server.url, email, 'long enough pw');
    const list = (await api(server.url, 'GET', '/v1/monitors', { token: their })).body;
    t.deepEqual(
      list.map((m: { id: string }) => m.id),
      [a.id],
      role,
    );
    t.is((await api(server.url, 'GET', `/v1/monitors/${b.id}`, { token: their })).status, 404);
    t.is(
      (await post({ project_id: theirs.projectId, name: 'x', url: target.url }, their)).status,
      role === 'member' ? 404 : 403,
    );
    t.is(
      (await api(server.url, 'PUT', `/v1/monitors/${a.id}`, { token: their, body: { name: 'renamed' } })).status,
      role === 'member' ? 200 : 403,
    );
  }
  t.is((await api(server.url, 'GET', '/v1/monitors')).status, 401);
});

test('every monitor answer carries its uptime over 24 hours and 7 days, null before any check', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'uptime');
  const created = await post({ project_id: projectId, name: 'uptime', url: target.url, enabled: false });
  t.like(created.body, { uptime_24h: null, uptime_7d: null });
  const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
  // Two days ago a failure (in the week only), then two OK checks and a failure now.
  for (const [hours, ok] of [
    [48, false],
    [0, true],
    [0, true],
    [0, false],
  ] as const) {
    await recordCheck(
      server.runtime.commands,
      created.body.id,
      { checked_at: ago(hours), ok, response_ms: 5, ...(ok ? { status_code: 200 } : { error: 'refused' }) },
      ctx,
    );
  }
  const expected = { uptime_24h: 2 / 3, uptime_7d: 2 / 4 };
  const one = await eventually(async () => {
    const res = await api(server.url, 'GET', `/v1/monitors/${created.body.id}`, { token });
    // Both figures: after the first two checks the week is already at 1/2 (and the day at 1/1).
    return res.body.uptime_7d === expected.uptime_7d && res.body.uptime_24h === expected.uptime_24h ? res : undefined;
  });
  t.like(one.body, expected);
  t.like((await api(server.url, 'GET', `/v1/monitors?project_id=${projectId}`, { token })).body[0], {
    id: created.body.id,
    ...expected,
  });
  t.like((await api(server.url, 'PUT', `/v1/monitors/${created.body.id}`, { token, body: { name: 'renamed' } })).body, {
    name: 'renamed',
    ...expected,
  });
});
