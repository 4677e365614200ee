import test from 'ava';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { watchHeartbeat } from '../../src/commands/monitors.ts';
import { api, eventually, login, projectWithKey, startTestServer } from '../helpers/server.ts';
import { deliveriesSettled } from '../helpers/channels.ts';
import { certificateFor, listen } from '../helpers/probe-servers.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';

/** The kinds and options of monitors through the real app: heartbeats by their secret URL,
 *  secrets kept and masked, a check on demand with its assertions, the configurable cap, and a
 *  certificate near its expiry notifying once. */

/** A JSON API on 127.0.0.1 whose `status` the test sets; it keeps the headers it was sent. */
const jsonApi = async () => {
  const state = { status: 'ok', headers: [] as http.IncomingHttpHeaders[] };
  const server = http.createServer((req, res) => {
    state.headers.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: state.status, n: 3 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

test('a heartbeat monitor: its URL once; beats keep it UP; a reported failure, or no beats, is DOWN', async (t) => {
  let clock = Date.now();
  const server = await startTestServer({ now: () => new Date(clock) });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'cron');
  const created = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'nightly-backup', type: 'heartbeat', interval_seconds: 60, grace_seconds: 30 },
  });
  t.is(created.status, 201);
  t.like(created.body, {
    type: 'heartbeat',
    status: 'PENDING',
    grace_seconds: 30,
    url: `heartbeat:${created.body.id}`,
  });
  const beatUrl: string = created.body.heartbeat_url;
  t.is(beatUrl, `${server.url}/v1/heartbeat/${created.body.heartbeat_token}`);
  const id: string = created.body.id;
  const shown = (await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body;
  t.is(shown.heartbeat_token, undefined, 'the token is shown once');
  t.false(JSON.stringify(shown).includes(created.body.heartbeat_token));

  t.deepEqual((await (await fetch(beatUrl)).json()) as unknown, { status: 'recorded' });
  const monitor = async () => (await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body;
  await eventually(async () => ((await monitor()).status === 'UP' ? true : undefined));

  const ctx = { actor: 'test', correlationId: id, now: () => new Date(clock) };
  clock += 89_000;
  t.is(await watchHeartbeat(server.runtime.commands, id, ctx), null, 'within interval + grace: nothing');
  clock += 1_000;
  const missed = await watchHeartbeat(server.runtime.commands, id, ctx);
  t.deepEqual(
    missed?.events.map((e) => e.type),
    ['MonitorWentDown'],
  );
  await eventually(async () => ((await monitor()).status === 'DOWN' ? true : undefined));
  t.is((await monitor()).last_error, 'no heartbeat within 60 s + 30 s grace');

  const up = await fetch(`${beatUrl}?ping=1234`, { method: 'POST', body: 'job output' });
  t.is(up.status, 200);
  await eventually(async () => ((await monitor()).status === 'UP' ? true : undefined));
  t.is((await monitor()).last_response_ms, 1234);
  const failed = await fetch(`${beatUrl}?status=down&msg=${encodeURIComponent('disk full')}`);
  t.is(failed.status, 200);
  await eventually(async () => ((await monitor()).status === 'DOWN' ? true : undefined));
  t.is((await monitor()).last_error, 'the job reported a failure: disk full');

  const history = (await api(server.url, 'GET', `/v1/monitors/${id}/history`, { token })).body;
  t.deepEqual(
    history.map((c: { heartbeat: string; ok: boolean }) => `${c.heartbeat}:${c.ok}`),
    ['beat:false', 'beat:true', 'missed:false', 'beat:true'],
  );
  t.is((await fetch(`${server.url}/v1/heartbeat/${'x'.repeat(43)}`)).status, 404);
  t.is((await fetch(`${server.url}/v1/heartbeat/short`)).status, 404, 'no token has that shape');
  t.is((await fetch(`${beatUrl}?status=sideways`)).status, 400);
  await api(server.url, 'PUT', `/v1/monitors/${id}`, { token, body: { enabled: false } });
  t.deepEqual((await (await fetch(beatUrl)).json()) as unknown, { status: 'paused' });
  t.is((await api(server.url, 'POST', `/v1/monitors/${id}/test`, { token })).status, 409);
});

test('request options reach the target; secrets answered masked, kept when sent back; each assertion', async (t) => {
  const server = await startTestServer();
  const target = await jsonApi();
  t.teardown(async () => {
    await server.stop();
    await target.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'options');
  const created = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: {
      project_id: projectId,
      name: 'orders-api',
      url: target.url,
      method: 'POST',
      headers: { 'X-Api-Key': 'k-123456' },
      body: '{"probe":true}',
      content_type: 'application/json',
      auth: { type: 'bearer', token: 'secret-token' },
      accepted_statuses: ['200-299'],
      assertions: [
        { source: 'json', path: '$.status', op: 'equals', value: 'ok' },
        { source: 'response_time', op: 'lt', value: 5000 },
      ],
    },
  });
  t.is(created.status, 201);
  t.deepEqual(created.body.headers, { 'X-Api-Key': '********' });
  t.deepEqual(created.body.auth, { type: 'bearer', token: '********' });
  t.false(JSON.stringify(created.body).includes('secret-token'));
  const id: string = created.body.id;

  // The dashboard sends back what it was shown, with one change.
  const edited = await api(server.url, 'PUT', `/v1/monitors/${id}`, {
    token,
    body: { headers: created.body.headers, auth: created.body.auth, name: 'orders' },
  });
  t.is(edited.status, 200);
  t.is(edited.body.name, 'orders');

  const first = await api(server.url, 'POST', `/v1/monitors/${id}/test`, { token });
  t.is(first.status, 200);
  t.like(first.body, { ok: true, status_code: 200, error: null });
  t.like(first.body.assertions[0], { source: 'json', path: '$.status', op: 'equals', passed: true });
  const sent = target.state.headers.at(-1)!;
  t.is(sent['x-api-key'], 'k-123456', 'the stored header value was kept');
  t.is(sent.authorization, 'Bearer secret-token');
  t.is(sent['content-type'], 'application/json');

  target.state.status = 'degraded';
  const second = await api(server.url, 'POST', `/v1/monitors/${id}/test`, { token });
  t.like(second.body, { ok: false, error: 'json $.status equals "ok": got "degraded"' });
  t.deepEqual(
    second.body.assertions.map((a: { passed: boolean }) => a.passed),
    [false, true],
  );
  t.is(
    (await api(server.url, 'GET', `/v1/monitors/${id}/history`, { token })).body.length,
    0,
    'Test now records nothing',
  );
});

