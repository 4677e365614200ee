import test from 'ava';
import type { DomainEvent } from '../../src/domain/events.ts';
import { projectDecider, type ProjectCommand } from '../../src/domain/project.ts';
import { NO_RESTRICTIONS, type KeyRestrictions } from '../../src/domain/api-keys.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(projectDecider);

const [P, K1, K2, T0, T1, T2] = [
  '0b7c2a4e-1111-4a4a-8a8a-000000000001',
  '0b7c2a4e-2222-4a4a-8a8a-000000000001',
  '0b7c2a4e-2222-4a4a-8a8a-000000000002',
  '2026-11-23T10:00:00.000Z',
  '2026-11-23T10:05:00.000Z',
  '2026-11-23T10:10:00.000Z',
];

const create: ProjectCommand = { type: 'CreateProject', project_id: P, name: 'shop', at: T0 };
const created: DomainEvent = { type: 'ProjectCreated', data: { project_id: P, name: 'shop', created_at: T0 } };

const issue = (key_id: string, restrictions: KeyRestrictions = NO_RESTRICTIONS): ProjectCommand => ({
  type: 'IssueApiKey',
  project_id: P,
  key_id,
  name: `ci ${key_id.slice(-1)}`,
  prefix: 'wl_abcdefgh',
  key_hash: `sha-${key_id}`,
  restrictions,
  at: T1,
});
const issued = (key_id: string): DomainEvent => ({
  type: 'ApiKeyIssued',
  data: {
    project_id: P,
    key_id,
    name: `ci ${key_id.slice(-1)}`,
    prefix: 'wl_abcdefgh',
    key_hash: `sha-${key_id}`,
    issued_at: T1,
    scopes: ['ingest'],
    expires_at: null,
    allowed_origins: [],
    rate_limit: null,
  },
});

const revoke = (key_id: string): ProjectCommand => ({ type: 'RevokeApiKey', project_id: P, key_id, at: T2 });
const revoked = (key_id: string): DomainEvent => ({
  type: 'ApiKeyRevoked',
  data: { project_id: P, key_id, revoked_at: T2 },
});

test('CreateProject on an empty stream creates the project', (t) => {
  spec(t).given([]).when(create).then([created]);
});

test('CreateProject again is a conflict, not a second ProjectCreated', (t) => {
  spec(t).given([created]).when(create).thenThrows({ code: 'conflict', message: 'project already exists' });
});

test('IssueApiKey on an existing project issues the key with the hash and prefix only', (t) => {
  spec(t)
    .given([created])
    .when(issue(K1))
    .then([issued(K1)]);
});

test('IssueApiKey on a project that does not exist is not_found', (t) => {
  spec(t).given([]).when(issue(K1)).thenThrows({ code: 'not_found', message: 'project not found' });
});

test('RevokeApiKey revokes an issued key', (t) => {
  spec(t)
    .given([created, issued(K1)])
    .when(revoke(K1))
    .then([revoked(K1)]);
});

test('RevokeApiKey revokes only the key named: another key revoked before does not count', (t) => {
  spec(t)
    .given([created, issued(K1), issued(K2), revoked(K2)])
    .when(revoke(K1))
    .then([revoked(K1)]);
});

test('RevokeApiKey refusals: missing project, unknown key, key already revoked', (t) => {
  const cases: Array<[string, DomainEvent[], string, 'not_found' | 'conflict', string]> = [
    ['no project', [], K1, 'not_found', 'project not found'],
    ['no such key', [created, issued(K1)], K2, 'not_found', 'API key not found'],
    ['revoked already', [created, issued(K1), revoked(K1)], K1, 'conflict', 'API key is already revoked'],
  ];
  for (const [, given, key, code, message] of cases) {
    spec(t).given(given).when(revoke(key)).thenThrows({ code, message });
  }
});

// ---- scopes and expiry ----

const legacyIssued = (key_id: string): DomainEvent => {
  const { scopes: _scopes, expires_at: _expires, ...data } = (issued(key_id) as { data: Record<string, unknown> }).data;
  return { type: 'ApiKeyIssued', data } as DomainEvent;
};
const restrict = (key_id: string, restrictions: Extract<ProjectCommand, { type: 'RestrictApiKey' }>['restrictions']) =>
  ({ type: 'RestrictApiKey', project_id: P, key_id, restrictions, at: T2 }) satisfies ProjectCommand;

