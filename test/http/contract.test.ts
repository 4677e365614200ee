import test from 'ava';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { api, capturingLogger, sampleEvent, type TestServer } from '../helpers/server.ts';
import type { Target } from '../helpers/target.ts';
import { repoPath } from '../helpers/root.ts';
import { type ContractScenario, EVENTS, METRICS_TOKEN, startContractScenario } from '../helpers/contract.ts';

/** The HTTP contract across routes: methods and HEAD, error messages, unknown parameters and
 *  project filters. What some answers hold (paging, monitor timeouts, check error texts,
 *  statistics bounds) is in contract-answers.test.ts; the scenario is test/helpers/contract.ts. */

const { logger, lines } = capturingLogger();
let server: TestServer;
let target: Target;
let admin: string;
let member: string;
let a: ContractScenario['a'];
let b: ContractScenario['b'];
let ids: ContractScenario['ids'];

test.before(async () => {
  ({ server, target, admin, member, a, b, ids } = await startContractScenario(logger));
});
test.after.always(async () => {
  await server.stop();
  await target.close();
});

/** node:http, since fetch refuses methods such as TRACE. */
const raw = (method: string, path: string, token = admin) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(
      `${server.url}${path}`,
      { method, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });

const errorLines = () => lines.filter((l) => l.level >= 50);

