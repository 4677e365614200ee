import { randomUUID } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { OpenApiDocument } from '../../../src/http/openapi/document.ts';
import { AnswerValidator } from '../../helpers/openapi.ts';
import { eventually, login, sampleEvent, startTestServer, type TestServer } from '../../helpers/server.ts';
import { startTarget, type Target } from '../../helpers/target.ts';
import { providerReceiver } from '../../helpers/provider-receiver.ts';

/** Every endpoint of a real server (HTTP on 127.0.0.1, embedded stores, the worker's jobs and
 *  the checkpoint sealer running), each real answer checked against the description the server
 *  serves (`GET /v1/openapi.json`): its status must be documented for the operation, its body
 *  valid against the documented schema (objects refuse undocumented fields), its documented
 *  headers present and valid, and no header of watchlog's own undocumented. Bodies the server
 *  took must be valid against the documented request schemas. The last test fails when an
 *  operation, or one of its success statuses, was never driven. */

const T0 = Date.parse('2026-09-01T10:00:00.000Z');
class Clock {
  constructor(public ms: number) {}
  readonly now = () => new Date(this.ms);
}
const clock = new Clock(T0);
/** The anomaly scan's clock: held back until the burst it should see is in. */
const scanClock = new Clock(T0 - 3_600_000);
const METRICS_TOKEN = 'openapi-metrics-token-0123';
const BODY_LIMIT = 4096;

let server: TestServer;
let target: Target;
let hook: Awaited<ReturnType<typeof providerReceiver>>;
/** Whether the webhook receiver answers 500. */
let hookFails = true;
let doc: OpenApiDocument;
let validator: AnswerValidator;
let admin: string;
/** `METHOD /route STATUS` of every answer checked. */
const driven = new Set<string>();
const ids: Record<string, string> = {};

test.before(async () => {
  server = await startTestServer({
    now: clock.now,
    scanNow: scanClock.now,
    jobs: true,
    anomalyScanMs: 200,
    checkpoints: true,
    notifications: true,
    env: {
      WATCHLOG_METRICS_TOKEN: METRICS_TOKEN,
      WATCHLOG_CHECKPOINT_INTERVAL_MS: '200',
      WATCHLOG_BODY_LIMIT_BYTES: String(BODY_LIMIT),
    },
  });
  target = await startTarget(200);
  hook = await providerReceiver(() => (hookFails ? { status: 500, body: 'broken' } : { status: 200, body: 'ok' }));
  admin = await login(server.url);
});
test.after.always(async () => {
  await server?.stop();
  await target?.close();
  await hook?.close();
});

interface Request {
  token?: string;
  apiKey?: string;
  /** JSON, sent as application/json. */
  body?: unknown;
  /** A body sent as it is, with `contentType`. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** A body the server takes in part (a batch with invalid events): not checked against the
   *  request schema, which describes what a client should send. */
  partlyInvalid?: boolean;
}
// Parsed JSON answers are read by the scenario like fetch's `json()`.
interface Answered {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** One request to operation `op` (`GET /v1/monitors/:id`) at `url`, its answer checked against the
 *  description; `expected` is the status the scenario means to reach. */
const call = async (
  t: ExecutionContext,
  op: string,
  url: string,
  request: Request,
  expected: number,
): Promise<Answered> => {
  const [method, route] = op.split(' ') as [string, string];
  const headers: Record<string, string> = { ...request.headers };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.apiKey) headers['x-api-key'] = request.apiKey;
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  } else if (request.raw !== undefined) {
    body = request.raw;
    headers['content-type'] = request.contentType ?? 'application/json';
  }
  const res = await fetch(server.url + url, { method, headers, body });
  const text = await res.text();
  t.deepEqual(
    validator.problems({ method, route, status: res.status, headers: res.headers, body: text }),
    [],
    `${op} at ${url}`,
  );
  t.is(res.status, expected, `${op} at ${url}: ${text.slice(0, 300)}`);
  if (res.status < 300 && request.body !== undefined && !request.partlyInvalid)
    t.deepEqual(validator.requestProblems(method, route, request.body), [], `${op}: the body it took`);
  driven.add(`${method} ${route} ${res.status}`);
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: the text is the body
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
};

