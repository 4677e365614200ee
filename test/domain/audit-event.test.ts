import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import { AuditEventInput } from '../../src/domain/audit-event.ts';
import { toStoredAuditEvent } from '../../src/commands/ingest.ts';
import { describeErrors } from '../../src/domain/decode-errors.ts';

const valid = {
  path: '/orders',
  method: 'POST',
  identifier: 'user-1',
  service_name: 'orders',
  environment: 'production',
};

const paths = (input: unknown): string[] => {
  const r = AuditEventInput.decode(input);
  return isLeft(r)
    ? describeErrors(r.left)
        .map((d) => d.path)
        .sort()
    : [];
};

test('the minimal event decodes', (t) => {
  t.true(isRight(AuditEventInput.decode(valid)));
});

test('each required field is required', (t) => {
  for (const field of Object.keys(valid)) {
    const { [field]: _, ...rest } = valid as Record<string, string>;
    t.deepEqual(paths(rest), [field], field);
  }
});

const cases: Array<[string, unknown, boolean]> = [
  ['method', 'PATCH', false],
  ['method', 'get', false],
  ['method', 'DELETE', true],
  ['status_code', 99, false],
  ['status_code', 600, false],
  ['status_code', 200.5, false],
  ['status_code', '200', false],
  ['status_code', 100, true],
  ['status_code', 599, true],
  ['path', 'p'.repeat(255), true],
  ['path', 'p'.repeat(256), false],
  ['path', '', false],
  ['identifier', 'i'.repeat(100), true],
  ['identifier', 'i'.repeat(101), false],
  ['environment', 'prod', false],
  ['environment', 'staging', true],
  ['environment', 'development', true],
  ['source', 'browser', true],
  ['source', 'mobile', false],
  ['response_time', 0, true],
  ['response_time', -1, false],
  ['response_time', 1.5, false],
  ['user_roles', ['a', 'b'], true],
  ['user_roles', 'admin', false],
  ['query_params', { a: '1' }, true],
  ['query_params', [1], false],
  ['query_params', 'a=1', false],
  ['request_body', {}, true],
  ['request_body', [], false],
  ['response_body', 3, false],
  ['path_params', { id: '1' }, true],
  ['user_email', 'a@b.c', true],
  ['user_email', 7, false],
  ['session_id', 's-1', true],
  ['tenant_id', false, false],
];

for (const [field, value, ok] of cases) {
  test(`${field} = ${JSON.stringify(value).slice(0, 20)} is ${ok ? 'accepted' : 'rejected'}`, (t) => {
    t.deepEqual(paths({ ...valid, [field]: value }), ok ? [] : [field]);
  });
}

test('null on an optional field means absent; unknown fields are dropped', (t) => {
  const r = AuditEventInput.decode({ ...valid, status_code: null, user_roles: null, extra: 'x', timestamp: 'now' });
  if (!isRight(r)) return t.fail();
  t.false('extra' in r.right);
  t.false('timestamp' in r.right);
  t.is(r.right.status_code, undefined);
});

test('error paths name fields, never union or intersection indexes', (t) => {
  const r = AuditEventInput.decode({ method: 'PATCH', status_code: 99, user_roles: ['a', 3] });
  if (!isLeft(r)) return t.fail();
  const details = describeErrors(r.left);
  t.deepEqual(details.map((d) => d.path).sort(), [
    'environment',
    'identifier',
    'method',
    'path',
    'service_name',
    'status_code',
    'user_roles.1',
  ]);
  t.is(details.find((d) => d.path === 'path')?.message, 'is required');
  t.is(details.find((d) => d.path === 'status_code')?.message, 'must be an integer from 100 to 599');
  t.is(details.find((d) => d.path === 'user_roles.1')?.message, 'must be a string');
});

test(
  'the stored event: id, event_type, receive time, ' + 'project, default source, masked bodies, no absent fields',
  (t) => {
    const r = AuditEventInput.decode({
      ...valid,
      user_email: null,
      request_body: { password: 'p', card: '4111111111111111' },
      response_body: { token: 't' },
      query_params: { secret: 's' },
      path_params: { pwd: 'x' },
    });
    if (!isRight(r)) return t.fail();
    const at = new Date('2026-03-01T10:00:00Z');
    const stored = toStoredAuditEvent('project-1', r.right, at);
    t.regex(stored.id, /^[0-9a-f-]{36}$/);
    t.is(stored.event_type, 'http');
    t.is(stored.timestamp, '2026-03-01T10:00:00.000Z');
    t.is(stored.project_id, 'project-1');
    t.is(stored.source, 'backend');
    t.deepEqual(stored.request_body, { password: '********', card: '************1111' });
    t.deepEqual(stored.response_body, { token: '********' });
    t.deepEqual(stored.query_params, { secret: '********' });
    t.deepEqual(stored.path_params, { pwd: '********' });
    t.false('user_email' in JSON.parse(JSON.stringify(stored)));
    t.not(toStoredAuditEvent('project-1', r.right, at).id, stored.id);
  },
);
