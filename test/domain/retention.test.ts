import test from 'ava';
import { isRight } from 'fp-ts/lib/Either.js';
import { projectDecider } from '../../src/domain/project.ts';
import {
  ERASED_IDENTIFIER,
  PERSONAL_FIELDS,
  RetentionBody,
  eraseAuditEvent,
  expiredRangeOf,
  retentionCutoff,
} from '../../src/domain/retention.ts';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import { deciderSpec } from '../helpers/decider-spec.ts';

const P = '6b2c3d4e-5f60-4b7c-8d9e-0f1a2b3c4d01';

test('the cutoff is the given days before now, down to the hour', (t) => {
  t.is(retentionCutoff(new Date('2026-03-10T15:42:07.123Z'), 3).toISOString(), '2026-03-07T15:00:00.000Z');
  t.is(retentionCutoff(new Date('2026-03-10T00:00:00.000Z'), 1).toISOString(), '2026-03-09T00:00:00.000Z');
});

test('an erased event keeps what is not personal and loses every personal field', (t) => {
  const full: StoredAuditEvent = {
    id: 'e',
    project_id: P,
    event_type: 'http',
    timestamp: '2026-03-10T15:42:07.123Z',
    path: '/orders/:id',
    method: 'POST',
    identifier: 'ann',
    service_name: 'shop',
    environment: 'production',
    source: 'browser',
    status_code: 201,
    response_time: 12,
    user_email: 'ann@example.com',
    user_name: 'Ann',
    user_roles: ['buyer'],
    user_type: 'customer',
    tenant_id: 't1',
    ip: '203.0.113.9',
    user_agent: 'Firefox',
    request_id: 'r1',
    query_params: { q: 'ann' },
    path_params: { id: '42' },
    request_body: { card: 'x' },
    response_body: { ok: true },
    error_message: 'ann not found',
    session_id: 's1',
  };
  const erased = eraseAuditEvent(full);
  t.is(erased.identifier, ERASED_IDENTIFIER);
  for (const field of PERSONAL_FIELDS) t.false(field in erased, field);
  t.deepEqual(erased, {
    id: 'e',
    project_id: P,
    event_type: 'http',
    timestamp: full.timestamp,
    path: '/orders/:id',
    method: 'POST',
    identifier: ERASED_IDENTIFIER,
    service_name: 'shop',
    environment: 'production',
    source: 'browser',
    status_code: 201,
    response_time: 12,
    user_roles: ['buyer'],
    user_type: 'customer',
    tenant_id: 't1',
    request_id: 'r1',
    session_id: 's1',
  });
  t.deepEqual(eraseAuditEvent(erased), erased, 'erasing twice changes nothing more');
});

test('a page of a removal bounds the aggregates by its last row, the last page by the cutoff', (t) => {
  const base = {
    project_id: P,
    cutoff: '2026-03-07T15:00:00.000Z',
    through_position: '900',
    removed: 10,
    applied_at: '2026-03-10T15:42:07.123Z',
  };
  t.deepEqual(expiredRangeOf({ ...base, until: { timestamp: '2026-03-01T00:00:00.000Z', position: '12' } }), {
    project_id: P,
    cutoff: Date.parse(base.cutoff),
    through: '900',
    until: { ts: Date.parse('2026-03-01T00:00:00.000Z'), position: '12' },
    before: Date.parse('2026-03-01T00:00:00.000Z'),
  });
  t.deepEqual(expiredRangeOf(base), {
    project_id: P,
    cutoff: Date.parse(base.cutoff),
    through: '900',
    until: null,
    before: Date.parse(base.cutoff),
  });
});

test('retention days are null or 1 to 36500', (t) => {
  for (const ok of [null, 1, 36_500]) t.true(isRight(RetentionBody.decode({ retention_days: ok })), String(ok));
  for (const bad of [0, -1, 36_501, 1.5, '7', true])
    t.false(isRight(RetentionBody.decode({ retention_days: bad })), String(bad));
});

test('setting retention: only on a project that exists; the same value again records nothing', (t) => {
  const created = projectDecider.decide(
    { type: 'CreateProject', project_id: P, name: 'shop', at: 'now' },
    projectDecider.initialState,
  );
  const state = created.reduce(projectDecider.evolve, projectDecider.initialState);
  const set = projectDecider.decide({ type: 'SetRetention', project_id: P, retention_days: 30, at: 'later' }, state);
  t.deepEqual(set, [{ type: 'RetentionSet', data: { project_id: P, retention_days: 30, updated_at: 'later' } }]);
  const after = set.reduce(projectDecider.evolve, state);
  t.deepEqual(
    projectDecider.decide({ type: 'SetRetention', project_id: P, retention_days: 30, at: 'again' }, after),
    [],
  );
  t.throws(
    () =>
      projectDecider.decide(
        { type: 'SetRetention', project_id: P, retention_days: 30, at: 'x' },
        projectDecider.initialState,
      ),
    { message: /not found/ },
  );
});

test('an erasure request is recorded on a project that exists, and completed once', (t) => {
  const E = '8d4e5f60-7182-4d9e-8f01-2b3c4d5e6f01';
  const spec = deciderSpec(projectDecider);
  const created = { type: 'ProjectCreated', data: { project_id: P, name: 'shop', created_at: 'now' } } as const;
  const requested = {
    type: 'ErasureRequested',
    data: { project_id: P, erasure_id: E, identifier: 'ann', through_position: '9', requested_at: 'later' },
  } as const;
  const request = {
    type: 'RequestErasure',
    project_id: P,
    erasure_id: E,
    identifier: 'ann',
    through_position: '9',
    at: 'later',
  } as const;
  const record = {
    type: 'RecordErasure',
    project_id: P,
    erasure_id: E,
    identifier: 'ann',
    through_position: '9',
    erased: 4,
    at: 'done',
  } as const;
  const erased = {
    type: 'IdentifierErased',
    data: { project_id: P, erasure_id: E, identifier: 'ann', through_position: '9', erased: 4, erased_at: 'done' },
  } as const;
  spec(t).given([created]).when(request).then([requested]);
  spec(t).given([]).when(request).thenThrows({ code: 'not_found' });
  spec(t).given([created, requested]).when(request).thenThrows({ code: 'conflict' });
  spec(t).given([created, requested]).when(record).then([erased]);
  spec(t).given([created, requested, erased]).when(record).thenNothing();
  spec(t).given([created]).when(record).thenNothing();
});
