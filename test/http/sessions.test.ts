import test from 'ava';
import { request } from 'node:http';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { ADMIN, api, eventually, login, startTestServer, type TestServer } from '../helpers/server.ts';

/** Issue 35, sessions: the dashboard's cookie sessions, their rotation and reuse detection,
 *  lifetimes on the service clock, and the sessions a user sees and ends. */

const cookieOf = (res: { headers: Headers }): string | null => {
  const set = res.headers.get('set-cookie');
  const match = set ? /watchlog_refresh=([^;]*)/.exec(set) : null;
  return match ? match[1]! : null;
};

const dashboardLogin = async (server: TestServer, email = ADMIN.email, password = ADMIN.password) => {
  const res = await api(server.url, 'POST', '/v1/auth/login', {
    body: { email, password, cookie: true },
    headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' },
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${JSON.stringify(res.body)}`);
  return { token: res.body.token as string, session: res.body.session_id as string, cookie: cookieOf(res)!, res };
};

const refresh = (server: TestServer, cookie: string) =>
  api(server.url, 'POST', '/v1/auth/refresh', { headers: { cookie: `watchlog_refresh=${cookie}` } });

/** The built-in project's `system.access` rows of `action`, in full. */
const accessEvents = async (server: TestServer, token: string, action: string) => {
  const query = `project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access&limit=100`;
  const rows = (await api(server.url, 'GET', `/v1/audit?${query}`, { token })).body.data as { id: string }[];
  const full = await Promise.all(
    rows.map(async (r) => (await api(server.url, 'GET', `/v1/audit/${r.id}`, { token })).body),
  );
  return (full as { request_body?: { action?: string } }[]).filter((e) => e.request_body?.action === action);
};

test('a script login keeps SPEC answer: { token, expires_at }, no cookie, the configured lifetime', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_JWT_TTL_SECONDS: '7200' } });
  t.teardown(() => server.stop());
  await login(server.url);
  const res = await api(server.url, 'POST', '/v1/auth/login', { body: ADMIN });
  t.is(res.status, 200);
  t.deepEqual(Object.keys(res.body).sort(), ['expires_at', 'token']);
  t.is(res.headers.get('set-cookie'), null);
  const lifetime = Date.parse(res.body.expires_at) - Date.now();
  t.true(lifetime > 7100_000 && lifetime <= 7200_000, String(lifetime));
});

test('a cookie session: short token, HttpOnly SameSite=Strict cookie on the refresh path, rotated', async (t) => {
  const server = await startTestServer({ env: { WATCHLOG_ACCESS_TOKEN_TTL_SECONDS: '120' } });
  t.teardown(() => server.stop());
  await login(server.url);
  const first = await dashboardLogin(server);
  const set = first.res.headers.get('set-cookie')!;
  t.regex(set, /httponly/i);
  t.regex(set, /samesite=strict/i);
  t.regex(set, /path=\/v1\/auth\/refresh/i);
  t.notRegex(set, /secure/i, 'not over plain HTTP');
  const lifetime = Date.parse(first.res.body.expires_at) - Date.now();
  t.true(lifetime <= 120_000 && lifetime > 100_000, String(lifetime));

  const renewed = await refresh(server, first.cookie);
  t.is(renewed.status, 200);
  t.is(renewed.body.session_id, first.session);
  const second = cookieOf(renewed)!;
  t.not(second, first.cookie);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: renewed.body.token })).status, 200);
  t.is((await refresh(server, second)).status, 200, 'the new one works once');
  t.is((await refresh(server, 'not-a-token')).status, 401);
  // fetch sets Origin itself: a raw request sends another site's.
  const withOrigin = (origin: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/v1/auth/refresh`, {
        method: 'POST',
        headers: { cookie: `watchlog_refresh=${second}`, origin },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  t.is(await withOrigin('https://evil.example'), 403, 'another origin');
  // A proxy that ends TLS forwards plain HTTP to the same host: the origin is this service's.
  const behindTls = await withOrigin(`https://${new URL(server.url).host}`);
  t.is(behindTls, 401, 'judged by its cookie (used already), not refused for its origin');
});

test('reuse of a rotated refresh token ends the whole session and is recorded', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const s = await dashboardLogin(server);
  const renewed = await refresh(server, s.cookie);
  const current = cookieOf(renewed)!;
  // An attacker replays the rotated token: the family ends, the legitimate holder's too.
  const replay = await refresh(server, s.cookie);
  t.is(replay.status, 401);
  t.regex(replay.body.error.message, /used already/);
  t.is((await refresh(server, current)).status, 401, 'the current token is dead too');
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: renewed.body.token })).status, 401);
  const rows = await eventually(async () => {
    const found = await accessEvents(server, admin, 'session.refresh_reused');
    return found.length > 0 ? found : undefined;
  });
  t.like(rows[0], { request_body: { session_id: s.session, reason: 'refresh_reused' } });
});

