import test from 'ava';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { base32Decode, totpCode } from '../../src/domain/totp.ts';
import { STEP_MS, enrolTotp, steppingClock } from '../helpers/factors.ts';
import { ADMIN, type TestServer, api, caughtUp, login, startTestServer } from '../helpers/server.ts';

/** Issue 35, second factors over HTTP: TOTP enrolled and used with codes computed from the
 *  enrolled secret (test/domain/totp.test.ts holds the code to RFC 6238's vectors) on the
 *  server's own clock, recovery codes, the throttle, and the policy that sends a user to enrol. */

const loginStep = (server: TestServer, email: string, password: string) =>
  api(server.url, 'POST', '/v1/auth/login', { body: { email, password } });

const newUser = async (server: TestServer, admin: string, email: string, role = 'member') => {
  const created = await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email, password: `${email}-password`, role, project_ids: [] },
  });
  if (created.status !== 201) throw new Error(`user: ${created.status} ${JSON.stringify(created.body)}`);
  return { id: created.body.id as string, email, password: `${email}-password` };
};

/** The built-in project's system.access rows with their bodies (an export has them), once the
 *  audit-events read model has applied everything appended so far. */
const accessRows = async (server: TestServer, admin: string) => {
  await caughtUp(server, ['auditEvents']);
  const exported = await api(
    server.url,
    'GET',
    `/v1/audit/export?format=json&project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access`,
    { token: admin },
  );
  return exported.body as Array<{ request_body: Record<string, unknown> }>;
};

test('a user without a factor, where none is required, gets exactly the token a login always answered', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  await login(server.url);
  const answer = await loginStep(server, ADMIN.email, ADMIN.password);
  t.is(answer.status, 200);
  t.deepEqual(Object.keys(answer.body).sort(), ['expires_at', 'token']);
  t.is((await api(server.url, 'GET', '/v1/auth/me', { token: answer.body.token })).status, 200);
});

test(
  "TOTP: enrolled with a first code, then asked after the password; a code works once, the next step's " +
    'works after the clock moves, an old one does not; every change is a system.access row',
  async (t) => {
    const clock = steppingClock();
    const server = await startTestServer({ now: clock.now });
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    const ada = await newUser(server, admin, 'ada@example.com');
    const token = await login(server.url, ada.email, ada.password);

    const { secret, setup, confirmed } = await enrolTotp(server, token, clock);
    t.regex(setup.otpauth_uri, /^otpauth:\/\/totp\/watchlog:ada%40example\.com\?secret=[A-Z2-7]{32}&issuer=watchlog/);
    t.regex(setup.qr_code, /^data:image\/svg\+xml;base64,/);
    t.true(Buffer.from(setup.qr_code.split(',')[1], 'base64').toString().includes('<svg'));
    t.is(confirmed.recovery_codes.length, 10, 'ten recovery codes with the first factor');
    t.is(confirmed.sign_in, null, 'a signed-in user is not signed in again');
    const listed = await api(server.url, 'GET', '/v1/auth/factors', { token });
    t.like(listed.body, { recovery_codes_left: 10, passkeys: [], required: false });
    t.truthy(listed.body.totp_enrolled_at);
    t.false(JSON.stringify(listed.body).includes(setup.secret), 'the secret is never answered again');
    t.is((await api(server.url, 'POST', '/v1/auth/factors/totp', { token })).status, 409, 'one app at a time');

    // The code that confirmed the enrolment does not sign in.
    const first = await loginStep(server, ada.email, ada.password);
    t.like(first.body, { second_factor_required: true, methods: ['totp', 'recovery_code'] });
    t.is(first.body.token, undefined, 'no access token before the second factor');
    t.is(
      (await api(server.url, 'GET', '/v1/auth/me', { token: first.body.challenge_token })).status,
      401,
      'the challenge token is no access token',
    );
    const finish = (code: string, challenge = first.body.challenge_token) =>
      api(server.url, 'POST', '/v1/auth/second-factor', { body: { challenge_token: challenge, totp_code: code } });
    t.is((await finish(totpCode(secret, clock.at()))).status, 401, 'the enrolment code is used already');

    clock.step();
    const code = totpCode(secret, clock.at());
    const signedIn = await finish(code);
    t.is(signedIn.status, 200);
    t.deepEqual(Object.keys(signedIn.body).sort(), ['expires_at', 'token']);
    t.is((await api(server.url, 'GET', '/v1/auth/me', { token: signedIn.body.token })).body.email, ada.email);
    const reused = await finish(code);
    t.is(reused.status, 401, 'the same code again');
    t.regex(reused.body.error.message, /wrong or used code/);

    // The next step's code, once the clock is there; a code from two steps back is out of the window.
    clock.step();
    t.is((await finish(totpCode(secret, clock.at()))).status, 200, "the next step's code");
    clock.step(3);
    t.is((await finish(totpCode(secret, new Date(clock.at().getTime() - 2 * STEP_MS)))).status, 401, 'too old');
    t.is((await finish('12345a')).status, 401, 'not a code');
    const neither = await api(server.url, 'POST', '/v1/auth/second-factor', {
      body: { challenge_token: first.body.challenge_token },
    });
    t.is(neither.status, 400);
    t.is(neither.body.error.details[0].path, 'totp_code');
    const forged = await finish(totpCode(secret, clock.at()), token);
    t.is(forged.status, 401, 'an access token is no challenge token');

    const rows = await accessRows(server, admin);
    const actions = rows.map((r) => r.request_body.action);
    t.true(actions.includes('factor.totp_enrolled'));
    t.true(actions.includes('factor.recovery_codes_generated'));
    const logins = rows.filter((r) => r.request_body.action === 'login' && r.request_body.user_id === ada.id);
    t.true(logins.some((r) => r.request_body.pending === 'second_factor'));
    t.true(logins.some((r) => r.request_body.factor === 'totp' && r.request_body.ok === true));
    t.true(logins.some((r) => r.request_body.factor === 'totp' && r.request_body.reason === 'wrong_factor'));
    t.false(JSON.stringify(rows).includes(setup.secret), 'no row holds the secret');

    t.is((await api(server.url, 'DELETE', '/v1/auth/factors/totp', { token })).status, 204);
    const plain = await loginStep(server, ada.email, ada.password);
    t.deepEqual(Object.keys(plain.body).sort(), ['expires_at', 'token'], 'without a factor, the password alone');
    t.true((await accessRows(server, admin)).some((r) => r.request_body.action === 'factor.totp_removed'));
  },
);

