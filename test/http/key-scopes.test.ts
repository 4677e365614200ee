import { randomUUID } from 'node:crypto';
import test from 'ava';
import { hashApiKey } from '../../src/commands/projects.ts';
import { projectStream } from '../../src/domain/streams.ts';
import { api, caughtUp, login, sampleEvent, startTestServer, type TestServer } from '../helpers/server.ts';

/** Scoped API keys (docs/security.md#api-keys-and-their-scopes): each scope opens its endpoints
 *  and no others, a key reads its own project only, expires, and shows when it was last used. */

let server: TestServer;
let admin: string;
let clock = Date.parse('2026-11-02T10:00:00.000Z');
const tick = (ms: number) => {
  clock += ms;
};
let shop: string;
let other: string;
const keys: Record<string, { key: string; id: string }> = {};
let shopEventId: string;
let otherEventId: string;

const issue = async (projectId: string, body: Record<string, unknown>) => {
  const res = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, { token: admin, body });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { key: string; id: string; scopes: string[]; expires_at: string | null };
};
const listKeys = async (projectId: string) =>
  (await api(server.url, 'GET', `/v1/projects/${projectId}/api-keys`, { token: admin })).body as Array<{
    id: string;
    scopes: string[];
    last_used_at: string | null;
  }>;

test.before(async () => {
  server = await startTestServer({ now: () => new Date(clock) });
  admin = await login(server.url);
  shop = (await api(server.url, 'POST', '/v1/projects', { token: admin, body: { name: 'shop' } })).body.id;
  other = (await api(server.url, 'POST', '/v1/projects', { token: admin, body: { name: 'other' } })).body.id;
  keys.ingest = await issue(shop, { name: 'backend' });
  keys.otherIngest = await issue(other, { name: 'other backend' });
  keys.read = await issue(shop, { name: 'reporting', scopes: ['read'] });
  keys.stream = await issue(shop, { name: 'auditor', scopes: ['stream'] });
  keys.viewer = await issue(shop, { name: 'viewer tokens', scopes: ['viewer:issue'] });
  const sent = (apiKey: string, extra: Record<string, unknown>) =>
    api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ session_id: 'sess-1', ...extra }) });
  shopEventId = (await sent(keys.ingest!.key, { identifier: 'shop-user' })).body.id;
  otherEventId = (await sent(keys.otherIngest!.key, { identifier: 'other-user' })).body.id;
  await caughtUp(server, ['auditEvents', 'derivedSessions', 'stats', 'tree']);
});
test.after.always(() => server.stop());

const READS = () => [
  `/v1/audit?project_id=${shop}`,
  '/v1/audit',
  `/v1/audit/${shopEventId}`,
  `/v1/audit/export?project_id=${shop}`,
  `/v1/audit/stats?project_id=${shop}`,
  `/v1/audit/sessions?project_id=${shop}`,
  '/v1/audit/sessions/sess-1',
];
const STREAMS = () => [`/v1/stream?project_id=${shop}`, '/v1/checkpoints/key'];
const get = (url: string, apiKey: string) => api(server.url, 'GET', url, { apiKey });

test.serial('keys answer with their scopes; without any, a key gets ingest only', async (t) => {
  const created = await issue(shop, { name: 'plain' });
  t.deepEqual(created.scopes, ['ingest']);
  t.is(created.expires_at, null);
  const listed = (await listKeys(shop)).find((k) => k.id === keys.read!.id);
  t.like(listed, { scopes: ['read'], last_used_at: null });
  const both = await issue(shop, { name: 'both', scopes: ['stream', 'read', 'read'] });
  t.deepEqual(both.scopes, ['read', 'stream'], 'in one order, without repeats');
});

test.serial('a read key reads its project: list, detail, export, stats and sessions', async (t) => {
  for (const url of READS()) {
    const res = await get(url, keys.read!.key);
    t.is(res.status, 200, `${url}: ${JSON.stringify(res.body)}`);
  }
  const list = await get('/v1/audit', keys.read!.key);
  t.deepEqual(
    list.body.data.map((e: { id: string }) => e.id),
    [shopEventId],
    'its own project only',
  );
  const session = await get('/v1/audit/sessions/sess-1', keys.read!.key);
  t.deepEqual(
    session.body.events.map((e: { id: string }) => e.id),
    [shopEventId],
  );
  const csv = await get(`/v1/audit/export?project_id=${shop}`, keys.read!.key);
  t.true(String(csv.body).includes(shopEventId));
  t.false(String(csv.body).includes(otherEventId));
});