test('idle and absolute lifetimes follow the service clock', async (t) => {
  let offset = 0;
  const server = await startTestServer({
    now: () => new Date(Date.now() + offset),
    env: { WATCHLOG_SESSION_IDLE_SECONDS: '3600', WATCHLOG_SESSION_MAX_SECONDS: '7200' },
  });
  t.teardown(() => server.stop());
  await login(server.url);
  const idle = await dashboardLogin(server);
  offset = 3601_000;
  t.is((await refresh(server, idle.cookie)).status, 401, 'idle for over an hour');

  offset = 0;
  let live = await dashboardLogin(server);
  let cookie = live.cookie;
  for (const step of [3000_000, 6000_000]) {
    offset = step;
    const renewed = await refresh(server, cookie);
    t.is(renewed.status, 200, `refreshed at +${step / 1000} s`);
    cookie = cookieOf(renewed)!;
  }
  offset = 7201_000;
  t.is((await refresh(server, cookie)).status, 401, 'past the absolute lifetime, used or not');
  live = await dashboardLogin(server);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: live.token })).status, 200);
});

test('sessions listed with device and current; end one, end the others; an admin ends all of a user', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const user = await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'ada@example.com', password: 'ada password', role: 'admin', project_ids: [] },
  });
  const a = await dashboardLogin(server, 'ada@example.com', 'ada password');
  const b = await dashboardLogin(server, 'ada@example.com', 'ada password');
  const script = await api(server.url, 'POST', '/v1/auth/login', {
    body: { email: 'ada@example.com', password: 'ada password' },
  });
  const listed = await api(server.url, 'GET', '/v1/auth/sessions', { token: a.token });
  t.is(listed.status, 200);
  t.is(listed.body.length, 3);
  t.like(
    listed.body.find((s: { id: string }) => s.id === a.session),
    { current: true, kind: 'cookie', method: 'password', device: 'Firefox on Linux', address: '127.0.0.1' },
  );
  t.is(listed.body.filter((s: { current: boolean }) => s.current).length, 1);

  t.is((await api(server.url, 'DELETE', `/v1/auth/sessions/${b.session}`, { token: a.token })).status, 204);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: b.token })).status, 401, 'ended: its token refused');
  t.is((await refresh(server, b.cookie)).status, 401);
  t.is((await api(server.url, 'DELETE', `/v1/auth/sessions/${b.session}`, { token: a.token })).status, 404);
  t.is(
    (await api(server.url, 'DELETE', `/v1/auth/sessions/${a.session}`, { token: admin })).status,
    404,
    "another user's",
  );

  const others = await api(server.url, 'DELETE', '/v1/auth/sessions', { token: a.token });
  t.deepEqual(others.body, { ended: 1 });
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: script.body.token })).status, 401);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: a.token })).status, 200);

  const byAdmin = await api(server.url, 'DELETE', `/v1/users/${user.body.id}/sessions`, { token: admin });
  t.deepEqual(byAdmin.body, { ended: 1 });
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: a.token })).status, 401);
  t.is((await api(server.url, 'GET', `/v1/users/${user.body.id}/sessions`, { token: admin })).body.length, 0);
  const ended = await eventually(async () => {
    const rows = await accessEvents(server, admin, 'session.ended');
    return rows.length >= 3 ? rows : undefined;
  });
  t.true(ended.some((r) => (r.request_body as { reason?: string }).reason === 'ended_by_admin'));
});

test('logout ends the session; a password change and disabling still end sessions and refresh', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const user = await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'bo@example.com', password: 'bo password', role: 'member', project_ids: [] },
  });
  const out = await dashboardLogin(server, 'bo@example.com', 'bo password');
  const logout = await api(server.url, 'POST', '/v1/auth/logout', { token: out.token });
  t.is(logout.status, 204);
  t.regex(logout.headers.get('set-cookie') ?? '', /watchlog_refresh=;/);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: out.token })).status, 401);
  t.is((await refresh(server, out.cookie)).status, 401);

  const before = await dashboardLogin(server, 'bo@example.com', 'bo password');
  const changed = await api(server.url, 'POST', `/v1/users/${user.body.id}/password`, {
    token: admin,
    body: { password: 'a new bo password' },
  });
  t.is(changed.status, 204);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: before.token })).status, 401);
  t.is((await refresh(server, before.cookie)).status, 401, 'the refresh too');
  t.is((await api(server.url, 'GET', `/v1/users/${user.body.id}/sessions`, { token: admin })).body.length, 0);

  const again = await dashboardLogin(server, 'bo@example.com', 'a new bo password');
  t.is((await api(server.url, 'DELETE', `/v1/users/${user.body.id}`, { token: admin })).status, 204);
  t.is((await refresh(server, again.cookie)).status, 401, 'disabled');
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: again.token })).status, 401);
});
