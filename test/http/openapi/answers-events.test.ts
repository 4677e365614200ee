import test from 'ava';
import { Clock, driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';
import { eventually, sampleEvent } from '../../helpers/server.ts';

/** Ingest and the stored events' operations, each real answer checked against the description
 *  (test/helpers/openapi-driver.ts). */

const T0 = Date.parse('2026-09-01T10:00:00.000Z');
const clock = new Clock(T0);
/** The anomaly scan's clock: held back until the burst it should see is in. */
const scanClock = new Clock(T0 - 3_600_000);
const ids: Record<string, string> = {};

const drive = driveServer({ now: clock.now, scanNow: scanClock.now, jobs: true, anomalyScanMs: 200 });

test.serial.before(async () => {
  const { server, admin } = drive();
  const send = async (method: string, url: string, body: unknown) => {
    const res = await fetch(server.url + url, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await res.json()) as Record<string, string>;
  };
  ids.project = (await send('POST', '/v1/projects', { name: 'shop' })).id!;
  const keys = `/v1/projects/${ids.project}/api-keys`;
  ids.apiKey = (await send('POST', keys, { name: 'backend' })).key!;
  const browser = { name: 'storefront', allowed_origins: ['https://shop.example.com'], rate_limit: 1 };
  ids.browserKey = (await send('POST', keys, browser)).key!;
  // Six failed logins in a minute are a brute force (the scenario's burst).
  await send('PUT', `/v1/projects/${ids.project}/anomaly-settings`, { brute_force: { threshold: 5, window_secs: 60 } });
});

test.serial('ingest: one event, idempotency, a batch, and what ingest refuses', async (t) => {
  const event = sampleEvent({
    session_id: 'sess-1',
    request_body: { email: 'ada@example.com', password: 'hunter2' },
    user_email: 'ada@example.com',
  });
  const first = await drive().call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: event, headers: { 'idempotency-key': 'order-1' } },
    202,
  );
  ids.event = first.body.id;
  const replay = await drive().call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: event, headers: { 'idempotency-key': 'order-1' } },
    202,
  );
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  await drive().call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: { ...event, path: '/other' }, headers: { 'idempotency-key': 'order-1' } },
    409,
  );
  await drive().call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: { ...event, method: 'PATCH' } },
    400,
  );
  await drive().call(t, 'POST /v1/audit', '/v1/audit', { body: event }, 401);
  await drive().call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, raw: JSON.stringify(event), contentType: 'text/plain' },
    415,
  );
  await drive().call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.browserKey, body: event, headers: { origin: 'https://elsewhere.example.com' } },
    403,
  );
  const fromShop = {
    apiKey: ids.browserKey,
    body: sampleEvent({ source: 'browser', request_id: 'r-orphan' }),
    headers: { origin: 'https://shop.example.com' },
  };
  await drive().call(t, 'POST /v1/audit', '/v1/audit', fromShop, 202);
  // The key's rate is 1 event a second.
  await drive().call(t, 'POST /v1/audit', '/v1/audit', fromShop, 429);

  const batch = await drive().call(
    t,
    'POST /v1/audit/batch',
    '/v1/audit/batch',
    {
      apiKey: ids.apiKey,
      body: [sampleEvent({ identifier: 'user-2', session_id: 'sess-1', idempotency_key: 'b-1' }), { path: '/half' }],
      partlyInvalid: true,
    },
    202,
  );
  t.is(batch.body.rejected.length, 1);
  await drive().call(
    t,
    'POST /v1/audit/batch',
    `/v1/audit/batch?api_key=${ids.apiKey}`,
    { raw: JSON.stringify([sampleEvent({ identifier: 'beacon' })]), contentType: 'text/plain' },
    202,
  );
  await drive().call(
    t,
    'POST /v1/audit/batch',
    '/v1/audit/batch',
    { apiKey: ids.apiKey, body: [{ path: '/none-valid' }] },
    400,
  );

  // A burst of 401s for one identifier, then the scan is let past it: a brute_force alert.
  for (let i = 0; i < 6; i++) {
    await drive().call(
      t,
      'POST /v1/audit',
      '/v1/audit',
      { apiKey: ids.apiKey, body: sampleEvent({ path: '/login', status_code: 401, identifier: 'mallory' }) },
      202,
    );
    clock.ms += 1000;
  }
  scanClock.ms = clock.ms + 10_000;
  // Browser events are judged orphans 2 minutes after they happened.
  clock.ms += 3 * 60_000;
});

