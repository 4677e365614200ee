import test from 'ava';
import type { DomainEvent } from '../../src/domain/events.ts';
import { projectDecider, type ProjectCommand } from '../../src/domain/project.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const spec = deciderSpec(projectDecider);

const [P, K1, K2, T0, T1, T2] = [
  '0b7c2a4e-1111-4a4a-8a8a-000000000001', '0b7c2a4e-2222-4a4a-8a8a-000000000001',
  '0b7c2a4e-2222-4a4a-8a8a-000000000002', '2026-11-23T10:00:00.000Z', '2026-11-23T10:05:00.000Z',
  '2026-11-23T10:10:00.000Z',
];

const create: ProjectCommand = { type: 'CreateProject', project_id: P, name: 'shop', at: T0 };
const created: DomainEvent = { type: 'ProjectCreated', data: { project_id: P, name: 'shop', created_at: T0 } };

const issue = (key_id: string): ProjectCommand =>
  ({ type: 'IssueApiKey', project_id: P, key_id, name: `ci ${key_id.slice(-1)}`, prefix: 'wl_abcdefgh', key_hash: `sha-${key_id}`, at: T1 });
const issued = (key_id: string): DomainEvent =>
  ({ type: 'ApiKeyIssued', data: { project_id: P, key_id, name: `ci ${key_id.slice(-1)}`, prefix: 'wl_abcdefgh', key_hash: `sha-${key_id}`, issued_at: T1 } });

const revoke = (key_id: string): ProjectCommand => ({ type: 'RevokeApiKey', project_id: P, key_id, at: T2 });
const revoked = (key_id: string): DomainEvent => ({ type: 'ApiKeyRevoked', data: { project_id: P, key_id, revoked_at: T2 } });

test('CreateProject on an empty stream creates the project', (t) => {
  spec(t).given([]).when(create).then([created]);
});

test('CreateProject again is a conflict, not a second ProjectCreated', (t) => {
  spec(t).given([created]).when(create).thenThrows({ code: 'conflict', message: 'project already exists' });
});

test('IssueApiKey on an existing project issues the key with the hash and prefix only', (t) => {
  spec(t).given([created]).when(issue(K1)).then([issued(K1)]);
});

test('IssueApiKey on a project that does not exist is not_found', (t) => {
  spec(t).given([]).when(issue(K1)).thenThrows({ code: 'not_found', message: 'project not found' });
});

test('RevokeApiKey revokes an issued key', (t) => {
  spec(t).given([created, issued(K1)]).when(revoke(K1)).then([revoked(K1)]);
});

test('RevokeApiKey revokes only the key named: another key revoked before does not count', (t) => {
  spec(t).given([created, issued(K1), issued(K2), revoked(K2)]).when(revoke(K1)).then([revoked(K1)]);
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