test.serial("a read key never reads another project's data", async (t) => {
  const asked = await get(`/v1/audit?project_id=${other}`, keys.read!.key);
  t.is(asked.status, 404, 'as for a user who cannot see it');
  t.is((await get(`/v1/audit/${otherEventId}`, keys.read!.key)).status, 404);
  t.is((await get(`/v1/audit/export?project_id=${other}`, keys.read!.key)).status, 404);
  t.is((await get(`/v1/audit/stats?project_id=${other}`, keys.read!.key)).status, 404);
  const stats = await get('/v1/audit/stats', keys.read!.key);
  t.is(stats.body.total, 1, 'stats of its own project');
  const sessions = await get('/v1/audit/sessions', keys.read!.key);
  t.deepEqual(
    sessions.body.map((s: { identifier: string }) => s.identifier),
    ['shop-user'],
  );
});

test.serial('each scope opens its endpoints only; elsewhere 403 names the scope it lacks', async (t) => {
  const refused = async (res: Awaited<ReturnType<typeof get>>, scope: string | undefined, what: string) => {
    t.is(res.status, 403, `${what}: ${JSON.stringify(res.body)}`);
    t.is(res.body.error.code, 'forbidden', what);
    t.deepEqual(res.body.error.details, [], what);
    t.is(res.body.error.required_scope, scope, what);
  };
  for (const url of READS()) {
    await refused(await get(url, keys.ingest!.key), 'read', `ingest key, ${url}`);
    await refused(await get(url, keys.stream!.key), 'read', `stream key, ${url}`);
    await refused(await get(url, keys.viewer!.key), 'read', `viewer:issue key, ${url}`);
  }
  for (const url of STREAMS()) {
    const res = await get(url, keys.stream!.key);
    t.is(res.status, 200, `stream key, ${url}: ${JSON.stringify(res.body)}`);
    await refused(await get(url, keys.read!.key), 'stream', `read key, ${url}`);
    await refused(await get(url, keys.ingest!.key), 'stream', `ingest key, ${url}`);
  }
  t.is((await get(`/v1/checkpoints/latest?project_id=${shop}`, keys.stream!.key)).status, 404, 'none signed yet');
  for (const name of ['read', 'stream', 'viewer'] as const) {
    const sent = await api(server.url, 'POST', '/v1/audit', { apiKey: keys[name]!.key, body: sampleEvent() });
    await refused(sent, 'ingest', `${name} key, POST /v1/audit`);
    const batch = await api(server.url, 'POST', '/v1/audit/batch', { apiKey: keys[name]!.key, body: [sampleEvent()] });
    await refused(batch, 'ingest', `${name} key, POST /v1/audit/batch`);
  }
  for (const url of [`/v1/projects/${shop}/api-keys`, '/v1/audit/anomalies', '/v1/users']) {
    await refused(await get(url, keys.read!.key), undefined, `read key, ${url}`);
    t.regex((await get(url, keys.read!.key)).body.error.message, /does not take API keys/);
  }
  // Configuration is the config scope's (test/e2e/config-file-key.test.ts).
  for (const url of ['/v1/projects', '/v1/monitors', '/v1/channels', `/v1/projects/${shop}/masking`])
    await refused(await get(url, keys.read!.key), 'config', `read key, ${url}`);
  const created = await api(server.url, 'POST', `/v1/projects/${shop}/api-keys`, {
    apiKey: keys.read!.key,
    body: { name: 'escalated', scopes: ['read'] },
  });
  await refused(created, undefined, 'a key cannot issue keys');
});

test.serial('a signed-in user is unaffected by an X-API-Key beside the token; no credential is 401', async (t) => {
  const res = await api(server.url, 'GET', `/v1/audit?project_id=${other}`, { token: admin, apiKey: keys.read!.key });
  t.is(res.status, 200);
  t.is((await api(server.url, 'GET', '/v1/audit')).status, 401);
  t.is((await get('/v1/audit', 'wl_unknown')).status, 401);
});

test.serial('an expired key is refused like an unknown one, saying so; a new expiry brings it back', async (t) => {
  const soon = new Date(clock + 60_000).toISOString();
  const key = await issue(shop, { name: 'short-lived', scopes: ['ingest', 'read'], expires_at: soon });
  t.is(key.expires_at, soon);
  t.is((await get('/v1/audit', key.key)).status, 200);
  tick(61_000);
  const late = await get('/v1/audit', key.key);
  t.is(late.status, 401);
  t.is(late.body.error.code, 'unauthorized');
  t.regex(late.body.error.message, /expired/);
  const ingest = await api(server.url, 'POST', '/v1/audit', { apiKey: key.key, body: sampleEvent() });
  t.is(ingest.status, 401);
  t.regex(ingest.body.error.message, /expired/);
  const later = new Date(clock + 3_600_000).toISOString();
  const renewed = await api(server.url, 'PUT', `/v1/projects/${shop}/api-keys/${key.id}`, {
    token: admin,
    body: { expires_at: later },
  });
  t.is(renewed.status, 200);
  t.is(renewed.body.expires_at, later);
  t.is((await get('/v1/audit', key.key)).status, 200);
});

