import { randomUUID } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import test from 'ava';
import type { OpenApiDocument } from '../../../src/http/openapi/document.ts';
import { AnswerValidator } from '../../helpers/openapi.ts';
import { DRIVEN_TAGS, driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';
import { eventually } from '../../helpers/server.ts';

/** The description itself, and the service's, accounts' and projects' operations, each real
 *  answer checked against it (test/helpers/openapi-driver.ts). */

const METRICS_TOKEN = 'openapi-metrics-token-0123';
const BODY_LIMIT = 4096;
const ids: Record<string, string> = {};

const drive = driveServer({
  env: { WATCHLOG_METRICS_TOKEN: METRICS_TOKEN, WATCHLOG_BODY_LIMIT_BYTES: String(BODY_LIMIT) },
});

test.serial(
  'the description is a valid OpenAPI 3.1 document, every schema in it compiles, and its examples are valid',
  async (t) => {
    const res = await fetch(`${drive().server.url}/v1/openapi.json`);
    t.is(res.status, 200);
    const doc = (await res.json()) as OpenApiDocument;
    const checked = new Validator();
    const result = await checked.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    t.true(result.valid, JSON.stringify(result.errors, null, 1));
    t.is(checked.version, '3.1');
    const validator = new AnswerValidator(doc);
    await drive().call(t, 'GET /v1/openapi.json', '/v1/openapi.json', {}, 200);

    const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    let examples = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        for (const [mediaType, media] of Object.entries(op.requestBody?.content ?? {})) {
          if (media.example === undefined) continue;
          examples += 1;
          t.is(
            validator.check(
              `/paths/${pointer(path)}/${method}/requestBody/content/${pointer(mediaType)}/schema`,
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
              `/paths/${pointer(path)}/${method}/responses/${status}/content/application~1json/schema`,
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

test.serial('the answers files share out every tag of the description', (t) => {
  const shared = Object.values(DRIVEN_TAGS).flat();
  t.deepEqual(new Set(shared).size, shared.length, 'no tag is driven twice');
  t.deepEqual(
    [...shared].sort(),
    drive()
      .doc.tags.map((tag) => tag.name)
      .sort(),
  );
});

test.serial('operations: health, readiness, metrics, the description, the dashboard', async (t) => {
  await drive().call(t, 'GET /healthz', '/healthz', {}, 200);
  await eventually(
    async () =>
      (await drive().call(t, 'GET /readyz', '/readyz', {}, (await fetch(`${drive().server.url}/readyz`)).status))
        .status === 200
        ? true
        : undefined,
    15_000,
  );
  const metrics = await drive().call(t, 'GET /metrics', '/metrics', { token: METRICS_TOKEN }, 200);
  t.regex(metrics.text, /^# HELP /m);
  await drive().call(t, 'GET /metrics', '/metrics', {}, 401);
  await drive().call(t, 'GET /v1/openapi.json', '/v1/openapi.json?format=yaml', {}, 400);
  await drive().call(t, 'GET /v1/config.schema.json', '/v1/config.schema.json', {}, 200);
  const applied = { file: 'watchlog.yaml', changes: [] };
  await drive().call(t, 'POST /v1/config/applies', '/v1/config/applies', { token: drive().admin, body: applied }, 201);
  await drive().call(t, 'POST /v1/config/applies', '/v1/config/applies', { body: applied }, 401);
  const extra = { token: drive().admin, body: { ...applied, colour: 'red' } };
  await drive().call(t, 'POST /v1/config/applies', '/v1/config/applies', extra, 400);
  const page = await drive().call(t, 'GET /', '/', { headers: { accept: 'text/html' } }, 200);
  t.regex(page.text, /<div id="root">/);
  await drive().call(
    t,
    'GET /',
    '/',
    { headers: { accept: 'text/html', 'if-none-match': page.headers.get('etag')! } },
    304,
  );
  const docs = await drive().call(t, 'GET /docs', '/docs', { headers: { accept: 'text/html' } }, 200);
  await drive().call(
    t,
    'GET /docs',
    '/docs',
    { headers: { accept: 'text/html', 'if-none-match': docs.headers.get('etag')! } },
    304,
  );
});

test.serial('accounts, projects and API keys', async (t) => {
  const answer = await drive().call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { email: 'admin@example.com', password: 'correct horse battery' } },
    200,
  );
  t.truthy(answer.body.token);
  await drive().call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { email: 'admin@example.com', password: 'wrong' } },
    401,
  );
  for (let i = 0; i < 5; i++)
    await drive().call(
      t,
      'POST /v1/auth/login',
      '/v1/auth/login',
      { body: { email: 'ghost@example.com', password: 'wrong' } },
      401,
    );
  await drive().call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { email: 'ghost@example.com', password: 'wrong' } },
    429,
  );
  await drive().call(t, 'POST /v1/auth/login', '/v1/auth/login', { body: { email: 'admin@example.com' } }, 400);
  await drive().call(t, 'POST /v1/auth/login', '/v1/auth/login', { raw: '{"email":' }, 400);
  await drive().call(t, 'GET /v1/auth/me', '/v1/auth/me', { token: drive().admin }, 200);
  await drive().call(t, 'GET /v1/auth/me', '/v1/auth/me', {}, 401);
  await drive().call(t, 'GET /v1/auth/me', '/v1/auth/me', { token: 'not-a-jwt' }, 401);

  const project = await drive().call(
    t,
    'POST /v1/projects',
    '/v1/projects',
    { token: drive().admin, body: { name: 'shop' } },
    201,
  );
  ids.project = project.body.id;
  await drive().call(t, 'POST /v1/projects', '/v1/projects', { token: drive().admin, body: { name: '' } }, 400);
  await drive().call(
    t,
    'POST /v1/projects',
    '/v1/projects',
    { token: drive().admin, raw: JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }) },
    413,
  );
  await drive().call(
    t,
    'POST /v1/projects',
    '/v1/projects',
    { token: drive().admin, raw: 'name=shop', contentType: 'application/x-www-form-urlencoded' },
    415,
  );
  await drive().call(t, 'GET /v1/projects', '/v1/projects', { token: drive().admin }, 200);
  await drive().call(t, 'GET /v1/projects/:id', `/v1/projects/${ids.project}`, { token: drive().admin }, 200);
  await drive().call(
    t,
    'GET /v1/projects/:id',
    '/v1/projects/00000000-0000-4000-8000-000000000000',
    { token: drive().admin },
    404,
  );

  const base = `/v1/projects/${ids.project}/api-keys`;
  const key = await drive().call(
    t,
    'POST /v1/projects/:id/api-keys',
    base,
    { token: drive().admin, body: { name: 'backend' } },
    201,
  );
  ids.apiKey = key.body.key;
  const browserKey = await drive().call(
    t,
    'POST /v1/projects/:id/api-keys',
    base,
    {
      token: drive().admin,
      body: { name: 'storefront', allowed_origins: ['https://shop.example.com'], rate_limit: 1 },
    },
    201,
  );
  ids.browserKey = browserKey.body.key;
  const spare = await drive().call(
    t,
    'POST /v1/projects/:id/api-keys',
    base,
    { token: drive().admin, body: { name: 'spare' } },
    201,
  );
  await drive().call(t, 'GET /v1/projects/:id/api-keys', base, { token: drive().admin }, 200);
  const viewerTokens = `/v1/projects/${ids.project}/viewer-tokens`;
  const viewer = await drive().call(
    t,
    'POST /v1/projects/:id/viewer-tokens',
    viewerTokens,
    { token: drive().admin, body: { tenant_id: 'acme', expires_in: 900, fields: ['ip'] } },
    201,
  );
  await drive().call(
    t,
    'POST /v1/projects/:id/viewer-tokens',
    viewerTokens,
    { token: drive().admin, body: { tenant_id: '' } },
    400,
  );
  await drive().call(t, 'GET /embed', `/embed?token=${(viewer.body as { token: string }).token}`, {}, 200);
  const script = await drive().call(t, 'GET /embed/:file', '/embed/embed.js', {}, 200);
  await drive().call(
    t,
    'GET /embed/:file',
    '/embed/embed.js',
    { headers: { 'if-none-match': script.headers.get('etag')! } },
    304,
  );
  await drive().call(t, 'GET /embed/:file', '/embed/other.js', {}, 404);

  await drive().call(
    t,
    'PUT /v1/projects/:id/api-keys/:keyId',
    `${base}/${spare.body.id}`,
    { token: drive().admin, body: { rate_limit: 50 } },
    200,
  );
  await drive().call(
    t,
    'DELETE /v1/projects/:id/api-keys/:keyId',
    `${base}/${spare.body.id}`,
    { token: drive().admin },
    204,
  );
  await drive().call(
    t,
    'DELETE /v1/projects/:id/api-keys/:keyId',
    `${base}/${spare.body.id}`,
    { token: drive().admin },
    409,
  );

  const user = await drive().call(
    t,
    'POST /v1/users',
    '/v1/users',
    {
      token: drive().admin,
      body: { email: 'member@example.com', password: 'member password', role: 'member', project_ids: [ids.project] },
    },
    201,
  );
  ids.member = user.body.id;
  await drive().call(
    t,
    'POST /v1/users',
    '/v1/users',
    {
      token: drive().admin,
      body: { email: 'member@example.com', password: 'member password', role: 'member', project_ids: [] },
    },
    409,
  );
  await drive().call(t, 'GET /v1/users', '/v1/users', { token: drive().admin }, 200);
  await drive().call(
    t,
    'POST /v1/users/:id/password',
    `/v1/users/${ids.member}/password`,
    { token: drive().admin, body: { password: 'another member password' } },
    204,
  );
  ids.memberToken = (
    await drive().call(
      t,
      'POST /v1/auth/login',
      '/v1/auth/login',
      { body: { email: 'member@example.com', password: 'another member password' } },
      200,
    )
  ).body.token;
  await drive().call(
    t,
    'POST /v1/projects',
    '/v1/projects',
    { token: ids.memberToken, body: { name: 'not allowed' } },
    403,
  );
  await drive().call(t, 'GET /v1/users', '/v1/users', { token: ids.memberToken }, 403);
  await drive().call(
    t,
    'PUT /v1/users/:id',
    `/v1/users/${ids.member}`,
    { token: drive().admin, body: { role: 'auditor' } },
    200,
  );
  await drive().call(t, 'DELETE /v1/users/:id', `/v1/users/${ids.member}`, { token: drive().admin }, 204);
  const me = await drive().call(t, 'GET /v1/auth/me', '/v1/auth/me', { token: drive().admin }, 200);
  await drive().call(t, 'DELETE /v1/users/:id', `/v1/users/${me.body.id}`, { token: drive().admin }, 409);

  const settings = `/v1/projects/${ids.project}/anomaly-settings`;
  await drive().call(t, 'GET /v1/projects/:id/anomaly-settings', settings, { token: drive().admin }, 200);
  await drive().call(
    t,
    'PUT /v1/projects/:id/anomaly-settings',
    settings,
    { token: drive().admin, body: { brute_force: { threshold: 5, window_secs: 60 }, volume_spike: { enabled: null } } },
    200,
  );
  await drive().call(
    t,
    'PUT /v1/projects/:id/anomaly-settings',
    settings,
    { token: drive().admin, body: { brute_force: { threshold: 0 } } },
    400,
  );
  const masking = `/v1/projects/${ids.project}/masking`;
  await drive().call(
    t,
    'PUT /v1/projects/:id/masking',
    masking,
    { token: drive().admin, body: { keys: ['national_id'], patterns: ['\\bAKIA[0-9A-Z]{16}\\b'] } },
    200,
  );
  await drive().call(t, 'GET /v1/projects/:id/masking', masking, { token: drive().admin }, 200);
  await drive().call(t, 'GET /v1/projects/:id/masking', `${masking}?verbose=1`, { token: drive().admin }, 400);
  const otlp = `/v1/projects/${ids.project}/otlp`;
  const before = await drive().call(t, 'GET /v1/projects/:id/otlp', otlp, { token: drive().admin }, 200);
  t.like(before.body, { identifier_attribute: null, unsupported_methods: 'skip', updated_at: null });
  const otlpSettings = {
    identifier_attribute: 'app.user',
    default_environment: 'staging',
    unsupported_methods: 'nearest',
  };
  await drive().call(t, 'PUT /v1/projects/:id/otlp', otlp, { token: drive().admin, body: otlpSettings }, 200);
  await drive().call(
    t,
    'PUT /v1/projects/:id/otlp',
    otlp,
    { token: drive().admin, body: { ...otlpSettings, unsupported_methods: 'map' } },
    400,
  );
  const retention = `/v1/projects/${ids.project}/retention`;
  await drive().call(t, 'GET /v1/projects/:id/retention', retention, { token: drive().admin }, 200);
  await drive().call(
    t,
    'PUT /v1/projects/:id/retention',
    retention,
    { token: drive().admin, body: { retention_days: 400 } },
    200,
  );
  await drive().call(
    t,
    'PUT /v1/projects/:id/retention',
    retention,
    { token: drive().admin, body: { retention_days: 0 } },
    400,
  );
  const erasures = `/v1/projects/${ids.project}/erasures`;
  const asked = await drive().call(
    t,
    'POST /v1/projects/:id/erasures',
    erasures,
    { token: drive().admin, body: { identifier: 'nobody-here' } },
    202,
  );
  await drive().call(
    t,
    'GET /v1/projects/:id/erasures/:erasureId',
    `${erasures}/${asked.body.id as string}`,
    { token: drive().admin },
    200,
  );
  await drive().call(
    t,
    'GET /v1/projects/:id/erasures/:erasureId',
    `${erasures}/${randomUUID()}`,
    { token: drive().admin },
    404,
  );
  await drive().call(t, 'GET /v1/projects/:id/erasures', `${erasures}?limit=5`, { token: drive().admin }, 200);
  await drive().call(t, 'GET /v1/projects/:id/erasures', `${erasures}?limit=500`, { token: drive().admin }, 400);
  await drive().call(
    t,
    'POST /v1/projects/:id/erasures',
    `/v1/projects/${ids.project}/erasures`,
    { token: drive().admin, body: { identifier: '' } },
    400,
  );
});

everyOperationDriven('answers.test.ts', drive);
