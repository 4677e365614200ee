import test from 'ava';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { api, capturingLogger, eventually, login, startTestServer } from '../helpers/server.ts';

/** Issue 35: ID tokens that must be refused (wrong iss, aud, nonce, signature; expired), from a
 *  provider made here that signs what each case asks for; the reason is logged and recorded. A
 *  well-formed one signs in, so the refusals are the token's doing. */

type Case = 'good' | 'iss' | 'aud' | 'nonce' | 'signature' | 'expired';

const idp = async () => {
  const key = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(key.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  let current: Case = 'good';
  const codes = new Map<string, string>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (body: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration')
      return json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
      });
    if (url.pathname === '/jwks') return json({ keys: [jwk] });
    if (url.pathname === '/token') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const nonce = codes.get(new URLSearchParams(body).get('code') ?? '') ?? '';
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({
        email: 'ada@example.com',
        email_verified: true,
        nonce: current === 'nonce' ? 'another nonce' : nonce,
      })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(current === 'iss' ? 'https://someone-else.example' : issuer)
        .setAudience(current === 'aud' ? 'another-client' : 'watchlog')
        .setSubject('ada')
        .setIssuedAt(current === 'expired' ? now - 7200 : now)
        .setExpirationTime(current === 'expired' ? now - 3600 : now + 300)
        .sign(current === 'signature' ? other.privateKey : key.privateKey);
      return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
    }
    res.statusCode = 404;
    res.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    issuer,
    set: (c: Case) => {
      current = c;
    },
    /** The provider "authenticates" at once: a code remembered with the nonce it was asked for. */
    authorize: (authorizeUrl: string) => {
      const u = new URL(authorizeUrl);
      const code = `code-${codes.size}`;
      codes.set(code, u.searchParams.get('nonce')!);
      return { code, state: u.searchParams.get('state')! };
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
};

test('ID tokens with a wrong iss, aud, nonce or signature, or expired, are refused, the reason logged', async (t) => {
  const { logger, lines } = capturingLogger();
  const server = await startTestServer({ logger });
  t.teardown(() => server.stop());
  const provider = await idp();
  t.teardown(() => provider.close());
  const admin = await login(server.url);
  await api(server.url, 'PUT', '/v1/settings/sso/corp', {
    token: admin,
    body: {
      name: 'Corp',
      issuer: provider.issuer,
      client_id: 'watchlog',
      client_secret: 'secret',
      scopes: ['openid', 'email'],
      allowed_domains: [],
      jit: true,
      claim: null,
      mappings: [],
    },
  });
  // A fresh address is created only with a mapping: ada has an account already.
  await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'ada@example.com', password: 'ada password', role: 'member', project_ids: [] },
  });

  const signOn = async (c: Case) => {
    provider.set(c);
    const start = await fetch(`${server.url}/v1/auth/oidc/corp/start`, { redirect: 'manual' });
    const cookie = /watchlog_oidc=[^;]+/.exec(start.headers.get('set-cookie') ?? '')![0];
    const { code, state } = provider.authorize(start.headers.get('location')!);
    const back = await fetch(`${server.url}/v1/auth/oidc/corp/callback?code=${code}&state=${state}`, {
      redirect: 'manual',
      headers: { cookie },
    });
    return decodeURIComponent(back.headers.get('location') ?? '');
  };

  t.is(await signOn('good'), '/projects', 'a well-formed token signs in');
  const expected: Record<Exclude<Case, 'good'>, RegExp> = {
    iss: /"iss"/,
    aud: /"aud"/,
    nonce: /"nonce"/,
    signature: /signature/i,
    expired: /"exp"/,
  };
  for (const [c, reason] of Object.entries(expected)) {
    const landed = await signOn(c as Case);
    t.regex(landed, /^\/login\?sso_error=/, c);
    t.regex(landed, reason, `${c}: ${landed}`);
  }
  const logged = lines.filter((l) => l.msg === 'single sign-on refused');
  t.is(logged.length, 5);
  const query = `project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access&status_code=401&limit=100`;
  // Recorded in the log before the redirect; listed once the audit-events projection applied it.
  const rows = await eventually(async () => {
    const list = (await api(server.url, 'GET', `/v1/audit?${query}`, { token: admin })).body.data as { path: string }[];
    const refused = list.filter((r) => r.path === '/v1/auth/oidc/corp/callback');
    return refused.length === 5 ? refused : undefined;
  });
  t.is(rows.length, 5);
});
