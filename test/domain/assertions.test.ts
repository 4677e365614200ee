import test from 'ava';
import { evaluateAssertion, judgeAssertion } from '../../src/domain/assertions.ts';
import type { Observation } from '../../src/domain/check-judge.ts';
import type { Assertion } from '../../src/domain/monitor-options.ts';

const observation: Observation = {
  checked_at: '2026-12-01T00:00:00.000Z',
  response_ms: 120,
  status_code: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-count': '42' },
  body: JSON.stringify({ status: 'ok', count: 3, text: '3', items: [{ s: 'ok' }, { s: 'bad' }], tags: ['a', 'b'] }),
  certificate: {
    valid_from: '2026-11-01T00:00:00.000Z',
    valid_to: '2026-12-06T12:00:00.000Z',
    issuer: 'CN=test',
    subject: 'CN=localhost',
    names: ['localhost'],
  },
  dns_records: ['10.0.0.1', 'v=spf1 -all'],
};

const verdict = (a: Assertion, o: Observation = observation) => judgeAssertion(a, o);
const passes = (t: import('ava').ExecutionContext, a: Assertion, o?: Observation) =>
  t.true(verdict(a, o).result.passed, JSON.stringify(a));
const fails = (t: import('ava').ExecutionContext, a: Assertion, text: string, o?: Observation) => {
  const { result, failure } = verdict(a, o);
  t.false(result.passed, JSON.stringify(a));
  t.is(failure, text);
};

test('the result names the assertion and what was received', (t) => {
  t.deepEqual(evaluateAssertion({ source: 'json', path: '$.status', op: 'equals', value: 'ok' }, observation), {
    source: 'json',
    path: '$.status',
    op: 'equals',
    value: 'ok',
    passed: true,
    received: '"ok"',
  });
  t.deepEqual(evaluateAssertion({ source: 'status', op: 'exists' }, observation), {
    source: 'status',
    op: 'exists',
    passed: true,
    received: '200',
  });
  t.is(verdict({ source: 'status', op: 'equals', value: 200 }).failure, null);
});

test('numeric sources: equals, not_equals and the orderings, numerically', (t) => {
  passes(t, { source: 'status', op: 'equals', value: 200 });
  passes(t, { source: 'status', op: 'equals', value: '200' });
  fails(t, { source: 'status', op: 'equals', value: 201 }, 'status equals 201: got 200');
  passes(t, { source: 'status', op: 'not_equals', value: 500 });
  fails(t, { source: 'status', op: 'not_equals', value: 200 }, 'status not_equals 200: got 200');
  passes(t, { source: 'response_time', op: 'lt', value: 121 });
  fails(t, { source: 'response_time', op: 'lt', value: 120 }, 'response_time lt 120: got 120');
  passes(t, { source: 'response_time', op: 'lte', value: 120 });
  passes(t, { source: 'response_time', op: 'gt', value: 119 });
  fails(t, { source: 'response_time', op: 'gte', value: 500 }, 'response_time gte 500: got 120');
  passes(t, { source: 'certificate_expiry_days', op: 'equals', value: 5 });
  fails(t, { source: 'certificate_expiry_days', op: 'gt', value: 14 }, 'certificate_expiry_days gt 14: got 5');
});

test('a value that is not there: exists fails, not_exists passes, every comparison fails', (t) => {
  const bare: Observation = { checked_at: observation.checked_at, response_ms: 5, status_code: 200 };
  fails(t, { source: 'certificate_expiry_days', op: 'exists' }, 'certificate_expiry_days exists: got nothing', bare);
  passes(t, { source: 'certificate_expiry_days', op: 'not_exists' }, bare);
  fails(
    t,
    { source: 'certificate_expiry_days', op: 'lt', value: 3 },
    'certificate_expiry_days lt 3: got nothing',
    bare,
  );
  fails(
    t,
    { source: 'header', path: 'X-Missing', op: 'not_equals', value: 'a' },
    'header X-Missing not_equals "a": got nothing',
  );
  passes(t, { source: 'header', path: 'x-missing', op: 'not_exists' });
  fails(t, { source: 'json', path: '$.missing', op: 'exists' }, 'json $.missing exists: got nothing');
  passes(t, { source: 'json', path: '$.missing', op: 'not_exists' });
  fails(t, { source: 'body', op: 'exists' }, 'body exists: got nothing', bare);
});

test('body and header: text, quoted in the failure', (t) => {
  passes(t, { source: 'body', op: 'contains', value: '"status":"ok"' });
  fails(
    t,
    { source: 'body', op: 'contains', value: 'maintenance' },
    `body contains "maintenance": got ${JSON.stringify(observation.body)}`,
  );
  passes(t, { source: 'body', op: 'not_contains', value: 'maintenance' });
  fails(
    t,
    { source: 'body', op: 'not_contains', value: 'ok' },
    `body not_contains "ok": got ${JSON.stringify(observation.body)}`,
  );
  passes(t, { source: 'body', op: 'matches', value: '"count":\\d+' });
  fails(
    t,
    { source: 'body', op: 'matches', value: '^ok$' },
    `body matches "^ok$": got ${JSON.stringify(observation.body)}`,
  );
  passes(t, { source: 'header', path: 'Content-Type', op: 'contains', value: 'application/json' });
  passes(t, { source: 'header', path: 'x-count', op: 'equals', value: '42' });
  passes(t, { source: 'header', path: 'x-count', op: 'equals', value: 42 });
  passes(t, { source: 'header', path: 'x-count', op: 'gte', value: 42 });
  fails(
    t,
    { source: 'header', path: 'content-type', op: 'lt', value: 1 },
    'header content-type lt 1: got "application/json; charset=utf-8"',
  );
  fails(t, { source: 'header', path: 'x-count', op: 'equals', value: '41' }, 'header x-count equals "41": got "42"');
  passes(t, { source: 'header', path: 'x-count', op: 'exists' });
});

