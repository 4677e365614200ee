import test from 'ava';
import {
  api,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

let server: TestServer;
let token: string;
let projectId: string;
let apiKey: string;

test.before(async () => {
  server = await startTestServer({ env: { WATCHLOG_BODY_LIMIT_BYTES: '8192' } });
  token = await login(server.url);
  ({ projectId, apiKey } = await projectWithKey(server.url, token));
});
test.after.always(() => server.stop());

const ingest = (body: unknown, headers: Record<string, string> = {}) =>
  api(server.url, 'POST', '/v1/audit', { apiKey, body, headers });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('202 with the id only once the event is in the log', async (t) => {
  const res = await ingest(sampleEvent());
  t.is(res.status, 202);
  t.deepEqual(Object.keys(res.body), ['id']);
  t.regex(res.body.id, UUID);
  const stream = await server.runtime.log.readStream(`audit-${projectId}`);
  const recorded = stream.find((e) => (e.data as { id: string }).id === res.body.id);
  t.is(recorded?.type, 'AuditEventRecorded');
  t.is((recorded?.data as { event_type: string } | undefined)?.event_type, 'http');
});

test('missing, unknown and revoked API keys get 401 with the error shape', async (t) => {
  const missing = await api(server.url, 'POST', '/v1/audit', { body: sampleEvent() });
  t.is(missing.status, 401);
  t.is(missing.body.error.code, 'unauthorized');
  const unknown = await api(server.url, 'POST', '/v1/audit', { apiKey: 'wl_nope', body: sampleEvent() });
  t.is(unknown.status, 401);
  const other = await projectWithKey(server.url, token, 'revoked');
  t.is((await api(server.url, 'POST', '/v1/audit', { apiKey: other.apiKey, body: sampleEvent() })).status, 202);
  const revoke = await api(server.url, 'DELETE', `/v1/projects/${other.projectId}/api-keys/${other.keyId}`, { token });
  t.is(revoke.status, 204);
  const after = await api(server.url, 'POST', '/v1/audit', { apiKey: other.apiKey, body: sampleEvent() });
  t.is(after.status, 401);
  t.is(
    (await api(server.url, 'DELETE', `/v1/projects/${other.projectId}/api-keys/${other.keyId}`, { token })).status,
    409,
  );
});

test('400 names every field at fault', async (t) => {
  const res = await ingest({
    path: 'x'.repeat(256),
    method: 'PATCH',
    status_code: 600,
    identifier: 'i'.repeat(101),
    environment: 'prod',
    source: 'mobile',
    user_roles: 'admin',
    request_body: [1],
  });
  t.is(res.status, 400);
  t.is(res.body.error.code, 'validation_error');
  t.is(typeof res.body.error.message, 'string');
  const paths = res.body.error.details.map((d: { path: string }) => d.path).sort();
  t.deepEqual(
    paths,
    [
      'environment',
      'identifier',
      'method',
      'path',
      'request_body',
      'service_name',
      'source',
      'status_code',
      'user_roles',
    ].sort(),
  );
  t.is(res.body.error.details.find((d: { path: string }) => d.path === 'service_name').message, 'is required');
});

test('boundaries: path 255, identifier 100, status 100 and 599 are accepted', async (t) => {
  for (const overrides of [
    { path: 'p'.repeat(255) },
    { identifier: 'i'.repeat(100) },
    { status_code: 100 },
    { status_code: 599 },
  ]) {
    t.is((await ingest(sampleEvent(overrides))).status, 202, JSON.stringify(overrides).slice(0, 40));
  }
  for (const overrides of [
    { status_code: 99 },
    { status_code: 200.5 },
    { status_code: '200' },
    { response_time: -1 },
  ]) {
    t.is((await ingest(sampleEvent(overrides))).status, 400, JSON.stringify(overrides));
  }
});

test('unknown fields are ignored, nulls mean absent, source defaults to backend', async (t) => {
  const res = await ingest(
    sampleEvent({ surprise: 'dropped', status_code: null, user_email: null, timestamp: '1999-01-01T00:00:00Z' }),
  );
  t.is(res.status, 202);
  const event = await eventually(async () => {
    const r = await api(server.url, 'GET', `/v1/audit/${res.body.id}`, { token });
    return r.status === 200 ? r.body : undefined;
  });
  t.false('surprise' in event);
  t.false('status_code' in event);
  t.false('user_email' in event);
  t.is(event.source, 'backend');
  t.not(event.timestamp, '1999-01-01T00:00:00.000Z');
});

test('secrets and card numbers are masked before they reach the log', async (t) => {
  const res = await ingest(
    sampleEvent({
      request_body: { password: 'hunter2', nested: [{ Authorization: 'Bearer abc' }], card: '4111-1111-1111-1111' },
      query_params: { token: 'abc', q: '5500 0000 0000 0004' },
      response_body: { refresh_token: 'r', note: 'ok' },
      path_params: { api_key: 'k' },
    }),
  );
  t.is(res.status, 202);
  const raw = JSON.stringify(await server.runtime.log.readStream(`audit-${projectId}`));
  for (const secret of ['hunter2', 'Bearer abc', '4111-1111-1111-1111', '5500 0000 0000 0004'])
    t.false(raw.includes(secret), secret);
  const event = await eventually(async () => {
    const r = await api(server.url, 'GET', `/v1/audit/${res.body.id}`, { token });
    return r.status === 200 ? r.body : undefined;
  });
  t.deepEqual(event.request_body, {
    password: '********',
    nested: [{ Authorization: '********' }],
    card: '****-****-****-1111',
  });
  t.deepEqual(event.query_params, { token: '********', q: '**** **** **** 0004' });
  t.deepEqual(event.response_body, { refresh_token: '********', note: 'ok' });
  t.deepEqual(event.path_params, { api_key: '********' });
});

test('the common secret names are masked before the log too, however spelt', async (t) => {
  const res = await ingest(
    sampleEvent({
      request_body: {
        apikey: 'k1',
        'X-API-Key': 'k2',
        Client_Secret: 'cs',
        CLIENTSECRET: 'cs2',
        'private-key': 'pk',
        passwd: 'pw',
        cvv: '123',
        CVC: '456',
        Pin: '0000',
        ssn: '078-05-1120',
        nested: [{ 'client-secret': 'cs3' }],
      },
      response_body: { 'Set-Cookie': ['sid=abc; HttpOnly'], cookie: 'sid=abc', pinned: 'kept' },
    }),
  );
  t.is(res.status, 202);
  const raw = JSON.stringify(await server.runtime.log.readStream(`audit-${projectId}`));
  for (const secret of [
    'k1',
    'k2',
    '"cs"',
    'cs2',
    'cs3',
    '"pk"',
    '"pw"',
    '"123"',
    '"456"',
    '"0000"',
    '078-05-1120',
    'sid=abc',
  ])
    t.false(raw.includes(secret), secret);
  const event = await eventually(async () => {
    const r = await api(server.url, 'GET', `/v1/audit/${res.body.id}`, { token });
    return r.status === 200 ? r.body : undefined;
  });
  const M = '********';
  t.deepEqual(event.request_body, {
    apikey: M,
    'X-API-Key': M,
    Client_Secret: M,
    CLIENTSECRET: M,
    'private-key': M,
    passwd: M,
    cvv: M,
    CVC: M,
    Pin: M,
    ssn: M,
    nested: [{ 'client-secret': M }],
  });
  t.deepEqual(event.response_body, { 'Set-Cookie': M, cookie: M, pinned: 'kept' });
});

test('wrong content type is 415, malformed JSON 400, never 500', async (t) => {
  const text = await api(server.url, 'POST', '/v1/audit', {
    apiKey,
    body: JSON.stringify(sampleEvent()),
    headers: { 'content-type': 'text/plain' },
  });
  t.is(text.status, 415);
  t.is(text.body.error.code, 'unsupported_media_type');
  const none = await fetch(`${server.url}/v1/audit`, { method: 'POST', headers: { 'x-api-key': apiKey } });
  t.is(none.status, 415);
  for (const body of ['{', '', 'null', '[]', '"str"', '42', '{"path":}']) {
    const res = await api(server.url, 'POST', '/v1/audit', {
      apiKey,
      body,
      headers: { 'content-type': 'application/json' },
    });
    t.is(res.status, 400, `body ${JSON.stringify(body)}`);
    t.truthy(res.body.error.code);
  }
});

test('bodies over the limit get 413', async (t) => {
  const big = sampleEvent({ request_body: { blob: 'x'.repeat(9000) } });
  const res = await ingest(big);
  t.is(res.status, 413);
  t.is(res.body.error.code, 'payload_too_large');
  // Without a Content-Length the limit is enforced while streaming.
  const chunked = await fetch(`${server.url}/v1/audit`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: new Blob([JSON.stringify(big)]).stream(),
    duplex: 'half',
  } as RequestInit);
  t.is(chunked.status, 413);
});