test.serial('scopes change in place: an ingest key given read reads at once', async (t) => {
  const key = await issue(shop, { name: 'growing' });
  t.is((await get('/v1/audit', key.key)).status, 403);
  const changed = await api(server.url, 'PUT', `/v1/projects/${shop}/api-keys/${key.id}`, {
    token: admin,
    body: { scopes: ['ingest', 'read'] },
  });
  t.is(changed.status, 200);
  t.deepEqual(changed.body.scopes, ['ingest', 'read']);
  t.is((await get('/v1/audit', key.key)).status, 200);
});

test.serial('last_used_at moves with use, at most once a minute per key', async (t) => {
  const key = await issue(shop, { name: 'tracked', scopes: ['ingest', 'read'] });
  const lastUsed = async () => {
    await caughtUp(server, ['access']);
    return (await listKeys(shop)).find((k) => k.id === key.id)?.last_used_at;
  };
  const waitFor = async (expected: string) => {
    for (let i = 0; i < 100 && (await lastUsed()) !== expected; i++) await new Promise((r) => setTimeout(r, 20));
    return lastUsed();
  };
  t.is(await lastUsed(), null);
  const first = new Date(clock).toISOString();
  t.is((await get('/v1/audit', key.key)).status, 200);
  t.is(await waitFor(first), first);
  tick(30_000);
  await api(server.url, 'POST', '/v1/audit', { apiKey: key.key, body: sampleEvent() });
  await new Promise((r) => setTimeout(r, 100));
  t.is(await lastUsed(), first, 'within the minute: not recorded again');
  tick(31_000);
  const second = new Date(clock).toISOString();
  t.is((await api(server.url, 'POST', '/v1/audit', { apiKey: key.key, body: sampleEvent() })).status, 202);
  t.is(await waitFor(second), second);
  const uses = await server.runtime.log.readStream(`apikey-${key.id}-uses`);
  t.is(uses.length, 1, "the log keeps a key's last use only");
});

test.serial('a key issued before scopes (no scopes in its event) still ingests, and only ingests', async (t) => {
  const key = `wl_${randomUUID().replaceAll('-', '')}`;
  const keyId = randomUUID();
  const at = new Date(clock).toISOString();
  await server.runtime.log.append(
    projectStream(shop),
    [
      {
        id: randomUUID(),
        type: 'ApiKeyIssued',
        data: {
          project_id: shop,
          key_id: keyId,
          name: 'legacy',
          prefix: key.slice(0, 11),
          key_hash: hashApiKey(key),
          issued_at: at,
        },
        metadata: { recorded_at: at, actor: 'test', correlation_id: 'legacy', schema_version: 1 },
      },
    ],
    'any',
  );
  await caughtUp(server, ['access']);
  t.like(
    (await listKeys(shop)).find((k) => k.id === keyId),
    { scopes: ['ingest'] },
  );
  t.is((await api(server.url, 'POST', '/v1/audit', { apiKey: key, body: sampleEvent() })).status, 202);
  const read = await get('/v1/audit', key);
  t.is(read.status, 403);
  t.is(read.body.error.required_scope, 'read');
});

test.serial('bad scopes and expiries are 400 naming the field', async (t) => {
  const bad = async (body: Record<string, unknown>, path: string) => {
    const res = await api(server.url, 'POST', `/v1/projects/${shop}/api-keys`, { token: admin, body });
    t.is(res.status, 400, JSON.stringify(body));
    t.true(
      res.body.error.details.some((d: { path: string }) => d.path === path),
      `${JSON.stringify(body)}: ${JSON.stringify(res.body.error.details)}`,
    );
    const put = await api(server.url, 'PUT', `/v1/projects/${shop}/api-keys/${keys.read!.id}`, {
      token: admin,
      body: Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'name')),
    });
    t.is(put.status, 400, `PUT ${JSON.stringify(body)}`);
  };
  await bad({ name: 'k', scopes: [] }, 'scopes');
  await bad({ name: 'k', scopes: 'read' }, 'scopes');
  await bad({ name: 'k', scopes: ['read', 'admin'] }, 'scopes.1');
  await bad({ name: 'k', expires_at: 'tomorrow' }, 'expires_at');
  await bad({ name: 'k', expires_at: new Date(clock - 1000).toISOString() }, 'expires_at');
});
