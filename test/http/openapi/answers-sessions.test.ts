import test from 'ava';
import { driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';

/** Sign-in sessions, each real answer checked against the description. */

const drive = driveServer({});

test.serial('sessions: refresh, list, end one, end others, an admin ends a user’s, logout', async (t) => {
  const { admin, server } = drive();
  // A user of their own: ending "all my other sessions" leaves the driver's admin signed in.
  const USER = { email: 'sessions@example.com', password: 'a sessions password' };
  const created = await fetch(`${server.url}/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...USER, role: 'member', project_ids: [] }),
  });
  const userId = ((await created.json()) as { id: string }).id;
  const login = await drive().call(
    t,
    'POST /v1/auth/login',
    '/v1/auth/login',
    { body: { ...USER, cookie: true } },
    200,
  );
  const cookie = /watchlog_refresh=[^;]*/.exec(login.headers.get('set-cookie') ?? '')![0];
  const renewed = await drive().call(t, 'POST /v1/auth/refresh', '/v1/auth/refresh', { headers: { cookie } }, 200);
  const token = (renewed.body as { token: string }).token;
  const other = (
    await drive().call(t, 'POST /v1/auth/login', '/v1/auth/login', { body: { ...USER, cookie: true } }, 200)
  ).body as { session_id: string };
  const mine = await drive().call(t, 'GET /v1/auth/sessions', '/v1/auth/sessions', { token }, 200);
  t.true((mine.body as { current: boolean }[]).some((s) => s.current));
  await drive().call(t, 'DELETE /v1/auth/sessions/:sessionId', `/v1/auth/sessions/${other.session_id}`, { token }, 204);
  await drive().call(t, 'DELETE /v1/auth/sessions', '/v1/auth/sessions', { token }, 200);
  await drive().call(t, 'GET /v1/users/:id/sessions', `/v1/users/${userId}/sessions`, { token: admin }, 200);
  await drive().call(t, 'POST /v1/auth/logout', '/v1/auth/logout', { token }, 204);
  await drive().call(t, 'DELETE /v1/users/:id/sessions', `/v1/users/${userId}/sessions`, { token: admin }, 200);
});

everyOperationDriven('answers-sessions.test.ts', drive);