test(
  'item 5: any method on a served path is 405 with Allow, on another path 404; ' +
    'HEAD answers every GET route like GET, without a body or an error',
  async (t) => {
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'LOCK', 'PURGE', 'SEARCH', 'PATCH']) {
      const known = await raw(method, '/v1/audit');
      t.is(known.status, 405, `${method} /v1/audit`);
      t.is(known.headers.allow, 'GET, HEAD, POST, OPTIONS', method);
      t.is(JSON.parse(known.body).error.code, 'method_not_allowed');
      const unknown = await raw(method, '/anything');
      t.is(unknown.status, 404, `${method} /anything`);
      t.is(JSON.parse(unknown.body).error.code, 'not_found');
    }
    const options = await raw('OPTIONS', `/v1/monitors/${ids.monitor}`);
    t.is(options.status, 204);
    t.is(options.headers.allow, 'GET, HEAD, PUT, DELETE, OPTIONS');

    // Every GET route of the endpoint table (docs/endpoints.md), with real ids.
    const table = readFileSync(repoPath('docs/endpoints.md'), 'utf8');
    const documented = [...table.matchAll(/^\| GET \| `([^`]+)` \|/gm)].map((m) => m[1]!);
    t.true(documented.length >= 20);
    const me = JSON.parse((await raw('GET', '/v1/auth/me', admin)).body) as { id: string };
    const resources: Record<string, string> = {
      users: me.id,
      audit: ids.event,
      projects: a.projectId,
      monitors: ids.monitor,
      channels: ids.channel,
    };
    // Routes whose answer needs what this scenario does not make (a signed checkpoint, a delivery):
    // their HEAD must still agree with their GET; test/http/openapi/answers.test.ts reaches their 200.
    const elsewhere = new Set([
      '/v1/checkpoints/latest',
      '/v1/proofs/inclusion',
      '/v1/proofs/consistency',
      '/v1/deliveries/:id',
      // Redirects of a single sign-on (test/web/sso.test.ts).
      '/v1/auth/oidc/:provider/start',
      '/v1/auth/oidc/:provider/callback',
    ]);
    const required: Record<string, string> = {
      '/v1/stream': `?project_id=${a.projectId}`,
      '/v1/deliveries': '?event_id=00000000-0000-4000-8000-000000000000',
      '/v1/checkpoints/latest': `?project_id=${a.projectId}`,
      '/v1/proofs/inclusion': `?project_id=${a.projectId}&index=0&size=1`,
      '/v1/proofs/consistency': `?project_id=${a.projectId}&from=1&to=1`,
    };
    const paths = documented.map((p) => ({
      path:
        p
          .replace(
            /^\/v1\/(\w+)\/:id/,
            (_, r: string) => `/v1/${r}/${resources[r] ?? '00000000-0000-4000-8000-000000000000'}`,
          )
          .replace(':session_id', 'sess-1') + (required[p] ?? ''),
      expected: elsewhere.has(p) ? null : 200,
    }));
    paths.push(
      { path: '/v1/audit/export?format=json', expected: 200 },
      { path: `/v1/audit/stats?project_id=${a.projectId}`, expected: 200 },
    );
    for (const { path, expected } of paths) {
      // /metrics takes the metrics token, not a login's.
      const token = path === '/metrics' ? METRICS_TOKEN : admin;
      const get = await raw('GET', path, token);
      if (expected === null) t.true(get.status < 500, `GET ${path}: ${get.status}`);
      else t.is(get.status, expected, `GET ${path}`);
      const head = await raw('HEAD', path, token);
      t.is(head.status, get.status, `HEAD ${path}`);
      t.is(head.body, '', `HEAD ${path} has no body`);
      t.is(head.headers['content-type'], get.headers['content-type'], `HEAD ${path}`);
    }
    const exportHead = await raw('HEAD', `/v1/audit/export?project_id=${a.projectId}`);
    t.is(exportHead.headers['x-export-total'], String(EVENTS));
    t.regex(exportHead.headers['content-disposition'] ?? '', /^attachment; filename="watchlog-audit-.*\.csv"$/);
    // Requests are logged before the answer is read to its end; give the last one a moment.
    await new Promise((r) => setTimeout(r, 50));
    t.deepEqual(errorLines(), []);
    t.deepEqual(
      lines.filter((l) => /export/.test(l.msg ?? '')),
      [],
      'HEAD reads no events, so no export can stop half-way',
    );
  },
);

test(
  'item 11: every 400 names the field and its rule in words; ' + 'a missing and a malformed token say different things',
  async (t) => {
    const notObject = await api(server.url, 'POST', '/v1/audit', {
      apiKey: a.apiKey,
      body: '[]',
      headers: { 'content-type': 'application/json' },
    });
    t.is(notObject.status, 400);
    t.deepEqual(notObject.body.error.details, [{ path: 'body', message: 'must be a JSON object' }]);
    t.is(notObject.body.error.message, 'invalid audit event: body must be a JSON object');
    const channel = await api(server.url, 'POST', '/v1/channels', {
      token: admin,
      body: { project_id: a.projectId, type: 'sms' },
    });
    t.is(channel.status, 400);
    t.deepEqual(channel.body.error.details, [
      { path: 'type', message: 'must be one of webhook, webpush, slack, discord, teams, email, pagerduty, ntfy' },
    ]);
    t.is(
      channel.body.error.message,
      'invalid channel: type must be one of webhook, webpush, slack, discord, teams, email, pagerduty, ntfy',
    );
    const webhook = await api(server.url, 'POST', '/v1/channels', {
      token: admin,
      body: { project_id: a.projectId, type: 'webhook', secret: 'short', events: ['x'] },
    });
    t.deepEqual(webhook.body.error.details, [
      { path: 'url', message: 'is required' },
      { path: 'secret', message: 'must be a string of 8 to 256 characters' },
      { path: 'events.0', message: 'must be one of healthcheck, alert' },
    ]);
    const monitor = await api(server.url, 'POST', '/v1/monitors', {
      token: admin,
      body: { project_id: 'x', name: '', url: 'ftp://x', interval_seconds: 5, enabled: 'yes' },
    });
    t.deepEqual(
      Object.fromEntries(monitor.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message])),
      {
        project_id: 'must be a UUID',
        name: 'must be a string of 1 to 255 characters',
        url: 'must be an http, https or tcp URL of at most 2048 characters',
        interval_seconds: 'must be an integer from 10 to 86400',
        enabled: 'must be true or false',
      },
    );
    const ingest = await api(server.url, 'POST', '/v1/audit', {
      apiKey: a.apiKey,
      body: { method: 'PATCH', status_code: 99, user_roles: [1] },
    });
    t.like(
      Object.fromEntries(ingest.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message])),
      {
        path: 'is required',
        method: 'must be one of GET, POST, PUT, DELETE',
        status_code: 'must be an integer from 100 to 599',
        'user_roles.0': 'must be a string',
      },
    );
    const query = await api(server.url, 'GET', '/v1/audit?limit=500&sort_order=up&start_date=soon', { token: admin });
    t.deepEqual(
      Object.fromEntries(query.body.error.details.map((d: { path: string; message: string }) => [d.path, d.message])),
      {
        limit: 'must be an integer from 1 to 100',
        sort_order: 'must be one of asc, desc',
        start_date: 'must be an ISO 8601 date or date-time',
      },
    );
    const settings = await api(server.url, 'PUT', `/v1/projects/${a.projectId}/anomaly-settings`, {
      token: admin,
      body: { brute_force: { threshold: 0 } },
    });
    t.deepEqual(settings.body.error.details, [
      { path: 'brute_force.threshold', message: 'must be an integer from 1 to 1000000 or null' },
    ]);
    for (const res of [notObject, channel, webhook, monitor, ingest, query, settings]) {
      t.notRegex(JSON.stringify(res.body), /Input|Patch|expected [A-Z]|\(root\)| \| /, 'no codec names');
    }

    const missing = await api(server.url, 'GET', '/v1/projects');
    const malformed = await api(server.url, 'GET', '/v1/projects', { token: 'not.a.jwt' });
    const notBearer = await api(server.url, 'GET', '/v1/projects', { headers: { authorization: `Token ${admin}` } });
    t.deepEqual([missing.status, malformed.status, notBearer.status], [401, 401, 401]);
    t.is(missing.body.error.message, 'missing token: send the header "Authorization: Bearer <token>"');
    t.is(malformed.body.error.message, 'invalid token: malformed, or not signed by this service');
    t.is(notBearer.body.error.message, 'malformed Authorization header: expected "Bearer <token>"');
    t.is(missing.headers.get('www-authenticate'), 'Bearer realm="watchlog"');
    t.regex(malformed.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  },
);

/** The lists that take a `project_id` filter. */
const PROJECT_LISTS = [
  '/v1/audit',
  '/v1/audit/stats',
  '/v1/audit/export',
  '/v1/audit/sessions',
  '/v1/audit/anomalies',
  '/v1/audit/orphans',
  '/v1/monitors',
  '/v1/channels',
];

test(
  'item 12: unknown query parameters and management body fields are 400 naming them; ' +
    'ingest still ignores unknown fields',
  async (t) => {
    for (const path of PROJECT_LISTS) {
      const res = await api(server.url, 'GET', `${path}?projectid=${b.projectId}`, { token: admin });
      t.is(res.status, 400, path);
      t.deepEqual(
        res.body.error.details,
        [{ path: 'projectid', message: 'is not a known parameter (did you mean project_id?)' }],
        path,
      );
    }
    const detail = await api(server.url, 'GET', `/v1/monitors/${ids.monitor}?verbose=1`, { token: admin });
    t.deepEqual(detail.body.error.details, [{ path: 'verbose', message: 'is not a known parameter' }]);
    const monitor = await api(server.url, 'POST', '/v1/monitors', {
      token: admin,
      body: { project_id: b.projectId, name: 'm', url: target.url, interval: 30 },
    });
    t.is(monitor.status, 400);
    t.deepEqual(monitor.body.error.details, [
      { path: 'interval', message: 'is not a known field (did you mean interval_seconds?)' },
    ]);
    const put = await api(server.url, 'PUT', `/v1/channels/${ids.channel}`, {
      token: admin,
      body: { active: true, url: 'http://example.com/' },
    });
    t.deepEqual(put.body.error.details, [{ path: 'url', message: 'is not a known field' }]);
    const project = await api(server.url, 'POST', '/v1/projects', { token: admin, body: { name: 'x', owner: 'me' } });
    t.deepEqual(project.body.error.details, [{ path: 'owner', message: 'is not a known field' }]);
    const ingest = await api(server.url, 'POST', '/v1/audit', {
      apiKey: b.apiKey,
      body: sampleEvent({ sdk_feature_of_tomorrow: true }),
    });
    t.is(ingest.status, 202);
  },
);

test(
  'item 13: a project_id filter for a project the caller cannot see is 404 everywhere, ' + 'as GET /v1/projects/:id is',
  async (t) => {
    const byId = await api(server.url, 'GET', `/v1/projects/${b.projectId}`, { token: member });
    t.is(byId.status, 404);
    for (const path of PROJECT_LISTS) {
      const res = await api(server.url, 'GET', `${path}?project_id=${b.projectId}`, { token: member });
      t.is(res.status, 404, path);
      t.deepEqual(res.body, byId.body, path);
      t.is(
        (await api(server.url, 'GET', `${path}?project_id=${randomUUID()}`, { token: admin })).status,
        404,
        `${path}, no such project`,
      );
      t.is(
        (await api(server.url, 'GET', `${path}?project_id=${a.projectId}`, { token: member })).status,
        200,
        `${path}, own project`,
      );
    }
  },
);
