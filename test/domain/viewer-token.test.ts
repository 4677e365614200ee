import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import {
  ViewerTokenRequest,
  grantOf,
  viewerClaims,
  viewerFilter,
  viewerQueryProblem,
  viewerSees,
  withoutHidden,
} from '../../src/domain/viewer-token.ts';

const NOW = new Date('2026-12-06T12:00:00.000Z');
const grant = (request: Partial<ViewerTokenRequest> = {}) =>
  grantOf(
    viewerClaims('p-1', { tenant_id: 'acme', ...request }, ['https://b.example', 'https://a.example'], NOW, 'j-1'),
  );

test('claims: an hour by default, at most a day; origins sorted once; fields once', (t) => {
  const claims = viewerClaims('p-1', { tenant_id: 'acme', fields: ['ip', 'ip'] }, ['https://b', 'https://b'], NOW, 'j');
  t.is(claims.exp - claims.iat, 3600);
  t.deepEqual(claims.hide, ['ip']);
  t.deepEqual(claims.orig, ['https://b']);
  t.true(isRight(ViewerTokenRequest.decode({ tenant_id: 'a', expires_in: 86_400 })));
  t.true(isLeft(ViewerTokenRequest.decode({ tenant_id: 'a', expires_in: 86_401 })));
  t.true(isLeft(ViewerTokenRequest.decode({ tenant_id: 'a', fields: ['identifier'] })), 'the identifier stays');
  t.true(isLeft(ViewerTokenRequest.decode({ tenant_id: '' })));
  t.true(isLeft(ViewerTokenRequest.decode({ tenant_id: 'a', extra: 1 })));
});

test('filters: the grant replaces the tenant and identifier; another one asked is refused, never widened', (t) => {
  const asked: { method: string; tenant_id?: string } = { method: 'GET' };
  t.deepEqual(viewerFilter(grant(), asked), { method: 'GET', tenant_id: 'acme' });
  t.deepEqual(viewerFilter(grant(), { tenant_id: 'acme', identifier: 'x' }), { tenant_id: 'acme', identifier: 'x' });
  t.is(viewerFilter(grant(), { tenant_id: 'globex' }), null);
  const narrow = grant({ identifier: 'ann' });
  t.deepEqual(viewerFilter(narrow, {}), { tenant_id: 'acme', identifier: 'ann' });
  t.is(viewerFilter(narrow, { identifier: 'bob' }), null);
});

test('an event is seen only in its project, tenant and (when narrowed) identifier', (t) => {
  const mine = { project_id: 'p-1', tenant_id: 'acme', identifier: 'ann' };
  t.true(viewerSees(grant(), mine));
  t.false(viewerSees(grant(), { ...mine, project_id: 'p-2' }));
  t.false(viewerSees(grant(), { ...mine, tenant_id: 'globex' }));
  t.false(viewerSees(grant(), { project_id: 'p-1', identifier: 'ann' }), 'no tenant is not the tenant');
  t.false(viewerSees(grant({ identifier: 'bob' }), mine));
});

test('hidden fields: left out of records, null in list items', (t) => {
  const g = grant({ fields: ['ip', 'user_email'] });
  t.deepEqual(withoutHidden(g, { id: '1', ip: '10.0.0.1', user_email: 'a@b', path: '/' }), { id: '1', path: '/' });
  t.deepEqual(withoutHidden(g, { id: '1', user_email: 'a@b' }, true), { id: '1', user_email: null });
  const record = { id: '1' };
  t.is(withoutHidden(grant(), record), record, 'nothing hidden: the record as it is');
});

test('a search or an order may not reach a hidden field', (t) => {
  const words = [{ kind: 'text' }];
  t.is(viewerQueryProblem(grant({ fields: ['ip'] }), words), null, 'ip is not searched');
  t.like(viewerQueryProblem(grant({ fields: ['response_body'] }), words), { path: 'q' });
  t.is(viewerQueryProblem(grant({ fields: ['response_body'] }), [{ kind: 'field', field: 'path' }]), null);
  t.like(viewerQueryProblem(grant({ fields: ['user_email'] }), [{ kind: 'field', field: 'user_email' }]), {
    path: 'q',
  });
  t.like(viewerQueryProblem(grant({ fields: ['response_time'] }), [], 'response_time'), { path: 'sort_by' });
  t.is(viewerQueryProblem(grant(), words, 'response_time'), null);
});