test.serial(
  'the description is a valid OpenAPI 3.1 document, every schema in it compiles, and its examples are valid',
  async (t) => {
    const res = await fetch(`${server.url}/v1/openapi.json`);
    t.is(res.status, 200);
    doc = (await res.json()) as OpenApiDocument;
    const checked = new Validator();
    const result = await checked.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    t.true(result.valid, JSON.stringify(result.errors, null, 1));
    t.is(checked.version, '3.1');
    validator = new AnswerValidator(doc);
    await call(t, 'GET /v1/openapi.json', '/v1/openapi.json', {}, 200);

    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    let examples = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [mediaType, media] of Object.entries(op.requestBody?.content ?? {})) {
          if (media.example === undefined) continue;
          examples += 1;
          t.is(
            validator.check(
              `/paths/${escape(path)}/${method}/requestBody/content/${escape(mediaType)}/schema`,
              media.example,
            ),
            null,
            `${method} ${path} request example`,
          );
        }
        for (const [status, response] of Object.entries(op.responses)) {
          const media = 'content' in response ? response.content?.['application/json'] : undefined;
          if (media?.example === undefined) continue;
          examples += 1;
          t.is(
            validator.check(
              `/paths/${escape(path)}/${method}/responses/${status}/content/application~1json/schema`,
              media.example,
            ),
            null,
            `${method} ${path} ${status} example`,
          );
        }
      }
    }
    t.true(examples >= 15, `${examples} examples`);
    for (const [name, response] of Object.entries(doc.components.responses)) {
      const example = response.content?.['application/json']?.example;
      if (example !== undefined)
        t.is(validator.check(`/components/responses/${name}/content/application~1json/schema`, example), null, name);
    }
  },
);

