import test from 'ava';
import { ConfigError } from '../../src/config-codecs.ts';
import { sessionSettingsOf } from '../../src/config-sessions.ts';
import { ssoProviderOf } from '../../src/config-sso.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { deviceOf, sessionDecider, sessionIdOfRefreshToken } from '../../src/domain/session.ts';
import { emailOf, grantOf } from '../../src/domain/sso.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

/** Issue 35: the session aggregate's rules (rotation, reuse, lifetimes), the single sign-on
 *  rules on claims, and their configuration. */

const spec = deciderSpec(sessionDecider);
const ID = '0b9c2f3e-1a2b-4c3d-8e4f-5a6b7c8d9e0f';
const USER = 'f1e2d3c4-b5a6-4978-8a9b-0c1d2e3f4a5b';
const T0 = '2026-01-01T00:00:00.000Z';
const started: DomainEvent = {
  type: 'SessionStarted',
  data: {
    session_id: ID,
    user_id: USER,
    kind: 'cookie',
    method: 'password',
    refresh_hash: 'h1',
    address: '127.0.0.1',
    user_agent: null,
    started_at: T0,
    expires_at: '2026-01-08T00:00:00.000Z',
  },
};
const refresh = (presented: string, next: string, at = '2026-01-01T01:00:00.000Z', revoked = false) => ({
  type: 'RefreshSession' as const,
  presented_hash: presented,
  new_hash: next,
  address: '10.0.0.1',
  user_agent: null,
  revoked,
  idle_ms: 86_400_000,
  at,
});
const refreshed = (hash: string, at = '2026-01-01T01:00:00.000Z'): DomainEvent => ({
  type: 'SessionRefreshed',
  data: { session_id: ID, user_id: USER, refresh_hash: hash, address: '10.0.0.1', user_agent: null, refreshed_at: at },
});
const ended = (reason: 'refresh_reused' | 'expired' | 'revoked', at = '2026-01-01T01:00:00.000Z'): DomainEvent => ({
  type: 'SessionEnded',
  data: { session_id: ID, user_id: USER, reason, ended_at: at },
});

test('the current refresh token rotates; a rotated one ends the session; an unknown one changes nothing', (t) => {
  spec(t)
    .given([started])
    .when(refresh('h1', 'h2'))
    .then([refreshed('h2')]);
  spec(t)
    .given([started, refreshed('h2')])
    .when(refresh('h1', 'h3'))
    .then([ended('refresh_reused')]);
  spec(t)
    .given([started, refreshed('h2')])
    .when(refresh('guess', 'h3'))
    .thenNothing();
  spec(t)
    .given([started, refreshed('h2'), ended('refresh_reused')])
    .when(refresh('h2', 'h3'))
    .thenNothing();
});

test('idle and absolute lifetimes, and a user whose access changed, end the session at refresh', (t) => {
  spec(t)
    .given([started])
    .when(refresh('h1', 'h2', '2026-01-02T00:00:00.000Z'))
    .then([ended('expired', '2026-01-02T00:00:00.000Z')]);
  const late = '2026-01-08T00:00:00.000Z';
  const daily = ['2026-01-02', '2026-01-03', '2026-01-04', '2026-01-05', '2026-01-06', '2026-01-07'].map((d, i) =>
    refreshed(`h${i + 2}`, `${d}T00:00:00.000Z`),
  );
  spec(t)
    .given([started, ...daily])
    .when(refresh('h7', 'h8', late))
    .then([ended('expired', late)]);
  spec(t)
    .given([started])
    .when(refresh('h1', 'h2', undefined, true))
    .then([ended('revoked')]);
});

test('refresh tokens name their session; devices read from user agents', (t) => {
  t.is(sessionIdOfRefreshToken(`${ID}.${'a'.repeat(43)}`), ID);
  t.is(sessionIdOfRefreshToken('nonsense'), null);
  t.is(
    deviceOf('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/139.0 Safari/537.36'),
    'Chrome on Windows',
  );
  t.is(deviceOf('curl/8.5.0'), 'curl');
  t.is(deviceOf(null), 'unknown device');
});

test('claims: a verified e-mail of an allowed domain; the first mapping the claim matches', (t) => {
  t.is(emailOf({ email: 'Ada@Example.com' }, ['example.com']), 'ada@example.com');
  t.like(emailOf({ email: 'eve@other.org' }, ['example.com']), { reason: 'domain_not_allowed' });
  t.like(emailOf({ email: 'ada@example.com', email_verified: false }, []), { reason: 'email_not_verified' });
  t.like(emailOf({}, []), { reason: 'no_email' });
  const mappings = [
    { value: 'admins', role: 'admin' as const, project_ids: [ID] },
    { value: 'staff', role: 'member' as const, project_ids: [ID] },
  ];
  t.deepEqual(grantOf({ groups: ['staff', 'admins'] }, 'groups', mappings), { role: 'admin', project_ids: [] });
  t.deepEqual(grantOf({ groups: 'staff' }, 'groups', mappings), { role: 'member', project_ids: [ID] });
  t.is(grantOf({ groups: ['others'] }, 'groups', mappings), null);
  t.is(grantOf({ groups: ['admins'] }, null, mappings), null);
});

test('configuration: session lifetimes in order; one provider from WATCHLOG_OIDC_*, all three or none', (t) => {
  t.deepEqual(sessionSettingsOf({} as never), { accessTtlSeconds: 900, idleSeconds: 86_400, maxSeconds: 604_800 });
  t.throws(
    () => sessionSettingsOf({ WATCHLOG_SESSION_IDLE_SECONDS: 900_000, WATCHLOG_SESSION_MAX_SECONDS: 3600 } as never),
    {
      instanceOf: ConfigError,
    },
  );
  t.is(ssoProviderOf({} as never), null);
  t.throws(() => ssoProviderOf({ WATCHLOG_OIDC_ISSUER: 'https://idp.example.com' } as never), {
    instanceOf: ConfigError,
  });
  const provider = ssoProviderOf({
    WATCHLOG_OIDC_ISSUER: 'https://idp.example.com',
    WATCHLOG_OIDC_CLIENT_ID: 'watchlog',
    WATCHLOG_OIDC_CLIENT_SECRET: 's3cret',
    WATCHLOG_OIDC_SETTINGS: JSON.stringify({
      id: 'corp',
      jit: true,
      claim: 'groups',
      allowed_domains: ['Example.com'],
    }),
  } as never);
  t.like(provider, {
    id: 'corp',
    jit: true,
    claim: 'groups',
    allowed_domains: ['example.com'],
    scopes: ['openid', 'email', 'profile'],
  });
  t.throws(
    () =>
      ssoProviderOf({
        WATCHLOG_OIDC_ISSUER: 'https://idp.example.com',
        WATCHLOG_OIDC_CLIENT_ID: 'watchlog',
        WATCHLOG_OIDC_CLIENT_SECRET: 's3cret',
        WATCHLOG_OIDC_SETTINGS: JSON.stringify({ id: 'Not An Id' }),
      } as never),
    { instanceOf: ConfigError, message: /WATCHLOG_OIDC_SETTINGS: id/ },
  );
});
