import test from 'ava';
import { isLeft, isRight } from 'fp-ts/lib/Either.js';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import {
  MAX_TERMS,
  PathMatchFromString,
  SearchQueryFromString,
  SearchSyntaxError,
  parseSearch,
  pathFilterOf,
  searchTextOf,
  tokensOf,
} from '../../src/domain/search.ts';

test('words are runs of letters and digits, lower-cased, without diacritics', (t) => {
  t.deepEqual(tokensOf('Jane.Doe@Example.com /orders/42 Café'), [
    'jane',
    'doe',
    'example',
    'com',
    'orders',
    '42',
    'cafe',
  ]);
  t.deepEqual(tokensOf('  --  '), []);
});

test('words, phrases and exclusions', (t) => {
  t.deepEqual(parseSearch('timeout "payment declined" -retry').terms, [
    { kind: 'text', tokens: ['timeout'], negated: false },
    { kind: 'text', tokens: ['payment', 'declined'], negated: false },
    { kind: 'text', tokens: ['retry'], negated: true },
  ]);
  // A word that punctuation splits is the phrase of its parts, as the text it is found in.
  t.deepEqual(parseSearch('jane@example.com').terms, [
    { kind: 'text', tokens: ['jane', 'example', 'com'], negated: false },
  ]);
  t.deepEqual(parseSearch('-"card declined"').terms, [{ kind: 'text', tokens: ['card', 'declined'], negated: true }]);
});

test('fields: exact values, prefixes, status codes and classes, aliases, exclusion', (t) => {
  t.deepEqual(parseSearch('path:/orders* user_email:jane@* method:delete status:5xx').terms, [
    { kind: 'field', field: 'path', value: '/orders', prefix: true, negated: false },
    { kind: 'field', field: 'user_email', value: 'jane@', prefix: true, negated: false },
    { kind: 'field', field: 'method', value: 'DELETE', prefix: false, negated: false },
    { kind: 'status', from: 500, to: 599, negated: false },
  ]);
  t.deepEqual(parseSearch('-status:404 service:billing tenant:"acme corp" -path:/health').terms, [
    { kind: 'status', from: 404, to: 404, negated: true },
    { kind: 'field', field: 'service_name', value: 'billing', prefix: false, negated: false },
    { kind: 'field', field: 'tenant_id', value: 'acme corp', prefix: false, negated: false },
    { kind: 'field', field: 'path', value: '/health', prefix: false, negated: true },
  ]);
  t.deepEqual(parseSearch('path:/a:b').terms, [
    { kind: 'field', field: 'path', value: '/a:b', prefix: false, negated: false },
  ]);
});

test('a blank query has no terms', (t) => {
  t.deepEqual(parseSearch('   ').terms, []);
});

test('malformed queries say what is wrong', (t) => {
  const wrong = (q: string, message: RegExp) =>
    t.throws(() => parseSearch(q), { instanceOf: SearchSyntaxError, message }, q);
  wrong('"never closed', /quote at character 1 that is never closed/);
  wrong('colour:red', /unknown field "colour"/);
  wrong('path:', /no value after "path:"/);
  wrong('path:/a*b', /\* may only end a value/);
  wrong('status:5x', /status is a code \(404\) or a class \(5xx\)/);
  wrong('status:700', /status is a code/);
  wrong('status:5*', /status takes a class/);
  wrong('method:GE*', /method takes no prefix/);
  wrong('order*', /a prefix \(\*\) is for field values/);
  wrong('--', /no letter or digit/);
  wrong('a"b"c', /stray quote/);
  wrong('x'.repeat(501), /longer than 500 characters/);
  wrong(Array.from({ length: MAX_TERMS + 1 }, (_, i) => `w${i}`).join(' '), /more than 20 terms/);
});

test('the q codec decodes to the parsed query and fails with the parser message', (t) => {
  const ok = SearchQueryFromString.decode('path:/orders*');
  t.true(isRight(ok));
  if (isRight(ok)) t.is(SearchQueryFromString.encode(ok.right), 'path:/orders*');
  const bad = SearchQueryFromString.decode('colour:red');
  t.true(isLeft(bad));
  if (isLeft(bad)) t.regex(bad.left[0]!.message ?? '', /unknown field "colour"/);
});

test('a path filter is exact, or a prefix when it ends with *', (t) => {
  const decode = (s: string) => {
    const r = PathMatchFromString.decode(s);
    return isRight(r) ? pathFilterOf(r.right) : 'invalid';
  };
  t.deepEqual(decode('/orders'), { path: '/orders' });
  t.deepEqual(decode('/orders*'), { path_prefix: '/orders' });
  t.is(decode(''), 'invalid');
});

test("an event's search text: its text fields and its bodies' keys and values, as stored", (t) => {
  const event: StoredAuditEvent = {
    id: 'e',
    project_id: 'p',
    event_type: 'http',
    timestamp: '2026-01-01T00:00:00.000Z',
    path: '/orders/42',
    method: 'POST',
    identifier: 'user-7',
    service_name: 'shop',
    environment: 'production',
    source: 'backend',
    user_email: 'jane@example.com',
    user_name: 'Jane Doe',
    error_message: 'Payment declined',
    user_agent: 'curl/8.0',
    request_body: { password: '********', card: '************1111', items: [{ sku: 'ABC' }] },
    response_body: { ok: false },
    tenant_id: 'not-searched',
  };
  t.is(
    searchTextOf(event),
    'orders 42 user 7 jane example com jane doe payment declined curl 8 0 ' +
      'password card 1111 items sku abc ok false',
  );
});