test.serial('operations: health, readiness, metrics, the description, the dashboard', async (t) => {
  await call(t, 'GET /healthz', '/healthz', {}, 200);
  await eventually(
    async () =>
      (await call(t, 'GET /readyz', '/readyz', {}, (await fetch(`${server.url}/readyz`)).status)).status === 200
        ? true
        : undefined,
    15_000,
  );
  const metrics = await call(t, 'GET /metrics', '/metrics', { token: METRICS_TOKEN }, 200);
  t.regex(metrics.text, /^# HELP /m);
  await call(t, 'GET /metrics', '/metrics', {}, 401);
  await call(t, 'GET /v1/openapi.json', '/v1/openapi.json?format=yaml', {}, 400);
  const page = await call(t, 'GET /', '/', { headers: { accept: 'text/html' } }, 200);
  t.regex(page.text, /<div id="root">/);
  await call(t, 'GET /', '/', { headers: { accept: 'text/html', 'if-none-match': page.headers.get('etag')! } }, 304);
  const docs = await call(t, 'GET /docs', '/docs', { headers: { accept: 'text/html' } }, 200);
  await call(
    t,
    'GET /docs',
    '/docs',
    { headers: { accept: 'text/html', 'if-none-match': docs.headers.get('etag')! } },
    304,
  );
});

test.serial('accounts, projects and API keys', async (t) => {
  const login = await call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { email: 'admin@example.com', password: 'correct horse battery' } },
    200,
  );
  t.truthy(login.body.token);
  await call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { email: 'admin@example.com', password: 'wrong' } },
    401,
  );
  for (let i = 0; i < 5; i++)
    await call(
      t,
      'POST /v1/auth/login',
      '/v1/auth/login',
      { body: { email: 'ghost@example.com', password: 'wrong' } },
      401,
    );
  await call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { email: 'ghost@example.com', password: 'wrong' } },
    429,
  );
  await call(t, 'POST /v1/auth/login', '/v1/auth/login', { body: { email: 'admin@example.com' } }, 400);
  await call(t, 'POST /v1/auth/login', '/v1/auth/login', { raw: '{"email":' }, 400);
  await call(t, 'GET /v1/auth/me', '/v1/auth/me', { token: admin }, 200);
  await call(t, 'GET /v1/auth/me', '/v1/auth/me', {}, 401);
  await call(t, 'GET /v1/auth/me', '/v1/auth/me', { token: 'not-a-jwt' }, 401);

  const project = await call(t, 'POST /v1/projects', '/v1/projects', { token: admin, body: { name: 'shop' } }, 201);
  ids.project = project.body.id;
  await call(t, 'POST /v1/projects', '/v1/projects', { token: admin, body: { name: '' } }, 400);
  await call(
    t,
    'POST /v1/projects',
    '/v1/projects',
    { token: admin, raw: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }) },
    413,
  );
  await call(
    t,
    'POST /v1/projects',
    '/v1/projects',
    { token: admin, raw: 'name=shop', contentType: 'application/x-www-form-urlencoded' },
    415,
  );
  await call(t, 'GET /v1/projects', '/v1/projects', { token: admin }, 200);
  await call(t, 'GET /v1/projects/:id', `/v1/projects/${ids.project}`, { token: admin }, 200);
  await call(t, 'GET /v1/projects/:id', '/v1/projects/00000000-0000-4000-8000-000000000000', { token: admin }, 404);

  const base = `/v1/projects/${ids.project}/api-keys`;
  const key = await call(t, 'POST /v1/projects/:id/api-keys', base, { token: admin, body: { name: 'backend' } }, 201);
  ids.apiKey = key.body.key;
  const browserKey = await call(
    t,
    'POST /v1/projects/:id/api-keys',
    base,
    { token: admin, body: { name: 'storefront', allowed_origins: ['https://shop.example.com'], rate_limit: 1 } },
    201,
  );
  ids.browserKey = browserKey.body.key;
  const spare = await call(t, 'POST /v1/projects/:id/api-keys', base, { token: admin, body: { name: 'spare' } }, 201);
  await call(t, 'GET /v1/projects/:id/api-keys', base, { token: admin }, 200);
  await call(
    t,
    'PUT /v1/projects/:id/api-keys/:keyId',
    `${base}/${spare.body.id}`,
    { token: admin, body: { rate_limit: 50 } },
    200,
  );
  await call(t, 'DELETE /v1/projects/:id/api-keys/:keyId', `${base}/${spare.body.id}`, { token: admin }, 204);
  await call(t, 'DELETE /v1/projects/:id/api-keys/:keyId', `${base}/${spare.body.id}`, { token: admin }, 409);

  const user = await call(
    t,
    'POST /v1/users',
    '/v1/users',
    {
      token: admin,
      body: { email: 'member@example.com', password: 'member password', role: 'member', project_ids: [ids.project] },
    },
    201,
  );
  ids.member = user.body.id;
  await call(
    t,
    'POST /v1/users',
    '/v1/users',
    {
      token: admin,
      body: { email: 'member@example.com', password: 'member password', role: 'member', project_ids: [] },
    },
    409,
  );
  await call(t, 'GET /v1/users', '/v1/users', { token: admin }, 200);
  await call(
    t,
    'POST /v1/users/:id/password',
    `/v1/users/${ids.member}/password`,
    { token: admin, body: { password: 'another member password' } },
    204,
  );
  ids.memberToken = (
    await call(
      t,
      'POST /v1/auth/login',
      '/v1/auth/login',
      { body: { email: 'member@example.com', password: 'another member password' } },
      200,
    )
  ).body.token;
  await call(t, 'POST /v1/projects', '/v1/projects', { token: ids.memberToken, body: { name: 'not allowed' } }, 403);
  await call(t, 'GET /v1/users', '/v1/users', { token: ids.memberToken }, 403);
  await call(t, 'PUT /v1/users/:id', `/v1/users/${ids.member}`, { token: admin, body: { role: 'auditor' } }, 200);
  await call(t, 'DELETE /v1/users/:id', `/v1/users/${ids.member}`, { token: admin }, 204);
  const me = await call(t, 'GET /v1/auth/me', '/v1/auth/me', { token: admin }, 200);
  await call(t, 'DELETE /v1/users/:id', `/v1/users/${me.body.id}`, { token: admin }, 409);

  const settings = `/v1/projects/${ids.project}/anomaly-settings`;
  await call(t, 'GET /v1/projects/:id/anomaly-settings', settings, { token: admin }, 200);
  await call(
    t,
    'PUT /v1/projects/:id/anomaly-settings',
    settings,
    { token: admin, body: { brute_force: { threshold: 5, window_secs: 60 }, volume_spike: { enabled: null } } },
    200,
  );
  await call(
    t,
    'PUT /v1/projects/:id/anomaly-settings',
    settings,
    { token: admin, body: { brute_force: { threshold: 0 } } },
    400,
  );
  const masking = `/v1/projects/${ids.project}/masking`;
  await call(
    t,
    'PUT /v1/projects/:id/masking',
    masking,
    { token: admin, body: { keys: ['national_id'], patterns: ['\\bAKIA[0-9A-Z]{16}\\b'] } },
    200,
  );
  await call(t, 'GET /v1/projects/:id/masking', masking, { token: admin }, 200);
  await call(t, 'GET /v1/projects/:id/masking', `${masking}?verbose=1`, { token: admin }, 400);
  const retention = `/v1/projects/${ids.project}/retention`;
  await call(t, 'GET /v1/projects/:id/retention', retention, { token: admin }, 200);
  await call(t, 'PUT /v1/projects/:id/retention', retention, { token: admin, body: { retention_days: 400 } }, 200);
  await call(t, 'PUT /v1/projects/:id/retention', retention, { token: admin, body: { retention_days: 0 } }, 400);
  const erasures = `/v1/projects/${ids.project}/erasures`;
  const asked = await call(
    t,
    'POST /v1/projects/:id/erasures',
    erasures,
    { token: admin, body: { identifier: 'nobody-here' } },
    202,
  );
  await call(
    t,
    'GET /v1/projects/:id/erasures/:erasureId',
    `${erasures}/${asked.body.id as string}`,
    { token: admin },
    200,
  );
  await call(t, 'GET /v1/projects/:id/erasures/:erasureId', `${erasures}/${randomUUID()}`, { token: admin }, 404);
  await call(t, 'GET /v1/projects/:id/erasures', `${erasures}?limit=5`, { token: admin }, 200);
  await call(t, 'GET /v1/projects/:id/erasures', `${erasures}?limit=500`, { token: admin }, 400);
  await call(
    t,
    'POST /v1/projects/:id/erasures',
    `/v1/projects/${ids.project}/erasures`,
    { token: admin, body: { identifier: '' } },
    400,
  );
});

