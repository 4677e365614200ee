import test from 'ava';
import { driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';

/** Single sign-on's operations, each real answer checked against the description. The provider
 *  here answers nothing (port 9): the start redirects to the login page with the reason, as a
 *  callback without a sign-in in progress does; test/web/sso.test.ts signs in through a real one. */

const drive = driveServer({});

test.serial('single sign-on: configure, list, start, call back, remove', async (t) => {
  const token = drive().admin;
  const body = {
    name: 'Corp',
    issuer: 'http://127.0.0.1:9/realms/corp',
    client_id: 'watchlog',
    client_secret: 'a client secret',
    scopes: ['openid', 'email'],
    allowed_domains: ['example.com'],
    jit: false,
    claim: null,
    mappings: [],
  };
  const saved = await drive().call(t, 'PUT /v1/settings/sso/:provider', '/v1/settings/sso/corp', { token, body }, 200);
  t.false(JSON.stringify(saved.body).includes('a client secret'));
  const { client_secret: _, ...kept } = body;
  await drive().call(t, 'PUT /v1/settings/sso/:provider', '/v1/settings/sso/corp', { token, body: kept }, 200);
  await drive().call(t, 'PUT /v1/settings/sso/:provider', '/v1/settings/sso/new', { token, body: kept }, 400);
  const list = await drive().call(t, 'GET /v1/settings/sso', '/v1/settings/sso', { token }, 200);
  t.like((list.body as unknown[])[0], { id: 'corp', source: 'settings' });
  const offered = await drive().call(t, 'GET /v1/auth/oidc/providers', '/v1/auth/oidc/providers', {}, 200);
  t.deepEqual(offered.body, [{ id: 'corp', name: 'Corp' }]);
  const start = await drive().call(t, 'GET /v1/auth/oidc/:provider/start', '/v1/auth/oidc/corp/start', {}, 302);
  t.regex(start.headers.get('location') ?? '', /^\/login\?sso_error=Corp%20cannot%20be%20reached/);
  const back = await drive().call(
    t,
    'GET /v1/auth/oidc/:provider/callback',
    '/v1/auth/oidc/corp/callback?code=x&state=y',
    {},
    302,
  );
  t.regex(back.headers.get('location') ?? '', /no%20sign-in%20in%20progress/);
  await drive().call(t, 'GET /v1/auth/oidc/:provider/start', '/v1/auth/oidc/nope/start', {}, 404);
  await drive().call(t, 'DELETE /v1/settings/sso/:provider', '/v1/settings/sso/corp', { token }, 204);
  await drive().call(t, 'DELETE /v1/settings/sso/:provider', '/v1/settings/sso/corp', { token }, 404);
});

everyOperationDriven('answers-sso.test.ts', drive);