const nested = (depth: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
};

test('nesting deeper than 32 levels is 400; 32 is accepted', async (t) => {
  // The event object itself is level 1, so request_body may nest 31 more levels.
  t.is((await ingest(sampleEvent({ request_body: nested(31) }))).status, 202);
  const deep = await ingest(sampleEvent({ request_body: nested(32) }));
  t.is(deep.status, 400);
  t.is(deep.body.error.code, 'too_deep');
  const brackets = await api(server.url, 'POST', '/v1/audit', {
    apiKey,
    body: '['.repeat(4000) + ']'.repeat(4000),
    headers: { 'content-type': 'application/json' },
  });
  t.is(brackets.status, 400);
});

test('__proto__ and constructor keys are kept as data and pollute nothing', async (t) => {
  const body = `{"__proto__":{"polluted":true},"path":"/p","method":"GET",
    "identifier":"u","service_name":"s","environment":"staging",
    "request_body":{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":true}},"password":"p"}}`;
  const res = await api(server.url, 'POST', '/v1/audit', {
    apiKey,
    body,
    headers: { 'content-type': 'application/json' },
  });
  t.is(res.status, 202);
  const event = await eventually(async () => {
    const r = await api(server.url, 'GET', `/v1/audit/${res.body.id}`, { token });
    return r.status === 200 ? r.body : undefined;
  });
  t.deepEqual(
    JSON.parse(JSON.stringify(event.request_body)),
    JSON.parse('{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"polluted":true}},"password":"********"}'),
  );
  t.is(({} as Record<string, unknown>).polluted, undefined);
  t.is(({} as Record<string, unknown>).isAdmin, undefined);
  // A __proto__ object never supplies the required fields.
  const sneaky = await api(server.url, 'POST', '/v1/audit', {
    apiKey,
    headers: { 'content-type': 'application/json' },
    body: '{"__proto__":{"path":"/p","method":"GET","identifier":"u","service_name":"s","environment":"staging"}}',
  });
  t.is(sneaky.status, 400);
});
