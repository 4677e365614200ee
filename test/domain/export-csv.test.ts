import test from 'ava';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import { CSV_COLUMNS, guardFormula, toCsvRow } from '../../src/domain/export-csv.ts';

// Each row: a cell as stored, and the cell as exported.
const GUARDED: Array<[string, string, string]> = [
  ['equals', '=1+2', "'=1+2"],
  ['plus', '+41 79 000 00 00', "'+41 79 000 00 00"],
  ['minus', '-1 error', "'-1 error"],
  ['at', '@SUM(A1:A2)', "'@SUM(A1:A2)"],
  ['tab', '\t=1+2', "'\t=1+2"],
  ['carriage return', '\r=1+2', "'\r=1+2"],
  ['tab alone', '\t', "'\t"],
  ['carriage return then line feed', '\r\n=HYPERLINK("http://evil")', '\'\r\n=HYPERLINK("http://evil")'],
  ['full-width equals', '\uFF1D1+2', "'\uFF1D1+2"],
  ['full-width plus', '\uFF0B1', "'\uFF0B1"],
  ['full-width minus', '\uFF0D1', "'\uFF0D1"],
  ['full-width at', '\uFF20SUM(1)', "'\uFF20SUM(1)"],
  ['DDE payload', "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
];

const UNTOUCHED: Array<[string, string]> = [
  ['empty', ''],
  ['plain text', 'GET /orders'],
  ['formula character inside', 'a=1+2'],
  ['leading space', ' =1+2'],
  ['line feed first', '\n=1+2'],
  ['a quote first', "'=1"],
  ['digits', '12345'],
  ['unicode text', 'Zoë 🚀'],
];

test('a cell starting with an OWASP formula character gets a single quote in front, the rest kept as is', (t) => {
  for (const [name, cell, exported] of GUARDED) {
    t.is(guardFormula(cell), exported, name);
    t.is(guardFormula(cell).slice(1), cell, `${name}: the stored value follows the quote unchanged`);
  }
});

test('any other cell is exported unchanged', (t) => {
  for (const [name, cell] of UNTOUCHED) t.is(guardFormula(cell), cell, name);
});

test('rows guard every text column; numbers and JSON columns are written as they are', (t) => {
  const event: StoredAuditEvent = {
    id: 'e1',
    project_id: 'p1',
    event_type: 'http',
    timestamp: '2026-01-01T00:00:00.000Z',
    path: '\t=1+2',
    method: 'GET',
    identifier: '\r=2',
    service_name: '@svc',
    environment: 'production',
    source: 'backend',
    user_name: '-x',
    user_agent: 'ok',
    error_message: '\uFF1Dboom',
    status_code: 200,
    response_time: 0,
    user_roles: ['=admin'],
    request_body: { note: '=1' },
  };
  const row = Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, toCsvRow(event)[i]]));
  t.is(row.path, "'\t=1+2");
  t.is(row.identifier, "'\r=2");
  t.is(row.service_name, "'@svc");
  t.is(row.user_name, "'-x");
  t.is(row.error_message, "'\uFF1Dboom");
  t.is(row.user_agent, 'ok');
  t.is(row.status_code, '200');
  t.is(row.response_time, '0');
  t.is(row.user_roles, '["=admin"]', 'JSON starts with [ or {, never a formula character');
  t.is(row.request_body, '{"note":"=1"}');
  t.is(row.tenant_id, '');
});
