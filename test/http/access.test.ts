import test from 'ava';
import jwt from 'jsonwebtoken';
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
let admin: string;

test.before(async () => {
  server = await startTestServer();
  admin = await login(server.url);
});
test.after.always(() => server.stop());

test('login returns a token with the documented claims; wrong credentials are 401', async (t) => {
  const res = await api(server.url, 'POST', '/v1/auth/login', {
    body: { email: 'ADMIN@example.com', password: 'correct horse battery' },
  });
  t.is(res.status, 200);
  t.true(Date.parse(res.body.expires_at) > Date.now());
  const claims = jwt.decode(res.body.token) as Record<string, unknown>;
  t.is(claims.role, 'admin');
  t.is(claims.projects, '*');
  t.is(typeof claims.sub, 'string');
  t.is(typeof claims.exp, 'number');
  t.is((jwt.decode(res.body.token, { complete: true }) as { header: { alg: string } }).header.alg, 'HS256');
  const wrong = await api(server.url, 'POST', '/v1/auth/login', {
    body: { email: 'admin@example.com', password: 'nope' },
  });
  t.is(wrong.status, 401);
  t.is(wrong.body.error.code, 'unauthorized');
  t.is(
    (await api(server.url, 'POST', '/v1/auth/login', { body: { email: 'ghost@example.com', password: 'nope' } }))
      .status,
    401,
  );
  const bad = await api(server.url, 'POST', '/v1/auth/login', { body: { email: 1 } });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['email', 'password']);
});

test('JWT routes: missing, forged and expired tokens get 401 with the error shape', async (t) => {
  const missing = await api(server.url, 'GET', '/v1/projects');
  t.is(missing.status, 401);
  t.is(missing.body.error.code, 'unauthorized');
  const forged = jwt.sign({ sub: 'x', role: 'admin', projects: '*' }, 'not-the-secret-not-the-secret-not-the', {
    expiresIn: 60,
  });
  t.is((await api(server.url, 'GET', '/v1/projects', { token: forged })).status, 401);
  const expired = jwt.sign(
    { sub: 'x', role: 'admin', projects: '*', exp: Math.floor(Date.now() / 1000) - 10 },
    server.runtime.jwtSecret,
  );
  const late = await api(server.url, 'GET', '/v1/projects', { token: expired });
  t.is(late.status, 401);
  t.is(late.body.error.message, 'token expired: log in again');
  const noneAlg = jwt.sign({ sub: 'x', role: 'admin', projects: '*', exp: Math.floor(Date.now() / 1000) + 60 }, '', {
    algorithm: 'none',
  });
  t.is((await api(server.url, 'GET', '/v1/projects', { token: noneAlg })).status, 401);
  const badClaims = jwt.sign({ sub: 'x', role: 'root', projects: '*' }, server.runtime.jwtSecret, { expiresIn: 60 });
  t.is((await api(server.url, 'GET', '/v1/projects', { token: badClaims })).status, 401);
});

test('projects and API keys: key shown once, only its hash in the log', async (t) => {
  const created = await api(server.url, 'POST', '/v1/projects', { token: admin, body: { name: 'billing' } });
  t.is(created.status, 201);
  t.deepEqual(Object.keys(created.body).sort(), ['created_at', 'id', 'name']);
  const key = await api(server.url, 'POST', `/v1/projects/${created.body.id}/api-keys`, {
    token: admin,
    body: { name: 'ci' },
  });
  t.is(key.status, 201);
  t.deepEqual(Object.keys(key.body).sort(), [
    'allowed_origins',
    'created_at',
    'expires_at',
    'id',
    'key',
    'name',
    'prefix',
    'rate_limit',
    'scopes',
  ]);
  t.true(key.body.key.startsWith(key.body.prefix));
  const listed = await api(server.url, 'GET', `/v1/projects/${created.body.id}/api-keys`, { token: admin });
  t.is(listed.status, 200);
  t.is(listed.body.length, 1);
  t.false('key' in listed.body[0]);
  t.false('key_hash' in listed.body[0]);
  t.is(listed.body[0].revoked_at, null);
  const log = JSON.stringify(await server.runtime.log.readAll(null, 10_000));
  t.false(log.includes(key.body.key));
  t.true(
    (await api(server.url, 'GET', '/v1/projects', { token: admin })).body.some(
      (p: { id: string }) => p.id === created.body.id,
    ),
  );
  t.is((await api(server.url, 'POST', '/v1/projects', { token: admin, body: { name: '' } })).status, 400);
  t.is(
    (
      await api(server.url, 'POST', `/v1/projects/${crypto.randomUUID()}/api-keys`, {
        token: admin,
        body: { name: 'x' },
      })
    ).status,
    404,
  );
  t.is(
    (
      await api(server.url, 'DELETE', `/v1/projects/${created.body.id}/api-keys/${crypto.randomUUID()}`, {
        token: admin,
      })
    ).status,
    404,
  );
});