test('recovery codes: ten, each works once, new ones replace the old', async (t) => {
  const clock = steppingClock();
  const server = await startTestServer({ now: clock.now });
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const bob = await newUser(server, admin, 'bob@example.com');
  const token = await login(server.url, bob.email, bob.password);
  t.is(
    (await api(server.url, 'POST', '/v1/auth/factors/recovery-codes', { token })).status,
    409,
    'no codes without a factor',
  );
  const { confirmed } = await enrolTotp(server, token, clock);
  const codes: string[] = confirmed.recovery_codes;
  t.is(new Set(codes).size, 10);
  for (const code of codes) t.regex(code, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);

  const withRecovery = async (code: string) => {
    const step = await loginStep(server, bob.email, bob.password);
    return api(server.url, 'POST', '/v1/auth/second-factor', {
      body: { challenge_token: step.body.challenge_token, recovery_code: code },
    });
  };
  t.is((await withRecovery(codes[0]!.toUpperCase().replaceAll('-', ' '))).status, 200, 'case and spaces forgiven');
  t.is((await withRecovery(codes[0]!)).status, 401, 'used');
  t.is((await withRecovery(codes[1]!)).status, 200);
  t.is((await api(server.url, 'GET', '/v1/auth/factors', { token })).body.recovery_codes_left, 8);
  const rows = await accessRows(server, admin);
  t.is(rows.filter((r) => r.request_body.action === 'factor.recovery_code_used').length, 2);

  const renewed = await api(server.url, 'POST', '/v1/auth/factors/recovery-codes', { token });
  t.is(renewed.status, 200);
  t.is(renewed.body.recovery_codes.length, 10);
  t.is((await withRecovery(codes[2]!)).status, 401, 'an old code stops working');
  t.is((await withRecovery(renewed.body.recovery_codes[9])).status, 200);
  t.is((await api(server.url, 'GET', '/v1/auth/factors', { token })).body.recovery_codes_left, 9);
});

test('wrong second factors are throttled like passwords, and a right password does not clear the count', async (t) => {
  const clock = steppingClock();
  const server = await startTestServer({ now: clock.now });
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const cy = await newUser(server, admin, 'cy@example.com');
  const { secret } = await enrolTotp(server, await login(server.url, cy.email, cy.password), clock);
  clock.step();
  const attempt = async (code: string) => {
    const step = await loginStep(server, cy.email, cy.password);
    t.is(step.status, 200);
    return api(server.url, 'POST', '/v1/auth/second-factor', {
      body: { challenge_token: step.body.challenge_token, totp_code: code },
    });
  };
  const wrong = totpCode(secret, new Date(clock.at().getTime() + 10 * STEP_MS));
  for (let i = 0; i < 5; i++) t.is((await attempt(wrong)).status, 401, `failure ${i + 1}`);
  const refused = await attempt(totpCode(secret, clock.at()));
  t.is(refused.status, 429, 'the right code is refused while locked');
  t.truthy(refused.headers.get('retry-after'));
  t.true(
    (await accessRows(server, admin)).some(
      (r) => r.request_body.factor === 'totp' && r.request_body.reason === 'throttled',
    ),
  );
});

