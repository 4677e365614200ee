import test from 'ava';
import {
  api,
  caughtUp,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

/** The ingest edge beyond SPEC 4.1: batches, idempotency keys, CORS for browsers, keys restricted
 *  to origins, and the per-key rate limit. */

let clock = Date.parse('2026-11-24T12:00:00.000Z');
let server: TestServer;
let token: string;
let projectId: string;
let apiKey: string;

test.before(async () => {
  server = await startTestServer({
    now: () => new Date(clock),
    env: {
      WATCHLOG_BATCH_MAX_EVENTS: '50',
      WATCHLOG_BATCH_BODY_LIMIT_BYTES: '65536',
      WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS: '3600',
    },
  });
  token = await login(server.url);
  ({ projectId, apiKey } = await projectWithKey(server.url, token));
});
test.after.always(() => server.stop());

const batch = (body: unknown, headers: Record<string, string> = {}, key = apiKey) =>
  api(server.url, 'POST', '/v1/audit/batch', { apiKey: key, body, headers });

/** The project's events as the list shows them, by request_id. */
const listed = async (requestId: string) =>
  (await api(server.url, 'GET', `/v1/audit/export?format=json&project_id=${projectId}`, { token })).body.filter(
    (e: { request_id?: string }) => e.request_id === requestId,
  );

test('batch: valid items are stored and answered by index; invalid ones are named by index and field', async (t) => {
  const rid = `batch-${Date.now()}`;
  const res = await batch([
    sampleEvent({ request_id: rid, request_body: { password: 'hunter2', card: '4111 1111 1111 1111' } }),
    { ...sampleEvent(), method: 'PATCH', status_code: 600 },
    'not an event',
    sampleEvent({ request_id: rid, unknown_field: 'dropped' }),
  ]);
  t.is(res.status, 202);
  t.deepEqual(
    res.body.accepted.map((a: { index: number }) => a.index),
    [0, 3],
  );
  t.deepEqual(res.body.rejected, [
    {
      index: 1,
      details: [
        { path: 'method', message: 'must be one of GET, POST, PUT, DELETE' },
        { path: 'status_code', message: 'must be an integer from 100 to 599' },
      ],
    },
    { index: 2, details: [{ path: '(event)', message: 'must be a JSON object' }] },
  ]);
  const stored = await eventually(async () => {
    const l = await listed(rid);
    return l.length === 2 ? l : undefined;
  });
  const ids = res.body.accepted.map((a: { id: string }) => a.id).sort();
  t.deepEqual(stored.map((e: { id: string }) => e.id).sort(), ids);
  const detail = await api(server.url, 'GET', `/v1/audit/${res.body.accepted[0].id}`, { token });
  t.deepEqual(
    detail.body.request_body,
    { password: '********', card: '**** **** **** 1111' },
    'masked like a single event',
  );
});

test(
  'batch: nothing valid is 400 with indexed paths; ' + 'not an array, empty, too many, too large are refused',
  async (t) => {
    const none = await batch([{ path: '/x' }, 5]);
    t.is(none.status, 400);
    t.is(none.body.error.code, 'validation_error');
    t.true(none.body.error.details.some((d: { path: string }) => d.path === '0.method'));
    t.true(
      none.body.error.details.some(
        (d: { path: string; message: string }) => d.path === '1' && d.message === 'must be a JSON object',
      ),
    );
    const object = await batch(sampleEvent());
    t.is(object.status, 400);
    t.deepEqual(object.body.error.details, [{ path: 'body', message: 'must be a JSON array of audit events' }]);
    t.is((await batch([])).status, 400);
    const many = await batch(Array.from({ length: 51 }, () => sampleEvent()));
    t.is(many.status, 400);
    t.regex(many.body.error.details[0].message, /at most 50 events \(it holds 51\)/);
    const large = await batch([sampleEvent({ request_body: { blob: 'x'.repeat(70_000) } })]);
    t.is(large.status, 413);
    t.is((await batch('[', { 'content-type': 'application/json' })).status, 400);
    t.is(
      (await api(server.url, 'POST', '/v1/audit/batch?page=2', { apiKey, body: [sampleEvent()] })).status,
      400,
      'unknown parameter',
    );
    t.is(
      (
        await api(server.url, 'POST', '/v1/audit/batch', {
          apiKey,
          body: JSON.stringify([sampleEvent()]),
          headers: { 'content-type': 'application/xml' },
        })
      ).status,
      415,
    );
  },
);

test('batch by beacon: text/plain JSON with the key in api_key; the key is not in the access log', async (t) => {
  const rid = `beacon-${Date.now()}`;
  const res = await fetch(`${server.url}/v1/audit/batch?api_key=${encodeURIComponent(apiKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify([sampleEvent({ request_id: rid, source: 'browser' })]),
  });
  t.is(res.status, 202);
  await eventually(async () => ((await listed(rid)).length === 1 ? true : undefined));
  const wrong = await fetch(`${server.url}/v1/audit/batch?api_key=wl_nope`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: '[]',
  });
  t.is(wrong.status, 401);
  const { loggedUrl } = await import('../../src/http/middleware/access-log.ts');
  t.is(loggedUrl(`/v1/audit/batch?api_key=${apiKey}&x=1`), '/v1/audit/batch?api_key=[hidden]&x=1');
});

test(
  'Idempotency-Key: a repeat answers the first id, says so, ' +
    'and stores nothing; another event under the key is 409',
  async (t) => {
    const key = `order-${Date.now()}`;
    const rid = `idem-${key}`;
    const event = sampleEvent({ request_id: rid });
    const first = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: event,
      headers: { 'idempotency-key': key },
    });
    t.is(first.status, 202);
    t.is(first.headers.get('idempotent-replayed'), null);
    // The same event, its fields in another order: the same request.
    const reordered = Object.fromEntries(Object.entries(event).reverse());
    const repeat = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: reordered,
      headers: { 'idempotency-key': key },
    });
    t.is(repeat.status, 202);
    t.is(repeat.body.id, first.body.id);
    t.is(repeat.headers.get('idempotent-replayed'), 'true');
    const other = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: { ...event, status_code: 500 },
      headers: { 'idempotency-key': key },
    });
    t.is(other.status, 409);
    t.deepEqual(
      other.body.error.details.map((d: { path: string }) => d.path),
      ['headers.idempotency-key'],
    );
    // Everything the three requests appended is in the list: one event.
    await caughtUp(server, ['auditEvents']);
    t.is((await listed(rid)).length, 1, 'one event for three requests');
    const bad = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: event,
      headers: { 'idempotency-key': 'has space' },
    });
    t.is(bad.status, 400);
    t.deepEqual(bad.body.error.details, [
      { path: 'headers.idempotency-key', message: 'must be 1 to 255 printable ASCII characters without spaces' },
    ]);
  },
);

test(
  'idempotency_key in a batch: repeats are replayed (also twice in one batch), ' +
    'across single and batch; past the window a key stores again',
  async (t) => {
    const base = `batch-key-${Date.now()}`;
    const rid = `rid-${base}`;
    const item = (n: number) => ({
      ...sampleEvent({ request_id: rid, path: `/n/${n}` }),
      idempotency_key: `${base}-${n}`,
    });
    const first = await batch([item(1), item(2), item(1)]);
    t.is(first.status, 202);
    t.deepEqual(
      first.body.accepted.map((a: { index: number; replayed?: boolean }) => [a.index, a.replayed ?? false]),
      [
        [0, false],
        [1, false],
        [2, true],
      ],
    );
    t.is(first.body.accepted[2].id, first.body.accepted[0].id);
    const again = await batch([item(2), item(3)]);
    t.deepEqual(
      again.body.accepted.map((a: { replayed?: boolean }) => a.replayed ?? false),
      [true, false],
    );
    t.is(again.body.accepted[0].id, first.body.accepted[1].id);
    const { idempotency_key: _, ...single } = item(3);
    const viaSingle = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: single,
      headers: { 'idempotency-key': `${base}-3` },
    });
    t.is(viaSingle.body.id, again.body.accepted[1].id, 'one key space for both endpoints');
    const conflict = await batch([{ ...item(3), status_code: 503 }, item(4)]);
    t.is(conflict.status, 202);
    t.deepEqual(conflict.body.rejected, [
      {
        index: 0,
        details: [
          {
            path: 'idempotency_key',
            message: 'was used within the idempotency window for another event: use a new key for a new event',
          },
        ],
      },
    ]);
    await eventually(async () => ((await listed(rid)).length === 4 ? true : undefined));
    clock += 3_600_000;
    const later = await batch([item(1)]);
    t.false(later.body.accepted[0].replayed ?? false, 'the window (an hour here) has passed');
    t.not(later.body.accepted[0].id, first.body.accepted[0].id);
    await eventually(async () => ((await listed(rid)).length === 5 ? true : undefined));
  },
);

test(
  'CORS: preflights of the ingest paths are answered for any origin, ' +
    'and answers (errors too) can be read by the page',
  async (t) => {
    const preflight = await fetch(`${server.url}/v1/audit/batch`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://shop.example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-api-key,idempotency-key',
      },
    });
    t.is(preflight.status, 204);
    t.is(preflight.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /X-API-Key/);
    t.regex(preflight.headers.get('access-control-allow-headers') ?? '', /Idempotency-Key/);
    t.regex(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    const refused = await api(server.url, 'POST', '/v1/audit', {
      body: sampleEvent(),
      headers: { origin: 'https://shop.example.com' },
    });
    t.is(refused.status, 401);
    t.is(refused.headers.get('access-control-allow-origin'), 'https://shop.example.com');
    const accepted = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body: sampleEvent(),
      headers: { origin: 'https://shop.example.com' },
    });
    t.is(accepted.status, 202);
    t.regex(accepted.headers.get('access-control-expose-headers') ?? '', /Retry-After/);
    const list = await api(server.url, 'GET', '/v1/audit', { token, headers: { origin: 'https://shop.example.com' } });
    t.is(list.headers.get('access-control-allow-origin'), null, 'only the ingest paths are open to other origins');
  },
);

test(
  'a key restricted to origins is 403 from any other page, ' +
    'works from its own and outside browsers; restrictions change in place',
  async (t) => {
    const created = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
      token,
      body: {
        name: 'storefront',
        allowed_origins: ['https://Shop.example.com', 'http://localhost:5173'],
        rate_limit: 1000,
      },
    });
    t.is(created.status, 201);
    t.deepEqual(created.body.allowed_origins, ['https://shop.example.com', 'http://localhost:5173']);
    const key = created.body.key as string;
    const from = (origin?: string) =>
      api(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent(), headers: origin ? { origin } : {} });
    t.is((await from('https://shop.example.com')).status, 202);
    t.is((await from('http://localhost:5173')).status, 202);
    t.is((await from()).status, 202, 'no Origin: not a browser page');
    const elsewhere = await from('https://evil.example.net');
    t.is(elsewhere.status, 403);
    t.is(elsewhere.body.error.code, 'forbidden');
    t.is((await batch([sampleEvent()], { origin: 'https://evil.example.net' }, key)).status, 403);
    const listedKey = (await api(server.url, 'GET', `/v1/projects/${projectId}/api-keys`, { token })).body.find(
      (k: { id: string }) => k.id === created.body.id,
    );
    t.deepEqual(
      [listedKey.allowed_origins, listedKey.rate_limit],
      [['https://shop.example.com', 'http://localhost:5173'], 1000],
    );
    const widened = await api(server.url, 'PUT', `/v1/projects/${projectId}/api-keys/${created.body.id}`, {
      token,
      body: { allowed_origins: ['https://evil.example.net'] },
    });
    t.is(widened.status, 200);
    t.deepEqual(widened.body.allowed_origins, ['https://evil.example.net']);
    t.is(widened.body.rate_limit, 1000, 'a field not given is kept');
    t.is((await from('https://evil.example.net')).status, 202);
    t.is((await from('https://shop.example.com')).status, 403);
    const invalid = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
      token,
      body: { name: 'x', allowed_origins: ['https://shop.example.com/path', 'ftp://x'], rate_limit: 0, colour: 'red' },
    });
    t.is(invalid.status, 400);
    t.deepEqual(invalid.body.error.details.map((d: { path: string }) => d.path).sort(), [
      'allowed_origins.0',
      'allowed_origins.1',
      'colour',
      'rate_limit',
    ]);
  },
);

test(
  'rate limit per key: past its events per second 429 with Retry-After; ' + 'a batch larger than a second of it is 413',
  async (t) => {
    const created = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
      token,
      body: { name: 'slow', rate_limit: 5 },
    });
    const key = created.body.key as string;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await api(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent() })).status);
    t.deepEqual(statuses.slice(0, 5), [202, 202, 202, 202, 202]);
    t.is(statuses[5], 429);
    const limited = await batch([sampleEvent()], {}, key);
    t.is(limited.status, 429);
    t.is(limited.headers.get('retry-after'), '1');
    t.is(limited.body.error.code, 'too_many_requests');
    const tooBig = await batch(
      Array.from({ length: 6 }, () => sampleEvent()),
      {},
      key,
    );
    t.is(tooBig.status, 413);
    await new Promise((r) => setTimeout(r, 1100));
    t.is(
      (
        await batch(
          Array.from({ length: 5 }, () => sampleEvent()),
          {},
          key,
        )
      ).status,
      202,
      'the next second',
    );
    t.is((await batch([sampleEvent()], {}, apiKey)).status, 202, 'other keys are not held back');
  },
);