test.serial('events: list, detail, statistics, export, sessions, orphans, anomalies', async (t) => {
  const scope = `project_id=${ids.project}`;
  await eventually(async () =>
    (await drive().call(t, 'GET /v1/audit', `/v1/audit?${scope}&event_type=http`, { token: drive().admin }, 200)).body
      .pagination.totalItems >= 10
      ? true
      : undefined,
  );
  await drive().call(t, 'GET /v1/audit', '/v1/audit?limit=500&sort_order=up', { token: drive().admin }, 400);
  await drive().call(
    t,
    'GET /v1/audit',
    '/v1/audit?project_id=00000000-0000-4000-8000-000000000000',
    { token: drive().admin },
    404,
  );
  const event = await drive().call(t, 'GET /v1/audit/:id', `/v1/audit/${ids.event}`, { token: drive().admin }, 200);
  t.is(event.body.request_body.password, '********');
  await drive().call(t, 'GET /v1/audit/:id', '/v1/audit/not-an-id', { token: drive().admin }, 404);
  await drive().call(
    t,
    'GET /v1/audit/stats',
    `/v1/audit/stats?${scope}&start_date=2026-09-01&end_date=2026-09-02`,
    { token: drive().admin },
    200,
  );
  await drive().call(
    t,
    'GET /v1/audit/stats',
    `/v1/audit/stats?${scope}&interval=second`,
    { token: drive().admin },
    400,
  );
  const csv = await drive().call(t, 'GET /v1/audit/export', `/v1/audit/export?${scope}`, { token: drive().admin }, 200);
  t.regex(csv.text, /^"id","timestamp",/);
  await drive().call(t, 'GET /v1/audit/export', `/v1/audit/export?${scope}&format=json`, { token: drive().admin }, 200);
  await drive().call(t, 'HEAD /v1/audit/export', `/v1/audit/export?${scope}`, { token: drive().admin }, 200);
  const sessions = await drive().call(
    t,
    'GET /v1/audit/sessions',
    `/v1/audit/sessions?${scope}&limit=1`,
    { token: drive().admin },
    200,
  );
  t.true(sessions.body.length === 1);
  await drive().call(
    t,
    'GET /v1/audit/sessions/:session_id',
    '/v1/audit/sessions/sess-1',
    { token: drive().admin },
    200,
  );
  await drive().call(
    t,
    'GET /v1/audit/sessions/:session_id',
    '/v1/audit/sessions/no-such-session',
    { token: drive().admin },
    404,
  );
  const orphans = await drive().call(
    t,
    'GET /v1/audit/orphans',
    `/v1/audit/orphans?${scope}`,
    { token: drive().admin },
    200,
  );
  t.deepEqual(
    orphans.body.data.map((o: { request_id: string }) => o.request_id),
    ['r-orphan'],
  );
  await eventually(
    async () =>
      (await drive().call(t, 'GET /v1/audit/anomalies', `/v1/audit/anomalies?${scope}`, { token: drive().admin }, 200))
        .body.data.length > 0
        ? true
        : undefined,
    20_000,
  );
  await drive().call(
    t,
    'GET /v1/audit/anomalies',
    `/v1/audit/anomalies?${scope}&rule=storm`,
    { token: drive().admin },
    400,
  );
});

test.serial('OTLP traces: an export, one with a span refused, and what OTLP ingest refuses', async (t) => {
  const span = (spanId: string, attributes: Array<{ key: string; value: unknown }>) => ({
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId,
    kind: 'SPAN_KIND_SERVER',
    startTimeUnixNano: '1788256800000000000',
    endTimeUnixNano: '1788256800042000000',
    attributes: [
      { key: 'http.request.method', value: { stringValue: 'GET' } },
      { key: 'http.route', value: { stringValue: '/otlp/:id' } },
      ...attributes,
    ],
  });
  const exportOf = (...spans: unknown[]) => ({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'otlp-api' } }] },
        scopeSpans: [{ spans }],
      },
    ],
  });
  const traces = '/v1/otlp/v1/traces';
  const op = 'POST /v1/otlp/v1/traces';
  const all = await drive().call(
    t,
    op,
    traces,
    { apiKey: ids.apiKey, body: exportOf(span('00f067aa0ba902b7', [])) },
    200,
  );
  t.deepEqual(all.body, {});
  const status = { key: 'http.response.status_code', value: { intValue: 900 } };
  const partial = await drive().call(
    t,
    op,
    traces,
    { apiKey: ids.apiKey, body: exportOf(span('00f067aa0ba902b8', []), span('00f067aa0ba902b9', [status])) },
    200,
  );
  t.is(partial.body.partialSuccess.rejectedSpans, '1');
  t.regex(partial.body.partialSuccess.errorMessage, /spans\.1 \(event status_code\)/);
  const bad = await drive().call(t, op, traces, { apiKey: ids.apiKey, body: { resourceSpans: {} } }, 400);
  t.deepEqual(bad.body.error.details, [{ path: 'resourceSpans', message: 'must be an array' }]);
  await drive().call(t, op, traces, { body: exportOf() }, 401);
  await drive().call(t, op, traces, { apiKey: ids.apiKey, raw: 'x', contentType: 'text/plain' }, 415);
});

everyOperationDriven('answers-events.test.ts', drive);