test('users: admin creates, duplicates conflict, hashes never listed', async (t) => {
  const { projectId } = await projectWithKey(server.url, admin, 'users-test');
  const body = { email: 'member1@example.com', password: 'member-password', role: 'member', project_ids: [projectId] };
  const created = await api(server.url, 'POST', '/v1/users', { token: admin, body });
  t.is(created.status, 201);
  t.deepEqual(created.body.project_ids, [projectId]);
  t.is(
    (await api(server.url, 'POST', '/v1/users', { token: admin, body: { ...body, email: 'Member1@Example.com' } }))
      .status,
    409,
  );
  const unknownProject = await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { ...body, email: 'm2@example.com', project_ids: [crypto.randomUUID()] },
  });
  t.is(unknownProject.status, 400);
  t.is(unknownProject.body.error.details[0].path, 'project_ids.0');
  const invalid = await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'nope', password: 'short', role: 'king', project_ids: ['x'] },
  });
  t.is(invalid.status, 400);
  t.deepEqual(invalid.body.error.details.map((d: { path: string }) => d.path).sort(), [
    'email',
    'password',
    'project_ids.0',
    'role',
  ]);
  const users = await api(server.url, 'GET', '/v1/users', { token: admin });
  t.true(users.body.some((u: { email: string }) => u.email === 'member1@example.com'));
  t.false(JSON.stringify(users.body).includes('scrypt'));
});

test('members see only their projects; others are 404 and lists are limited', async (t) => {
  const mine = await projectWithKey(server.url, admin, 'mine');
  const theirs = await projectWithKey(server.url, admin, 'theirs');
  await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'scoped@example.com', password: 'scoped-password', role: 'member', project_ids: [mine.projectId] },
  });
  const member = await login(server.url, 'scoped@example.com', 'scoped-password');
  const mineEvent = await api(server.url, 'POST', '/v1/audit', {
    apiKey: mine.apiKey,
    body: sampleEvent({ identifier: 'scoped-mine' }),
  });
  const theirEvent = await api(server.url, 'POST', '/v1/audit', {
    apiKey: theirs.apiKey,
    body: sampleEvent({ identifier: 'scoped-theirs' }),
  });
  await eventually(async () => {
    const r = await api(server.url, 'GET', `/v1/audit/${theirEvent.body.id}`, { token: admin });
    return r.status === 200 ? true : undefined;
  });

  const projects = await api(server.url, 'GET', '/v1/projects', { token: member });
  t.deepEqual(
    projects.body.map((p: { id: string }) => p.id),
    [mine.projectId],
  );
  t.is((await api(server.url, 'GET', `/v1/projects/${theirs.projectId}`, { token: member })).status, 404);
  t.is((await api(server.url, 'GET', `/v1/projects/${theirs.projectId}/api-keys`, { token: member })).status, 404);
  t.is(
    (await api(server.url, 'POST', `/v1/projects/${theirs.projectId}/api-keys`, { token: member, body: { name: 'x' } }))
      .status,
    404,
  );
  t.is((await api(server.url, 'GET', `/v1/audit/${theirEvent.body.id}`, { token: member })).status, 404);
  t.is((await api(server.url, 'GET', `/v1/audit/${mineEvent.body.id}`, { token: member })).status, 200);
  const all = await api(server.url, 'GET', '/v1/audit?limit=100', { token: member });
  t.true(all.body.data.length > 0);
  t.true(all.body.data.every((e: { project_id: string }) => e.project_id === mine.projectId));
  const foreign = await api(server.url, 'GET', `/v1/audit?project_id=${theirs.projectId}`, { token: member });
  t.is(foreign.status, 404);
  t.deepEqual(foreign.body, (await api(server.url, 'GET', `/v1/projects/${theirs.projectId}`, { token: member })).body);

  t.is((await api(server.url, 'POST', '/v1/projects', { token: member, body: { name: 'nope' } })).status, 403);
  t.is((await api(server.url, 'POST', '/v1/users', { token: member, body: {} })).status, 403);
  t.is((await api(server.url, 'GET', '/v1/users', { token: member })).status, 403);
  t.is(
    (await api(server.url, 'POST', `/v1/projects/${mine.projectId}/api-keys`, { token: member, body: { name: 'own' } }))
      .status,
    201,
  );
});

test('auditors read but do not write', async (t) => {
  const { projectId } = await projectWithKey(server.url, admin, 'audited');
  await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'auditor@example.com', password: 'auditor-password', role: 'auditor', project_ids: [projectId] },
  });
  const auditor = await login(server.url, 'auditor@example.com', 'auditor-password');
  t.is((await api(server.url, 'GET', `/v1/projects/${projectId}/api-keys`, { token: auditor })).status, 200);
  const denied = await api(server.url, 'POST', `/v1/projects/${projectId}/api-keys`, {
    token: auditor,
    body: { name: 'x' },
  });
  t.is(denied.status, 403);
  t.is(denied.body.error.code, 'forbidden');
});

test('unknown routes and methods use the error shape', async (t) => {
  const missing = await api(server.url, 'GET', '/v1/nothing-here');
  t.is(missing.status, 404);
  t.is(missing.body.error.code, 'not_found');
  const method = await api(server.url, 'PATCH', '/v1/projects', { token: admin });
  t.is(method.status, 405);
  t.is(method.body.error.code, 'method_not_allowed');
  t.is(method.headers.get('allow'), 'GET, HEAD, POST, OPTIONS');
  t.deepEqual((await api(server.url, 'GET', '/healthz')).body, { status: 'ok' });
});