test.serial('ingest: one event, idempotency, a batch, and what ingest refuses', async (t) => {
  const event = sampleEvent({
    session_id: 'sess-1',
    request_body: { email: 'ada@example.com', password: 'hunter2' },
    user_email: 'ada@example.com',
  });
  const first = await call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: event, headers: { 'idempotency-key': 'order-1' } },
    202,
  );
  ids.event = first.body.id;
  const replay = await call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: event, headers: { 'idempotency-key': 'order-1' } },
    202,
  );
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  await call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, body: { ...event, path: '/other' }, headers: { 'idempotency-key': 'order-1' } },
    409,
  );
  await call(t, 'POST /v1/audit', '/v1/audit', { apiKey: ids.apiKey, body: { ...event, method: 'PATCH' } }, 400);
  await call(t, 'POST /v1/audit', '/v1/audit', { body: event }, 401);
  await call(
    t,
    'POST /v1/audit',
    '/v1/audit',
    { apiKey: ids.apiKey, raw: JSON.stringify(event), contentType: 'text/plain' },
    415,
  );
  await call(
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
  await call(t, 'POST /v1/audit', '/v1/audit', fromShop, 202);
  // The key's rate is 1 event a second.
  await call(t, 'POST /v1/audit', '/v1/audit', fromShop, 429);

  const batch = await call(
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
  await call(
    t,
    'POST /v1/audit/batch',
    `/v1/audit/batch?api_key=${ids.apiKey}`,
    { raw: JSON.stringify([sampleEvent({ identifier: 'beacon' })]), contentType: 'text/plain' },
    202,
  );
  await call(
    t,
    'POST /v1/audit/batch',
    '/v1/audit/batch',
    { apiKey: ids.apiKey, body: [{ path: '/none-valid' }] },
    400,
  );

  // A burst of 401s for one identifier, then the scan is let past it: a brute_force alert.
  for (let i = 0; i < 6; i++) {
    await call(
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
    (await call(t, 'GET /v1/audit', `/v1/audit?${scope}&event_type=http`, { token: admin }, 200)).body.pagination
      .totalItems >= 10
      ? true
      : undefined,
  );
  await call(t, 'GET /v1/audit', '/v1/audit?limit=500&sort_order=up', { token: admin }, 400);
  await call(t, 'GET /v1/audit', '/v1/audit?project_id=00000000-0000-4000-8000-000000000000', { token: admin }, 404);
  const event = await call(t, 'GET /v1/audit/:id', `/v1/audit/${ids.event}`, { token: admin }, 200);
  t.is(event.body.request_body.password, '********');
  await call(t, 'GET /v1/audit/:id', '/v1/audit/not-an-id', { token: admin }, 404);
  await call(
    t,
    'GET /v1/audit/stats',
    `/v1/audit/stats?${scope}&start_date=2026-09-01&end_date=2026-09-02`,
    { token: admin },
    200,
  );
  await call(t, 'GET /v1/audit/stats', `/v1/audit/stats?${scope}&interval=second`, { token: admin }, 400);
  const csv = await call(t, 'GET /v1/audit/export', `/v1/audit/export?${scope}`, { token: admin }, 200);
  t.regex(csv.text, /^"id","timestamp",/);
  await call(t, 'GET /v1/audit/export', `/v1/audit/export?${scope}&format=json`, { token: admin }, 200);
  await call(t, 'HEAD /v1/audit/export', `/v1/audit/export?${scope}`, { token: admin }, 200);
  const sessions = await call(
    t,
    'GET /v1/audit/sessions',
    `/v1/audit/sessions?${scope}&limit=1`,
    { token: admin },
    200,
  );
  t.true(sessions.body.length === 1);
  await call(t, 'GET /v1/audit/sessions/:session_id', '/v1/audit/sessions/sess-1', { token: admin }, 200);
  await call(t, 'GET /v1/audit/sessions/:session_id', '/v1/audit/sessions/no-such-session', { token: admin }, 404);
  const orphans = await call(t, 'GET /v1/audit/orphans', `/v1/audit/orphans?${scope}`, { token: admin }, 200);
  t.deepEqual(
    orphans.body.data.map((o: { request_id: string }) => o.request_id),
    ['r-orphan'],
  );
  await eventually(
    async () =>
      (await call(t, 'GET /v1/audit/anomalies', `/v1/audit/anomalies?${scope}`, { token: admin }, 200)).body.data
        .length > 0
        ? true
        : undefined,
    20_000,
  );
  await call(t, 'GET /v1/audit/anomalies', `/v1/audit/anomalies?${scope}&rule=storm`, { token: admin }, 400);
});

test.serial('monitors and notification channels', async (t) => {
  // A webhook that fails until told otherwise: the monitor's DOWN is a failed delivery to retry.
  const listener = await call(
    t,
    'POST /v1/channels',
    '/v1/channels',
    { token: admin, body: { project_id: ids.project, type: 'webhook', url: `${hook.base}/hook` } },
    201,
  );
  const monitor = await call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: admin, body: { project_id: ids.project, name: 'orders', url: target.url, interval_seconds: 10 } },
    201,
  );
  ids.monitor = monitor.body.id;
  await call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: admin, body: { project_id: ids.project, name: 'orders', url: 'ftp://x', interval_seconds: 5 } },
    400,
  );
  await call(
    t,
    'POST /v1/monitors',
    '/v1/monitors',
    { token: admin, body: { project_id: '00000000-0000-4000-8000-000000000000', name: 'x', url: target.url } },
    404,
  );
  await call(t, 'GET /v1/monitors', `/v1/monitors?project_id=${ids.project}`, { token: admin }, 200);
  await call(
    t,
    'PUT /v1/monitors/:id',
    `/v1/monitors/${ids.monitor}`,
    { token: admin, body: { expected_status: 200 } },
    200,
  );
  await call(t, 'POST /v1/monitors/:id/test', `/v1/monitors/${ids.monitor}/test`, { token: admin }, 200);
  await eventually(
    async () =>
      (
        await call(
          t,
          'GET /v1/monitors/:id/history',
          `/v1/monitors/${ids.monitor}/history?limit=5`,
          { token: admin },
          200,
        )
      ).body.length > 0
        ? true
        : undefined,
    15_000,
  );
  // Its state follows the check: a monitor with every field set.
  await eventually(async () =>
    (await call(t, 'GET /v1/monitors/:id', `/v1/monitors/${ids.monitor}`, { token: admin }, 200)).body.status === 'UP'
      ? true
      : undefined,
  );
  await call(t, 'GET /v1/monitors/:id/history', `/v1/monitors/${ids.monitor}/history?limit=201`, { token: admin }, 400);
  target.status = 500;
  const failed = await eventually(async () => {
    const page = (
      await call(
        t,
        'GET /v1/channels/:id/deliveries',
        `/v1/channels/${listener.body.id}/deliveries?status=failed`,
        { token: admin },
        200,
      )
    ).body;
    return page.data[0];
  }, 30_000);
  t.is(failed.attempts.length, 3);
  await call(
    t,
    'GET /v1/channels/:id/deliveries',
    `/v1/channels/${listener.body.id}/deliveries?status=lost`,
    { token: admin },
    400,
  );
  t.deepEqual(
    (await call(t, 'GET /v1/deliveries', `/v1/deliveries?event_id=${failed.event_id}`, { token: admin }, 200)).body.map(
      (d: { id: string }) => d.id,
    ),
    [failed.id],
  );
  await call(t, 'GET /v1/deliveries', '/v1/deliveries', { token: admin }, 400);
  await call(t, 'GET /v1/deliveries/:id', `/v1/deliveries/${failed.id}`, { token: admin }, 200);
  await call(t, 'GET /v1/deliveries/:id', '/v1/deliveries/00000000-0000-4000-8000-000000000000', { token: admin }, 404);
  const tested = await call(
    t,
    'POST /v1/channels/:id/test',
    `/v1/channels/${listener.body.id}/test`,
    { token: admin },
    200,
  );
  t.like(tested.body, { ok: false, status: 500, response: 'broken' });
  hookFails = false;
  await call(t, 'POST /v1/deliveries/:id/retry', `/v1/deliveries/${failed.id}/retry`, { token: admin }, 202);
  await eventually(
    async () =>
      (await call(t, 'GET /v1/deliveries/:id', `/v1/deliveries/${failed.id}`, { token: admin }, 200)).body.status ===
      'delivered'
        ? true
        : undefined,
    15_000,
  );
  await call(t, 'POST /v1/deliveries/:id/retry', `/v1/deliveries/${failed.id}/retry`, { token: admin }, 409);
  await call(t, 'DELETE /v1/monitors/:id', `/v1/monitors/${ids.monitor}`, { token: admin }, 204);
  await call(t, 'GET /v1/monitors/:id', `/v1/monitors/${ids.monitor}`, { token: admin }, 404);

  await call(t, 'GET /v1/webpush/public-key', '/v1/webpush/public-key', { token: admin }, 200);
  const channel = await call(
    t,
    'POST /v1/channels',
    '/v1/channels',
    {
      token: admin,
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
  await call(
    t,
    'POST /v1/channels',
    '/v1/channels',
    { token: admin, body: { project_id: ids.project, type: 'sms' } },
    400,
  );
  await call(t, 'GET /v1/channels', '/v1/channels', { token: admin }, 200);
  await call(t, 'GET /v1/channels/:id', `/v1/channels/${ids.channel}`, { token: admin }, 200);
  await call(t, 'PUT /v1/channels/:id', `/v1/channels/${ids.channel}`, { token: admin, body: { active: false } }, 200);
  await call(t, 'PUT /v1/channels/:id', `/v1/channels/${ids.channel}`, { token: admin, body: { colour: 'red' } }, 400);
  await call(t, 'DELETE /v1/channels/:id', `/v1/channels/${ids.channel}`, { token: admin }, 204);
});

