import test from 'ava';
import jwt from 'jsonwebtoken';
import { Passwords } from '../../src/commands/passwords.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { registerUser } from '../../src/commands/users.ts';
import { TEST_SCRYPT } from '../helpers/passwords.ts';
import { api, login, projectWithKey, startTestServer, type TestServer } from '../helpers/server.ts';

/** Issue 11: login throttling, user management, token invalidation, rehash on login. Each
 *  throttle test has a server of its own: every request comes from 127.0.0.1, and the counts
 *  live in the server's read-model file. */

const tryLogin = (server: TestServer, email: string, password: string) =>
  api(server.url, 'POST', '/v1/auth/login', { body: { email, password } });

const newUser = async (
  server: TestServer,
  admin: string,
  email: string,
  role = 'member',
  projectIds: string[] = [],
) => {
  const created = await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email, password: `${email}-password`, role, project_ids: projectIds },
  });
  if (created.status !== 201) throw new Error(`user: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body as { id: string; email: string };
};

test(
  'an account is locked after 5 failures: ' + '429 with Retry-After, even for the right password, then doubling',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    await newUser(server, admin, 'locked@example.com');
    for (let i = 0; i < 5; i++)
      t.is((await tryLogin(server, 'locked@example.com', 'wrong')).status, 401, `failure ${i + 1}`);
    const refused = await tryLogin(server, 'LOCKED@example.com', 'locked@example.com-password');
    t.is(refused.status, 429);
    t.is(refused.body.error.code, 'too_many_requests');
    const retryAfter = Number(refused.headers.get('retry-after'));
    t.true(retryAfter > 25 && retryAfter <= 30, `Retry-After ${retryAfter}`);
    // Another account from the same address is not locked; an unknown e-mail is counted the same way.
    t.is((await tryLogin(server, 'admin@example.com', 'correct horse battery')).status, 200);
    for (let i = 0; i < 5; i++) t.is((await tryLogin(server, 'nobody@example.com', 'wrong')).status, 401);
    t.is((await tryLogin(server, 'nobody@example.com', 'wrong')).status, 429);
    // The lock doubles with each further failure (the rule; the time is not waited out here).
    const { accountLockSeconds } = await import('../../src/domain/login-throttle.ts');
    t.deepEqual(
      [5, 6, 7, 8, 9, 10, 11].map((n) => accountLockSeconds(n, server.config.loginLimits)),
      [30, 60, 120, 240, 480, 900, 900],
    );
    t.deepEqual(
      [1, 4].map((n) => accountLockSeconds(n, server.config.loginLimits)),
      [0, 0],
    );
  },
);

test("a successful login forgets the account's failures", async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  await newUser(server, admin, 'forgetful@example.com');
  for (let i = 0; i < 4; i++) t.is((await tryLogin(server, 'forgetful@example.com', 'wrong')).status, 401);
  t.is((await tryLogin(server, 'forgetful@example.com', 'forgetful@example.com-password')).status, 200);
  for (let i = 0; i < 4; i++)
    t.is((await tryLogin(server, 'forgetful@example.com', 'wrong')).status, 401, 'counting starts again');
  t.is((await tryLogin(server, 'forgetful@example.com', 'forgetful@example.com-password')).status, 200);
});

test(
  'an address is refused after its failures across accounts, ' + 'until its window ends; success does not reset it',
  async (t) => {
    const server = await startTestServer({
      env: { WATCHLOG_LOGIN_ADDRESS_FAILURES: '6', WATCHLOG_LOGIN_ADDRESS_WINDOW_SECONDS: '600' },
    });
    t.teardown(() => server.stop());
    for (let i = 0; i < 3; i++) t.is((await tryLogin(server, `guess-${i}@example.com`, 'wrong')).status, 401);
    t.is((await tryLogin(server, 'admin@example.com', 'correct horse battery')).status, 200);
    for (let i = 3; i < 6; i++) t.is((await tryLogin(server, `guess-${i}@example.com`, 'wrong')).status, 401);
    const refused = await tryLogin(server, 'admin@example.com', 'correct horse battery');
    t.is(refused.status, 429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    t.true(retryAfter > 590 && retryAfter <= 600, `Retry-After ${retryAfter}`);
  },
);

test('the login limits are configuration, validated', (t) => {
  t.deepEqual(loadConfig({}).loginLimits, {
    accountFailures: 5,
    accountLockSeconds: 30,
    accountMaxLockSeconds: 900,
    addressFailures: 20,
    addressWindowSeconds: 900,
  });
  const error = t.throws(
    () => loadConfig({ WATCHLOG_LOGIN_ACCOUNT_FAILURES: '0', WATCHLOG_LOGIN_ADDRESS_WINDOW_SECONDS: 'soon' }),
    { instanceOf: ConfigError },
  );
  t.deepEqual(error.problems, [
    'WATCHLOG_LOGIN_ACCOUNT_FAILURES: expected integer 1-100, got "0"',
    'WATCHLOG_LOGIN_ADDRESS_WINDOW_SECONDS: expected integer 1-86400, got "soon"',
  ]);
  t.throws(
    () => loadConfig({ WATCHLOG_LOGIN_ACCOUNT_LOCK_SECONDS: '600', WATCHLOG_LOGIN_ACCOUNT_MAX_LOCK_SECONDS: '60' }),
    { message: /MAX_LOCK_SECONDS \(60\) must be at least/ },
  );
});

test.serial(
  'user management: role and projects, disable and enable; tokens issued before a change are refused',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    const { projectId: shop } = await projectWithKey(server.url, admin, 'shop');
    const { projectId: billing } = await projectWithKey(server.url, admin, 'billing');
    const ann = await newUser(server, admin, 'ann@example.com', 'member', [shop]);
    const before = await login(server.url, 'ann@example.com', 'ann@example.com-password');
    const claims = jwt.decode(before) as { iat: number; exp: number };
    t.is(typeof claims.iat, 'number');
    t.is((await api(server.url, 'GET', `/v1/projects/${billing}`, { token: before })).status, 404);

    const updated = await api(server.url, 'PUT', `/v1/users/${ann.id}`, {
      token: admin,
      body: { role: 'auditor', project_ids: [shop, billing] },
    });
    t.is(updated.status, 200);
    t.like(updated.body, {
      id: ann.id,
      email: 'ann@example.com',
      role: 'auditor',
      project_ids: [shop, billing],
      disabled: false,
    });
    t.is(typeof updated.body.tokens_valid_after, 'string');
    t.false('password_hash' in updated.body);
    const stale = await api(server.url, 'GET', '/v1/projects', { token: before });
    t.is(stale.status, 401);
    t.regex(stale.body.error.message, /log in again/);
    const after = await login(server.url, 'ann@example.com', 'ann@example.com-password');
    t.is(
      (await api(server.url, 'GET', `/v1/projects/${billing}`, { token: after })).status,
      200,
      'the new grant is in the new token',
    );
    t.like(jwt.decode(after), { role: 'auditor' });

    // Nothing changes: nothing recorded, the token stays good.
    t.is(
      (await api(server.url, 'PUT', `/v1/users/${ann.id}`, { token: admin, body: { project_ids: [billing, shop] } }))
        .status,
      200,
    );
    t.is((await api(server.url, 'GET', '/v1/projects', { token: after })).status, 200);

    t.is((await api(server.url, 'DELETE', `/v1/users/${ann.id}`, { token: admin })).status, 204);
    t.is(
      (await api(server.url, 'GET', '/v1/projects', { token: after })).status,
      401,
      "a disabled user's token is refused",
    );
    t.is((await tryLogin(server, 'ann@example.com', 'ann@example.com-password')).status, 401);
    const listed = (await api(server.url, 'GET', '/v1/users', { token: admin })).body as Array<{
      id: string;
      disabled: boolean;
    }>;
    t.like(
      listed.find((u) => u.id === ann.id),
      { disabled: true },
      'the user is kept',
    );
    t.is(
      (await api(server.url, 'DELETE', `/v1/users/${ann.id}`, { token: admin })).status,
      204,
      'again: nothing to do',
    );
    t.like((await api(server.url, 'PUT', `/v1/users/${ann.id}`, { token: admin, body: { disabled: false } })).body, {
      disabled: false,
    });
    t.is(
      (await api(server.url, 'GET', '/v1/projects', { token: after })).status,
      401,
      'enabling does not bring old tokens back',
    );
    await login(server.url, 'ann@example.com', 'ann@example.com-password');

    const me = (jwt.decode(admin) as { sub: string }).sub;
    const self = await api(server.url, 'PUT', `/v1/users/${me}`, { token: admin, body: { role: 'member' } });
    t.is(self.status, 409);
    t.is((await api(server.url, 'DELETE', `/v1/users/${me}`, { token: admin })).status, 409);
    const invalid = await api(server.url, 'PUT', `/v1/users/${ann.id}`, {
      token: admin,
      body: { role: 'king', project_ids: ['x'], disabled: 'no', extra: 1 },
    });
    t.is(invalid.status, 400);
    t.deepEqual(invalid.body.error.details.map((d: { path: string }) => d.path).sort(), [
      'disabled',
      'extra',
      'project_ids.0',
      'role',
    ]);
    const unknownProject = await api(server.url, 'PUT', `/v1/users/${ann.id}`, {
      token: admin,
      body: { project_ids: [crypto.randomUUID()] },
    });
    t.is(unknownProject.status, 400);
    t.is(unknownProject.body.error.details[0].path, 'project_ids.0');
    t.is(
      (await api(server.url, 'PUT', `/v1/users/${crypto.randomUUID()}`, { token: admin, body: { role: 'member' } }))
        .status,
      404,
    );
    t.is((await api(server.url, 'PUT', '/v1/users/not-a-uuid', { token: admin, body: {} })).status, 404);
    t.is((await api(server.url, 'DELETE', `/v1/users/${crypto.randomUUID()}`, { token: admin })).status, 404);
    const member = await login(server.url, 'ann@example.com', 'ann@example.com-password');
    t.is((await api(server.url, 'PUT', `/v1/users/${ann.id}`, { token: member, body: { role: 'admin' } })).status, 403);
    t.is((await api(server.url, 'DELETE', `/v1/users/${me}`, { token: member })).status, 403);
  },
);

test.serial(
  "passwords: admins set anyone's; users their own with the current one; old tokens are refused",
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    const bob = await newUser(server, admin, 'bob@example.com');
    const carol = await newUser(server, admin, 'carol@example.com');
    const bobToken = await login(server.url, 'bob@example.com', 'bob@example.com-password');

    const missing = await api(server.url, 'POST', `/v1/users/${bob.id}/password`, {
      token: bobToken,
      body: { password: 'bob-new-password' },
    });
    t.is(missing.status, 400);
    t.is(missing.body.error.details[0].path, 'current_password');
    const wrong = await api(server.url, 'POST', `/v1/users/${bob.id}/password`, {
      token: bobToken,
      body: { password: 'bob-new-password', current_password: 'nope' },
    });
    t.is(wrong.status, 403);
    t.is(
      (
        await api(server.url, 'POST', `/v1/users/${bob.id}/password`, {
          token: bobToken,
          body: { password: 'short', current_password: 'x' },
        })
      ).status,
      400,
    );
    t.is(
      (
        await api(server.url, 'POST', `/v1/users/${carol.id}/password`, {
          token: bobToken,
          body: { password: 'carol-new-password' },
        })
      ).status,
      403,
    );
    const changed = await api(server.url, 'POST', `/v1/users/${bob.id}/password`, {
      token: bobToken,
      body: { password: 'bob-new-password', current_password: 'bob@example.com-password' },
    });
    t.is(changed.status, 204);
    t.is(
      (await api(server.url, 'GET', '/v1/projects', { token: bobToken })).status,
      401,
      'the token from before the change',
    );
    t.is((await tryLogin(server, 'bob@example.com', 'bob@example.com-password')).status, 401);
    const bobAgain = await login(server.url, 'bob@example.com', 'bob-new-password');
    t.is(
      (await api(server.url, 'GET', '/v1/projects', { token: bobAgain })).status,
      200,
      'a token issued right after the change is good',
    );

    const carolToken = await login(server.url, 'carol@example.com', 'carol@example.com-password');
    t.is(
      (
        await api(server.url, 'POST', `/v1/users/${carol.id}/password`, {
          token: admin,
          body: { password: 'set-by-the-admin' },
        })
      ).status,
      204,
    );
    t.is((await api(server.url, 'GET', '/v1/projects', { token: carolToken })).status, 401);
    await login(server.url, 'carol@example.com', 'set-by-the-admin');
    t.is(
      (
        await api(server.url, 'POST', `/v1/users/${crypto.randomUUID()}/password`, {
          token: admin,
          body: { password: 'whatever-password' },
        })
      ).status,
      404,
    );

    // Wrong current passwords count as failed logins of the account.
    for (let i = 0; i < 5; i++) {
      t.is(
        (
          await api(server.url, 'POST', `/v1/users/${bob.id}/password`, {
            token: bobAgain,
            body: { password: 'bob-third-password', current_password: 'guess' },
          })
        ).status,
        403,
      );
    }
    t.is(
      (
        await api(server.url, 'POST', `/v1/users/${bob.id}/password`, {
          token: bobAgain,
          body: { password: 'bob-third-password', current_password: 'guess' },
        })
      ).status,
      429,
    );
    t.is((await tryLogin(server, 'bob@example.com', 'bob-new-password')).status, 429);

    const log = JSON.stringify(await server.runtime.log.readAll(null, 10_000));
    t.false(log.includes('bob-new-password'));
    t.false(JSON.stringify((await api(server.url, 'GET', '/v1/users', { token: admin })).body).includes('scrypt'));
  },
);

test.serial('a hash of a lower cost is replaced on the next successful login, and the token stays good', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const weak = new Passwords({ N: TEST_SCRYPT.N / 2, r: 8, p: 1 });
  const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
  const { id, position } = await registerUser(
    { ...server.runtime.commands, passwords: weak },
    { email: 'old@example.com', password: 'an old password', role: 'member', project_ids: [] },
    ctx,
  );
  await server.runtime.caughtUp(['access'], position!);
  t.regex(
    (await server.runtime.readModels.access.userByEmail('old@example.com'))!.password_hash,
    new RegExp(`^scrypt\\$${TEST_SCRYPT.N / 2}\\$`),
  );
  const first = await login(server.url, 'old@example.com', 'an old password');
  const events = (await server.runtime.log.readStream(`user-${id}`)).map((e) => e.type);
  t.deepEqual(events, ['UserRegistered', 'UserPasswordRehashed']);
  const head = await server.runtime.log.headPosition();
  await server.runtime.caughtUp(['access'], head!);
  t.regex(
    (await server.runtime.readModels.access.userByEmail('old@example.com'))!.password_hash,
    new RegExp(`^scrypt\\$${TEST_SCRYPT.N}\\$8\\$1\\$`),
  );
  t.is((await api(server.url, 'GET', '/v1/projects', { token: first })).status, 200, 'a rehash does not end tokens');
  await login(server.url, 'old@example.com', 'an old password');
  t.is((await server.runtime.log.readStream(`user-${id}`)).length, 2, 'once');
});