test('IssueApiKey records its scopes and expiry; an expiry that is not ahead is a validation error', (t) => {
  spec(t)
    .given([created])
    .when(issue(K1, { ...NO_RESTRICTIONS, scopes: ['read', 'stream'], expires_at: T2 }))
    .then([{ ...issued(K1), data: { ...issued(K1).data, scopes: ['read', 'stream'], expires_at: T2 } } as DomainEvent]);
  spec(t)
    .given([created])
    .when(issue(K1, { ...NO_RESTRICTIONS, expires_at: T1 }))
    .thenThrows({ code: 'validation_error', message: 'invalid API key: expires_at must be in the future' });
});

test('RestrictApiKey of a key from before scopes starts from ingest only, and records the whole key', (t) => {
  spec(t)
    .given([created, legacyIssued(K1)])
    .when(restrict(K1, { scopes: ['ingest', 'read'] }))
    .then([
      {
        type: 'ApiKeyRestricted',
        data: {
          project_id: P,
          key_id: K1,
          scopes: ['ingest', 'read'],
          expires_at: null,
          allowed_origins: [],
          rate_limit: null,
          changed_at: T2,
        },
      },
    ]);
  spec(t)
    .given([created, legacyIssued(K1)])
    .when(restrict(K1, { scopes: ['ingest'] }))
    .thenNothing();
  spec(t)
    .given([created, legacyIssued(K1)])
    .when(restrict(K1, { expires_at: T0 }))
    .thenThrows({ code: 'validation_error', message: 'invalid API key: expires_at must be in the future' });
});

// ---- SetMaskingRules ----

const setRules = (keys: string[], patterns: string[], at = T2): ProjectCommand => ({
  type: 'SetMaskingRules',
  project_id: P,
  rules: { keys, patterns },
  at,
});
const rulesSet = (keys: string[], patterns: string[], at = T2): DomainEvent => ({
  type: 'MaskingRulesSet',
  data: { project_id: P, keys, patterns, updated_at: at },
});

test("SetMaskingRules records the project's rules as given", (t) => {
  spec(t)
    .given([created])
    .when(setRules(['Session-Id'], ['sk_live_[0-9a-z]+']))
    .then([rulesSet(['Session-Id'], ['sk_live_[0-9a-z]+'])]);
});

test('SetMaskingRules replaces the rules whole, down to none', (t) => {
  const first = rulesSet(['a', 'b'], ['x+y'], T1);
  spec(t)
    .given([created, first])
    .when(setRules(['b'], []))
    .then([rulesSet(['b'], [])]);
  spec(t)
    .given([created, first])
    .when(setRules([], []))
    .then([rulesSet([], [])]);
});

test('SetMaskingRules drops repeats before recording: keys that normalise alike, identical patterns', (t) => {
  spec(t)
    .given([created])
    .when(setRules(['Session-Id', 'session_id', 'x'], ['a+', 'a+']))
    .then([rulesSet(['Session-Id', 'x'], ['a+'])]);
});

test('SetMaskingRules that changes nothing records nothing', (t) => {
  spec(t).given([created]).when(setRules([], [])).thenNothing();
  spec(t)
    .given([created, rulesSet(['k'], ['p+'], T1)])
    .when(setRules(['k', 'K'], ['p+']))
    .thenNothing();
});

test('SetMaskingRules refusals: no project; invalid entries, each named', (t) => {
  spec(t)
    .given([])
    .when(setRules(['k'], []))
    .thenThrows({ code: 'not_found', message: 'project not found' });
  spec(t)
    .given([created])
    .when(setRules(['--'], ['(', '.*', 'ok']))
    .thenThrows({
      code: 'validation_error',
      message: 'invalid masking rules',
      details: [
        { path: 'keys.0', message: 'must have a character other than - and _' },
        { path: 'patterns.0', message: 'not a valid RE2 pattern: error parsing regexp: missing closing ): `(`' },
        { path: 'patterns.1', message: 'matches the empty string, so it would mask every value' },
      ],
    });
});

test('masking rules and API keys live side by side in the project stream', (t) => {
  spec(t)
    .given([created, rulesSet(['k'], [], T1), issued(K1)])
    .when(revoke(K1))
    .then([revoked(K1)]);
  spec(t)
    .given([created, issued(K1), revoked(K1)])
    .when(setRules(['k'], []))
    .then([rulesSet(['k'], [])]);
});