test(
  'the policy: admins set it; a user it covers who has no factor gets an enrolment token that only enrols, ' +
    'and enrolling signs them in; their last factor stays',
  async (t) => {
    const clock = steppingClock();
    const server = await startTestServer({ now: clock.now });
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    const dee = await newUser(server, admin, 'dee@example.com');
    const member = await login(server.url, dee.email, dee.password);
    t.is(
      (await api(server.url, 'PUT', '/v1/settings/second-factor', { token: member, body: { require: 'everyone' } }))
        .status,
      403,
    );
    t.deepEqual((await api(server.url, 'GET', '/v1/settings/second-factor', { token: admin })).body, {
      require: 'none',
      updated_at: null,
    });
    const bad = await api(server.url, 'PUT', '/v1/settings/second-factor', { token: admin, body: { require: 'all' } });
    t.is(bad.status, 400);
    t.is(bad.body.error.details[0].path, 'require');
    const set = await api(server.url, 'PUT', '/v1/settings/second-factor', {
      token: admin,
      body: { require: 'everyone' },
    });
    t.is(set.status, 200);
    t.is(set.body.require, 'everyone');
    t.true((await accessRows(server, admin)).some((r) => r.request_body.action === 'second_factor_policy.set'));

    const step = await loginStep(server, dee.email, dee.password);
    t.is(step.status, 200);
    t.like(step.body, { enrolment_required: true });
    t.is(step.body.token, undefined);
    const enrolment: string = step.body.enrolment_token;
    for (const [method, path] of [
      ['GET', '/v1/auth/me'],
      ['GET', '/v1/auth/factors'],
      ['GET', '/v1/projects'],
      ['POST', '/v1/auth/factors/recovery-codes'],
    ] as const) {
      const res = await api(server.url, method, path, { token: enrolment });
      t.is(res.status, 403, `${method} ${path}`);
      t.regex(res.body.error.message, /only enrols a second factor/);
    }
    const { secret, confirmed } = await enrolTotp(server, enrolment, clock);
    t.is(confirmed.recovery_codes.length, 10);
    t.truthy(confirmed.sign_in?.token, 'enrolling finishes the sign-in');
    const me = await api(server.url, 'GET', '/v1/auth/me', { token: confirmed.sign_in.token });
    t.is(me.body.email, dee.email);
    const factors = await api(server.url, 'GET', '/v1/auth/factors', { token: confirmed.sign_in.token });
    t.true(factors.body.required);
    const removal = await api(server.url, 'DELETE', '/v1/auth/factors/totp', { token: confirmed.sign_in.token });
    t.is(removal.status, 409, 'the last factor stays while the policy requires one');

    // Now enrolled: the next login asks for the factor, as for anyone who has one.
    clock.step();
    const again = await loginStep(server, dee.email, dee.password);
    t.like(again.body, { second_factor_required: true });
    const done = await api(server.url, 'POST', '/v1/auth/second-factor', {
      body: { challenge_token: again.body.challenge_token, totp_code: totpCode(secret, clock.at()) },
    });
    t.is(done.status, 200);

    // `admins` leaves members alone; the admin, who has no factor, is sent to enrol.
    await api(server.url, 'PUT', '/v1/settings/second-factor', { token: admin, body: { require: 'admins' } });
    const eve = await newUser(server, admin, 'eve@example.com');
    t.deepEqual(Object.keys((await loginStep(server, eve.email, eve.password)).body).sort(), ['expires_at', 'token']);
    t.like((await loginStep(server, ADMIN.email, ADMIN.password)).body, { enrolment_required: true });
  },
);

