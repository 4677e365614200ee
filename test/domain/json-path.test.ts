import test from 'ava';
import { JsonPathError, parseJsonPath, queryJson } from '../../src/domain/json-path.ts';
import type { MonitorSettings } from '../../src/domain/monitor.ts';
import { settingsIssues } from '../../src/domain/monitor-rules.ts';

const doc = {
  status: 'ok',
  version: 3,
  'odd name': { "it's": true, 'say "hi"': 'hello' },
  items: [
    { id: 1, status: 'ok', tags: ['a', 'b'] },
    { id: 2, status: 'degraded', tags: [] },
    { id: 3, status: 'ok', nested: { status: 'deep' } },
  ],
  'with-dash': null,
  $ref: 'x',
};

test('$ is the whole document', (t) => {
  t.deepEqual(queryJson(doc, '$'), [doc]);
  t.deepEqual(queryJson('text', '$'), ['text']);
});

test('members by dot and by bracket, in either quote, with escapes', (t) => {
  t.deepEqual(queryJson(doc, '$.status'), ['ok']);
  t.deepEqual(queryJson(doc, '$.version'), [3]);
  t.deepEqual(queryJson(doc, "$['status']"), ['ok']);
  t.deepEqual(queryJson(doc, '$["status"]'), ['ok']);
  t.deepEqual(queryJson(doc, "$['odd name']['it\\'s']"), [true]);
  t.deepEqual(queryJson(doc, '$["odd name"]["say \\"hi\\""]'), ['hello']);
  t.deepEqual(queryJson(doc, '$.with-dash'), [null], 'a null value is a match');
  t.deepEqual(queryJson(doc, '$.$ref'), ['x']);
});

test('indexes from the start and, negative, from the end; out of range matches nothing', (t) => {
  t.deepEqual(queryJson(doc, '$.items[0].id'), [1]);
  t.deepEqual(queryJson(doc, '$.items[-1].id'), [3]);
  t.deepEqual(queryJson(doc, '$.items[-3].id'), [1]);
  t.deepEqual(queryJson(doc, '$.items[3]'), []);
  t.deepEqual(queryJson(doc, '$.items[-4]'), []);
  t.deepEqual(queryJson(doc, '$.items[0].tags[1]'), ['b']);
});

test('wildcards: every element of an array, every member of an object, in document order', (t) => {
  t.deepEqual(queryJson(doc, '$.items[*].status'), ['ok', 'degraded', 'ok']);
  t.deepEqual(queryJson(doc, '$.items.*.id'), [1, 2, 3]);
  t.deepEqual(queryJson({ a: 1, b: [2], c: 'x' }, '$.*'), [1, [2], 'x']);
  t.deepEqual(queryJson({ a: 1 }, '$.a[*]'), [], 'a scalar has no members');
});

test('recursive descent finds a name at any depth', (t) => {
  t.deepEqual(queryJson(doc, '$..status'), ['ok', 'ok', 'degraded', 'ok', 'deep']);
  t.deepEqual(queryJson(doc, '$.items..tags[0]'), ['a']);
  t.deepEqual(queryJson({ a: [{ b: 1 }, { b: 2 }] }, '$..[0]'), [{ b: 1 }]);
  t.deepEqual(queryJson({ a: { b: 1 } }, '$..*'), [{ b: 1 }, 1]);
  t.deepEqual(queryJson({ a: { "x'": 1 } }, "$..['x\\'']"), [1]);
});

test('a segment that does not apply matches nothing', (t) => {
  t.deepEqual(queryJson(doc, '$.missing'), []);
  t.deepEqual(queryJson(doc, '$.items.id'), [], 'a member of an array');
  t.deepEqual(queryJson(doc, '$.status[0]'), [], 'an element of a string');
  t.deepEqual(queryJson(doc, '$.version.x'), []);
  t.deepEqual(queryJson({ constructor: 1 }, '$.toString'), [], 'own members only');
});

test('whether a path may match several values', (t) => {
  t.false(parseJsonPath('$.a[0]["b"]').multiple);
  t.true(parseJsonPath('$.a[*]').multiple);
  t.true(parseJsonPath('$..a').multiple);
});

test('a path outside the subset is an error saying where and why', (t) => {
  for (const [path, message] of [
    ['status', /at character 1: a path starts with \$/],
    ['$.', /at character 3: expected a member name/],
    ['$.a[', /expected a quoted name, a whole number or \*/],
    ["$['a", /unclosed quoted name/],
    ["$['a'", /expected \] after the quoted name/],
    ['$.a[?(@.b)]', /filters, slices and unions are not supported/],
    ['$.a[0:2]', /not supported/],
    ['$a', /at character 2: expected \. or \[/],
    ["$['a\\b']", /expected ' or \\ after \\/],
  ] as const) {
    const error = t.throws(() => parseJsonPath(path), { instanceOf: JsonPathError }, path);
    t.regex(error?.message ?? '', message, path);
  }
});

test('a deeply nested document is walked without overflowing the stack', (t) => {
  let deep: unknown = { leaf: 'found' };
  for (let i = 0; i < 100_000; i += 1) deep = [deep];
  t.deepEqual(queryJson(deep, '$..leaf'), ['found']);
});

test('a monitor whose json assertion has a path outside the subset is refused when saved', (t) => {
  const settings = (path: string): MonitorSettings => ({
    name: 'api',
    url: 'http://127.0.0.1/',
    interval_seconds: 60,
    timeout_seconds: 10,
    expected_status: 200,
    enabled: true,
    assertions: [{ source: 'json', path, op: 'exists' }],
  });
  t.deepEqual(settingsIssues(settings('$.items[*].status'), new Set(['assertions'])), []);
  t.deepEqual(settingsIssues(settings('$.items[?(@.ok)]'), new Set(['assertions'])), [
    {
      path: 'assertions.0.path',
      message:
        'invalid JSONPath "$.items[?(@.ok)]" at character 9: expected a quoted name, a whole number or * in brackets ' +
        '(filters, slices and unions are not supported)',
    },
  ]);
});
