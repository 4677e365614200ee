import test from 'ava';
import { base32Decode, totpCode } from '../../../src/domain/totp.ts';
import { driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';
import { ADMIN } from '../../helpers/server.ts';
import { SoftwareAuthenticator } from '../../helpers/software-authenticator.ts';

/** Second factors and the sign-ins they finish, each real answer checked against the description
 *  (test/helpers/openapi-driver.ts); passkeys from an authenticator in software. */

const ORIGIN = 'http://localhost:4173';
const drive = driveServer({ env: { WATCHLOG_WEBAUTHN_RP_ID: 'localhost', WATCHLOG_WEBAUTHN_ORIGINS: ORIGIN } });

test.serial('second factors: enrol an app, recovery codes, a passkey; sign in with each; remove them', async (t) => {
  const d = drive();
  const token = d.admin;
  const authenticator = new SoftwareAuthenticator('localhost', ORIGIN);
  await d.call(t, 'GET /v1/auth/factors', '/v1/auth/factors', { token }, 200);
  const setup = await d.call(t, 'POST /v1/auth/factors/totp', '/v1/auth/factors/totp', { token }, 200);
  const code = totpCode(base32Decode(setup.body.secret)!, new Date());
  const enrolled = await d.call(
    t,
    'POST /v1/auth/factors/totp/confirm',
    '/v1/auth/factors/totp/confirm',
    { token, body: { setup_token: setup.body.setup_token, code } },
    200,
  );
  t.is(enrolled.body.recovery_codes.length, 10);
  const codes = await d.call(
    t,
    'POST /v1/auth/factors/recovery-codes',
    '/v1/auth/factors/recovery-codes',
    { token },
    200,
  );

  const options = await d.call(
    t,
    'POST /v1/auth/factors/passkeys/options',
    '/v1/auth/factors/passkeys/options',
    { token },
    200,
  );
  const registered = await d.call(
    t,
    'POST /v1/auth/factors/passkeys',
    '/v1/auth/factors/passkeys',
    {
      token,
      body: {
        registration_token: options.body.registration_token,
        name: 'software key',
        response: authenticator.register(options.body.options),
      },
    },
    201,
  );
  t.is(registered.body.recovery_codes, null, 'the user has codes already');
  const passkey = registered.body.passkey.id as string;
  await d.call(
    t,
    'PUT /v1/auth/factors/passkeys/:passkeyId',
    `/v1/auth/factors/passkeys/${passkey}`,
    { token, body: { name: 'renamed key' } },
    200,
  );

  const login = () =>
    d.call(t, 'POST /v1/auth/login', '/v1/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } }, 200);
  const step = await login();
  t.deepEqual(step.body.methods, ['totp', 'recovery_code', 'passkey']);
  await d.call(
    t,
    'POST /v1/auth/second-factor',
    '/v1/auth/second-factor',
    { body: { challenge_token: step.body.challenge_token, recovery_code: codes.body.recovery_codes[0] } },
    200,
  );

  // A passkey as the second factor, then alone; a replayed answer is refused.
  const second = await login();
  const asFactor = await d.call(
    t,
    'POST /v1/auth/passkey/options',
    '/v1/auth/passkey/options',
    { body: { challenge_token: second.body.challenge_token } },
    200,
  );
  t.is(asFactor.body.options.allowCredentials.length, 1);
  const signInWith = (passkeyToken: string, response: unknown, status: number) =>
    d.call(t, 'POST /v1/auth/passkey', '/v1/auth/passkey', { body: { passkey_token: passkeyToken, response } }, status);
  await signInWith(asFactor.body.passkey_token, authenticator.assert(asFactor.body.options), 200);
  const alone = await d.call(t, 'POST /v1/auth/passkey/options', '/v1/auth/passkey/options', { body: {} }, 200);
  t.is(alone.body.options.allowCredentials, undefined, 'any passkey of the site');
  const answer = authenticator.assert(alone.body.options);
  const signedIn = await signInWith(alone.body.passkey_token, answer, 200);
  t.is(
    (await fetch(`${d.server.url}/v1/auth/me`, { headers: { authorization: `Bearer ${signedIn.body.token}` } })).status,
    200,
  );
  await signInWith(alone.body.passkey_token, answer, 401);

  await d.call(
    t,
    'DELETE /v1/auth/factors/passkeys/:passkeyId',
    `/v1/auth/factors/passkeys/${passkey}`,
    { token },
    204,
  );
  await d.call(t, 'DELETE /v1/auth/factors/totp', '/v1/auth/factors/totp', { token }, 204);
  t.like((await d.call(t, 'GET /v1/auth/factors', '/v1/auth/factors', { token }, 200)).body, {
    totp_enrolled_at: null,
    passkeys: [],
  });
});

test.serial('the second-factor policy: read and set by admins', async (t) => {
  const d = drive();
  const token = d.admin;
  t.like((await d.call(t, 'GET /v1/settings/second-factor', '/v1/settings/second-factor', { token }, 200)).body, {
    require: 'none',
  });
  const set = await d.call(
    t,
    'PUT /v1/settings/second-factor',
    '/v1/settings/second-factor',
    { token, body: { require: 'admins' } },
    200,
  );
  t.is(set.body.require, 'admins');
  await d.call(
    t,
    'PUT /v1/settings/second-factor',
    '/v1/settings/second-factor',
    { token, body: { require: 'x' } },
    400,
  );
});

test.serial("an admin resets a user's second factors", async (t) => {
  const d = drive();
  const token = d.admin;
  const me = await d.call(t, 'GET /v1/auth/me', '/v1/auth/me', { token }, 200);
  await d.call(t, 'DELETE /v1/users/:id/factors', `/v1/users/${me.body.id}/factors`, { token }, 204);
  const unknown = '00000000-0000-4000-8000-000000000000';
  await d.call(t, 'DELETE /v1/users/:id/factors', `/v1/users/${unknown}/factors`, { token }, 404);
});

everyOperationDriven('answers-factors.test.ts', drive);