test('WATCHLOG_MONITORS_PER_PROJECT raises the cap; the 409 names it', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_MONITORS_PER_PROJECT: '12' } });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'many');
  const statuses: number[] = [];
  for (let i = 0; i < 13; i += 1) {
    const body = { project_id: projectId, name: `m${i}`, url: `http://127.0.0.1:9/${i}` };
    statuses.push((await api(server.url, 'POST', '/v1/monitors', { token, body })).status);
  }
  t.deepEqual(statuses, [...Array<number>(12).fill(201), 409]);
  const refused = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'one more', url: 'http://127.0.0.1:9/' },
  });
  t.is(refused.body.error.message, 'a project has at most 12 monitors');
});

test('a certificate 5 days from expiry: one warning and one notification at 7 days, however many checks', async (t) => {
  const pem = await certificateFor(5);
  const site = await listen(https.createServer(pem, (_req, res) => res.writeHead(200).end('ok')));
  const server = await startTestServer({ jobs: true, notifications: true });
  const receiver = await webhookReceiver('cert-secret-123');
  t.teardown(async () => {
    await server.stop();
    await site.close();
    await receiver.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'tls');
  await api(server.url, 'POST', '/v1/channels', {
    token,
    body: { project_id: projectId, type: 'webhook', url: receiver.url, secret: 'cert-secret-123' },
  });
  const strict = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'strict', url: `https://127.0.0.1:${site.port}/`, interval_seconds: 10 },
  });
  const lenient = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: {
      project_id: projectId,
      name: 'lenient',
      url: `https://127.0.0.1:${site.port}/`,
      interval_seconds: 10,
      ignore_tls_errors: true,
      assertions: [{ source: 'certificate_expiry_days', op: 'gte', value: 3 }],
    },
  });
  const get = async (id: string) => (await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body;
  await eventually(async () => ((await get(strict.body.id)).status === 'DOWN' ? true : undefined), 15_000);
  t.regex((await get(strict.body.id)).last_error, /^TLS error: .*self[- ]signed/i, 'untrusted: the TLS error');
  await eventually(async () => ((await get(lenient.body.id)).status === 'UP' ? true : undefined), 15_000);
  // Three more checks of the lenient monitor, each seeing the same certificate.
  for (let i = 0; i < 3; i += 1) await server.jobs!.check(lenient.body.id);
  await deliveriesSettled(server);
  const shown = await get(lenient.body.id);
  t.deepEqual(shown.last_certificate.names.sort(), ['127.0.0.1', 'localhost']);
  const warnings = receiver.received.filter((r) => r.body.type === 'monitor.certificate_expiring');
  t.is(warnings.length, 1);
  t.like(warnings[0]?.body, { threshold_days: 7, monitor: { id: lenient.body.id, name: 'lenient' } });
  t.true(warnings[0]!.verified);
  const events = await api(
    server.url,
    'GET',
    `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.certificate_expiring`,
    {
      token,
    },
  );
  t.is(events.body.pagination.totalItems, 1);
});

test('down_after 2: one failure is not DOWN; the confirming check comes after the retry interval', async (t) => {
  const server = await startTestServer({ jobs: true });
  const target = await jsonApi();
  t.teardown(async () => {
    await server.stop();
    await target.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'confirm');
  target.state.status = 'degraded';
  const created = await api(server.url, 'POST', '/v1/monitors', {
    token,
    body: {
      project_id: projectId,
      name: 'orders',
      url: target.url,
      interval_seconds: 600,
      retry_interval_seconds: 5,
      down_after: 2,
      assertions: [{ source: 'json', path: '$.status', op: 'equals', value: 'ok' }],
    },
  });
  const id: string = created.body.id;
  const history = async () =>
    (await api(server.url, 'GET', `/v1/monitors/${id}/history`, { token })).body as Array<{ checked_at: string }>;
  const first = await eventually(async () => ((await history()).length === 1 ? await history() : undefined), 10_000);
  t.is((await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body.status, 'PENDING', 'one failure: not yet');
  const monitor = await eventually(async () => {
    const m = (await api(server.url, 'GET', `/v1/monitors/${id}`, { token })).body;
    return m.status === 'DOWN' ? m : undefined;
  }, 20_000);
  const [second] = await history();
  const apart = Date.parse(second!.checked_at) - Date.parse(first[0]!.checked_at);
  t.true(apart >= 5000 && apart < 60_000, `the second check came ${apart} ms after the first`);
  t.is(monitor.last_error, 'json $.status equals "ok": got "degraded"');
  const down = await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&event_type=system.healthcheck.down`, {
    token,
  });
  t.is(down.body.pagination.totalItems, 1);
});