test("an admin resets a user's lost factors: the password alone signs in again; each removal is a row", async (t) => {
  const clock = steppingClock();
  const server = await startTestServer({ now: clock.now });
  t.teardown(() => server.stop());
  const admin = await login(server.url);
  const cyd = await newUser(server, admin, 'cyd@example.com');
  const token = await login(server.url, cyd.email, cyd.password);
  await enrolTotp(server, token, clock);
  t.true((await loginStep(server, cyd.email, cyd.password)).body.second_factor_required);

  const path = `/v1/users/${cyd.id}/factors`;
  t.is((await api(server.url, 'DELETE', path, { token })).status, 403, 'not by the user, not by a member');
  const unknown = '00000000-0000-4000-8000-000000000000';
  t.is((await api(server.url, 'DELETE', `/v1/users/${unknown}/factors`, { token: admin })).status, 404);
  t.is((await api(server.url, 'DELETE', path, { token: admin })).status, 204);
  const factors = (await api(server.url, 'GET', '/v1/auth/factors', { token })).body;
  t.is(factors.totp_enrolled_at, null);
  t.is(factors.recovery_codes_left, 0);
  const again = await loginStep(server, cyd.email, cyd.password);
  t.deepEqual(Object.keys(again.body).sort(), ['expires_at', 'token'], 'the password alone, as before enrolling');
  t.is((await api(server.url, 'DELETE', path, { token: admin })).status, 204, 'nothing left: still 204');

  const rows = (await accessRows(server, admin)).filter((r) => r.request_body.user_id === cyd.id);
  const actions = rows.map((r) => r.request_body.action);
  t.is(actions.filter((a) => a === 'factor.totp_removed').length, 1);
  t.is(actions.filter((a) => a === 'factor.recovery_codes_generated').length, 1, 'at enrolment');
  t.is(actions.filter((a) => a === 'factor.recovery_codes_removed').length, 1, 'at the reset');
});

test(
  'a password alone never signs in a user with a factor, nor one the policy wants enrolled, ' +
    'while the factors read model is behind',
  async (t) => {
    const clock = steppingClock();
    const server = await startTestServer({ now: clock.now });
    t.teardown(() => server.stop());
    const admin = await login(server.url);
    const bob = await newUser(server, admin, 'bob@example.com');
    const cy = await newUser(server, admin, 'cy@example.com');
    const bobToken = (await loginStep(server, bob.email, bob.password)).body.token as string;
    // From here the read models stay where they are: the enrolment and the policy are recorded, and
    // their answers say they are not visible yet.
    await server.projector?.stop();
    const setup = await api(server.url, 'POST', '/v1/auth/factors/totp', { token: bobToken });
    t.is(setup.status, 200);
    const [confirmed, policy] = await Promise.all([
      api(server.url, 'POST', '/v1/auth/factors/totp/confirm', {
        token: bobToken,
        body: { setup_token: setup.body.setup_token, code: totpCode(base32Decode(setup.body.secret)!, clock.at()) },
      }),
      api(server.url, 'PUT', '/v1/settings/second-factor', { token: admin, body: { require: 'everyone' } }),
    ]);
    t.is(confirmed.status, 503);
    t.is(policy.status, 503);

    const bobStep = await loginStep(server, bob.email, bob.password);
    t.like(bobStep.body, { second_factor_required: true, methods: ['totp', 'recovery_code'] });
    t.is(bobStep.body.token, undefined);
    const cyStep = await loginStep(server, cy.email, cy.password);
    t.like(cyStep.body, { enrolment_required: true });
    t.is(cyStep.body.token, undefined);
  },
);

test("a session changes its user's second factors for 10 minutes after its sign-in, then signs in again", async (t) => {
  const clock = steppingClock();
  const server = await startTestServer({ now: clock.now });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { secret } = await enrolTotp(server, token, clock);
  const passkey = '00000000-0000-4000-8000-000000000000';
  const changes = [
    ['POST', '/v1/auth/factors/totp'],
    ['DELETE', '/v1/auth/factors/totp'],
    ['POST', '/v1/auth/factors/recovery-codes'],
    ['POST', '/v1/auth/factors/passkeys/options'],
    ['DELETE', `/v1/auth/factors/passkeys/${passkey}`],
  ] as const;

  clock.step(21); // 10 minutes 30 seconds
  for (const [method, path] of changes) {
    const res = await api(server.url, method, path, { token });
    t.is(res.status, 403, `${method} ${path}`);
    t.is(res.body.error.code, 'reauthentication_required');
    t.regex(res.body.error.message, /sign in again/);
  }
  t.is((await api(server.url, 'GET', '/v1/auth/factors', { token })).status, 200, 'reading them is not a change');

  const step = await loginStep(server, ADMIN.email, ADMIN.password);
  const again = await api(server.url, 'POST', '/v1/auth/second-factor', {
    body: { challenge_token: step.body.challenge_token, totp_code: totpCode(secret, clock.at()) },
  });
  t.is(again.status, 200);
  const fresh = again.body.token as string;
  t.is((await api(server.url, 'POST', '/v1/auth/factors/recovery-codes', { token: fresh })).status, 200);
  t.is((await api(server.url, 'DELETE', '/v1/auth/factors/totp', { token: fresh })).status, 204);
  t.is(
    (await api(server.url, 'DELETE', '/v1/auth/factors/totp', { token })).status,
    403,
    'the old session still may not',
  );
});