test('json: strings as they are, other values by their JSON text', (t) => {
  fails(
    t,
    { source: 'json', path: '$.status', op: 'equals', value: 'ok' },
    'json $.status equals "ok": got "degraded"',
    { ...observation, body: '{"status":"degraded"}' },
  );
  passes(t, { source: 'json', path: '$.count', op: 'equals', value: 3 });
  passes(t, { source: 'json', path: '$.count', op: 'equals', value: 3 }, { ...observation, body: '{"count":3.0}' });
  fails(t, { source: 'json', path: '$.count', op: 'equals', value: '3' }, 'json $.count equals "3": got 3');
  passes(t, { source: 'json', path: '$.text', op: 'equals', value: '3' });
  fails(t, { source: 'json', path: '$.text', op: 'equals', value: 3 }, 'json $.text equals 3: got "3"');
  passes(t, { source: 'json', path: '$.text', op: 'lt', value: 4 });
  passes(t, { source: 'json', path: '$.count', op: 'not_equals', value: '3' });
  passes(t, { source: 'json', path: '$.tags', op: 'contains', value: 'b' });
  passes(t, { source: 'json', path: '$.tags', op: 'not_contains', value: 'c' });
  passes(t, { source: 'json', path: '$.status', op: 'contains', value: 'o' });
  passes(t, { source: 'json', path: '$.items[0]', op: 'contains', value: 'ok' });
  passes(t, { source: 'json', path: '$.count', op: 'matches', value: '^3$' });
  passes(t, { source: 'json', path: '$', op: 'exists' });
  passes(t, { source: 'json', path: '$.n', op: 'equals', value: null }, { ...observation, body: '{"n":null}' });
  passes(t, { source: 'json', path: '$.b', op: 'equals', value: true }, { ...observation, body: '{"b":true}' });
});

test('several values: positive ops pass when any does, negated ones when none does', (t) => {
  passes(t, { source: 'json', path: '$.items[*].s', op: 'equals', value: 'bad' });
  fails(
    t,
    { source: 'json', path: '$.items[*].s', op: 'not_equals', value: 'bad' },
    'json $.items[*].s not_equals "bad": got ["ok","bad"]',
  );
  passes(t, { source: 'json', path: '$..s', op: 'not_contains', value: 'x' });
  passes(t, { source: 'dns_records', op: 'equals', value: '10.0.0.1' });
  passes(t, { source: 'dns_records', op: 'contains', value: 'spf1' });
  fails(
    t,
    { source: 'dns_records', op: 'contains', value: 'google-site' },
    'dns_records contains "google-site": got ["10.0.0.1","v=spf1 -all"]',
  );
  passes(t, { source: 'dns_records', op: 'not_contains', value: 'google-site' });
  fails(
    t,
    { source: 'dns_records', op: 'not_equals', value: '10.0.0.1' },
    'dns_records not_equals "10.0.0.1": got ["10.0.0.1","v=spf1 -all"]',
  );
  passes(t, { source: 'dns_records', op: 'matches', value: '^10\\.' });
  passes(t, { source: 'dns_records', op: 'exists' });
  fails(t, { source: 'dns_records', op: 'not_exists' }, 'dns_records not_exists: got ["10.0.0.1","v=spf1 -all"]');
});

test('a body that is not JSON, and an invalid path, fail saying why', (t) => {
  fails(t, { source: 'json', path: '$.a', op: 'exists' }, 'json $.a exists: got nothing (the body is not JSON)', {
    ...observation,
    body: '<html>',
  });
  fails(
    t,
    { source: 'json', path: '$.a', op: 'exists' },
    'json $.a exists: got nothing (the body is not JSON: it was cut short)',
    { ...observation, body: '{"a":', body_truncated: true },
  );
  const { failure } = verdict({ source: 'json', path: '$.a[', op: 'exists' });
  t.regex(failure ?? '', /^json \$\.a\[ exists: got nothing \(invalid JSONPath "\$\.a\[" at character 5: /);
  t.regex(
    verdict({ source: 'body', op: 'matches', value: '(' }).failure ?? '',
    /^body matches "\(": got ".*" \(invalid pattern: /,
  );
});

test('received is shortened to 200 characters', (t) => {
  const body = 'x'.repeat(1000);
  const { result } = verdict({ source: 'body', op: 'contains', value: 'y' }, { ...observation, body });
  t.is(result.received?.length, 200);
  t.true(result.received?.endsWith('…'));
});