test.serial('auditors: the stream, checkpoints and proofs', async (t) => {
  const scope = `project_id=${ids.project}`;
  const stream = await call(t, 'GET /v1/stream', `/v1/stream?${scope}&limit=2`, { token: admin }, 200);
  t.is(stream.text.trim().split('\n').length, 2);
  await call(t, 'GET /v1/stream', '/v1/stream', { token: admin }, 400);
  await call(t, 'GET /v1/checkpoints/key', '/v1/checkpoints/key', { token: admin }, 200);
  const latest = await eventually(async () => {
    const res = await call(
      t,
      'GET /v1/checkpoints/latest',
      `/v1/checkpoints/latest?${scope}`,
      { token: admin },
      (await fetch(`${server.url}/v1/checkpoints/latest?${scope}`, { headers: { authorization: `Bearer ${admin}` } }))
        .status,
    );
    return res.status === 200 && res.body.size >= 2 ? res.body : undefined;
  }, 15_000);
  await call(
    t,
    'GET /v1/proofs/inclusion',
    `/v1/proofs/inclusion?${scope}&index=0&size=${latest.size}`,
    { token: admin },
    200,
  );
  await call(
    t,
    'GET /v1/proofs/inclusion',
    `/v1/proofs/inclusion?${scope}&index=${latest.size}&size=${latest.size}`,
    { token: admin },
    400,
  );
  await call(
    t,
    'GET /v1/proofs/consistency',
    `/v1/proofs/consistency?${scope}&from=1&to=${latest.size}`,
    { token: admin },
    200,
  );
});

test.serial('every operation of the description was driven, with each of its success statuses', (t) => {
  const missing: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(operations)) {
      for (const status of Object.keys(op.responses).filter((s) => Number(s) < 400)) {
        const key = `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')} ${status}`;
        if (!driven.has(key)) missing.push(key);
      }
    }
  }
  t.deepEqual(missing, [], 'add a call for each to this test');
  t.true(driven.size > 90);
});
