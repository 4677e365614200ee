import test from 'ava';
import { parse } from 'csv-parse/sync';
import { randomUUID } from 'node:crypto';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import {
  api,
  caughtUp,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

/** The CSV columns as docs/api.md (Export) promises them, in this order. */
const DOCUMENTED_COLUMNS = [
  'id',
  'timestamp',
  'project_id',
  'event_type',
  'method',
  'path',
  'status_code',
  'response_time',
  'identifier',
  'service_name',
  'environment',
  'source',
  'user_email',
  'user_name',
  'user_roles',
  'user_type',
  'tenant_id',
  'ip',
  'user_agent',
  'request_id',
  'session_id',
  'error_message',
  'query_params',
  'path_params',
  'request_body',
  'response_body',
];

let server: TestServer;
let token: string;
let main: { projectId: string; apiKey: string };
let other: { projectId: string; apiKey: string };
let guarded: { projectId: string; apiKey: string };

test.before(async () => {
  server = await startTestServer({ now: () => new Date('2026-05-17T08:00:00.000Z') });
  token = await login(server.url);
  main = await projectWithKey(server.url, token, 'main');
  other = await projectWithKey(server.url, token, 'other');
  const bodies = [
    sampleEvent({
      path: '=HYPERLINK("http://evil")',
      identifier: '+41 79',
      user_name: '@admin',
      error_message: '-1 error',
    }),
    sampleEvent({
      path: '/a,b',
      user_agent: 'say "hi"\nnext line',
      user_name: 'Zoë 🚀',
      method: 'DELETE',
      request_body: { password: 'p', note: '=1+1' },
    }),
    sampleEvent({ path: '/plain', user_roles: ['admin', 'ops'], query_params: { q: 'x' } }),
  ];
  for (const body of bodies) await api(server.url, 'POST', '/v1/audit', { apiKey: main.apiKey, body });
  await api(server.url, 'POST', '/v1/audit', { apiKey: other.apiKey, body: sampleEvent({ path: '/other' }) });
  guarded = await projectWithKey(server.url, token, 'csv-guard');
  await api(server.url, 'POST', '/v1/audit', {
    apiKey: guarded.apiKey,
    body: sampleEvent({
      path: '\t=1+2',
      identifier: '\r=HYPERLINK("http://evil")',
      user_name: '\uFF1D1+2',
      user_agent: 'a;=1+1',
      error_message: '@SUM(1)',
    }),
  });
  await caughtUp(server, ['auditEvents']);
  const listed = (await api(server.url, 'GET', '/v1/audit?event_type=http', { token })).body.pagination.totalItems;
  if (listed !== 5) throw new Error(`5 events sent, ${listed} listed`);
});
test.after.always(() => server.stop());

const download = async (query: string, t = token) => {
  const res = await fetch(`${server.url}/v1/audit/export${query}`, { headers: { authorization: `Bearer ${t}` } });
  return { res, text: await res.text() };
};

test('CSV: attachment with the date, documented columns, RFC 4180 quoting, formula guard, UTF-8', async (t) => {
  const { res, text } = await download(`?project_id=${main.projectId}`);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.regex(res.headers.get('content-disposition') ?? '', /^attachment; filename="watchlog-audit-2026-05-17\.csv"$/);
  t.is(res.headers.get('x-export-total'), '3');
  t.is(res.headers.get('x-export-truncated'), null);
  const rows = parse(text, { columns: true }) as Array<Record<string, string>>;
  t.deepEqual(Object.keys(rows[0]!), DOCUMENTED_COLUMNS);
  t.is(rows.length, 3);
  const byPath = (p: string) => rows.find((r) => r.path === p)!;
  const evil = byPath(`'=HYPERLINK("http://evil")`);
  t.truthy(evil, 'a cell starting with = is prefixed with a quote');
  t.is(evil.identifier, "'+41 79");
  t.is(evil.user_name, "'@admin");
  t.is(evil.error_message, "'-1 error");
  const quoted = byPath('/a,b');
  t.is(quoted.user_agent, 'say "hi"\nnext line');
  t.is(quoted.user_name, 'Zoë 🚀');
  t.deepEqual(JSON.parse(quoted.request_body!), { password: '********', note: '=1+1' });
  t.is(byPath('/plain').user_roles, '["admin","ops"]');
  t.is(byPath('/plain').status_code, '201');
  t.is(byPath('/plain').session_id, '');
});

test('CSV: cells starting with tab or carriage return are guarded too; every text cell is quoted', async (t) => {
  const { res, text } = await download(`?project_id=${guarded.projectId}`);
  t.is(res.status, 200);
  const [row] = parse(text, { columns: true }) as Array<Record<string, string>>;
  t.is(row!.path, "'\t=1+2");
  t.is(row!.identifier, '\'\r=HYPERLINK("http://evil")');
  t.is(row!.user_name, "'\uFF1D1+2");
  t.is(row!.error_message, "'@SUM(1)");
  t.is(row!.status_code, '201');
  // Quoted, a cell stays one cell for a spreadsheet that splits on ";" (so "=1+1" never starts one).
  t.true(text.includes('"a;=1+1"'));
  t.true(text.includes(`"'\t=1+2"`));
  t.true(text.includes(`"${guarded.projectId}"`));
});

test('JSON: a streamed array of full events; filters and scope as in the list', async (t) => {
  const { res, text } = await download('?format=json&method=DELETE');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.regex(res.headers.get('content-disposition') ?? '', /filename="watchlog-audit-2026-05-17\.json"/);
  const events = JSON.parse(text) as StoredAuditEvent[];
  t.is(events.length, 1);
  t.is(events[0]!.path, '/a,b');
  t.deepEqual(events[0]!.request_body, { password: '********', note: '=1+1' });
  t.deepEqual(JSON.parse((await download('?format=json&start_date=2030-01-01T00:00:00Z')).text), []);
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'exp@example.com', password: 'exp-password', role: 'member', project_ids: [other.projectId] },
  });
  const member = await login(server.url, 'exp@example.com', 'exp-password');
  const scoped = JSON.parse((await download('?format=json', member)).text) as StoredAuditEvent[];
  t.deepEqual(
    scoped.map((e) => e.path),
    ['/other'],
  );
});

test('bad parameters are 400; no token is 401', async (t) => {
  const bad = await api(server.url, 'GET', '/v1/audit/export?format=xml&status_code=abc', { token });
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['format', 'status_code']);
  t.is((await api(server.url, 'GET', '/v1/audit/export')).status, 401);
});

test('exactly 100000 events export whole; 100001 are cut to 100000 and say so', async (t) => {
  const { projectId } = await projectWithKey(server.url, token, 'bulk');
  const seed = async (count: number, offset: number) => {
    for (let start = 0; start < count; start += 10_000) {
      const n = Math.min(10_000, count - start);
      const batch: Array<{ r: RecordedEvent; e: StoredAuditEvent }> = Array.from({ length: n }, (_, i) => {
        const k = offset + start + i;
        return {
          r: {
            id: randomUUID(),
            type: 'AuditEventRecorded',
            stream: 'bulk',
            revision: k,
            position: String(10_000_000 + k),
            data: {},
            metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
          },
          e: {
            id: randomUUID(),
            project_id: projectId,
            event_type: 'http',
            timestamp: new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString(),
            path: `/bulk/${k}`,
            method: 'GET',
            identifier: 'u',
            service_name: 'bulk',
            environment: 'production',
            source: 'backend',
          },
        };
      });
      await server.runtime.readModels.stores.auditEvents.commit(
        batch.map((b) => b.r),
        (r, w) => w.record(batch[Number(r.revision) - offset - start]!.e, r.position),
      );
    }
  };
  const lines = (text: string) => text.split('\n').filter((l) => l.length > 0).length - 1;
  await seed(100_000, 0);
  const whole = await download(`?project_id=${projectId}`);
  t.is(whole.res.headers.get('x-export-total'), '100000');
  t.is(whole.res.headers.get('x-export-truncated'), null);
  t.is(lines(whole.text), 100_000);
  await seed(1, 100_000);
  const cut = await download(`?project_id=${projectId}`);
  t.is(cut.res.headers.get('x-export-total'), '100001');
  t.is(cut.res.headers.get('x-export-truncated'), 'true');
  t.is(lines(cut.text), 100_000);
  t.true(cut.text.includes('/bulk/100000'), 'newest first: the cut drops the oldest');
  t.false(cut.text.includes('"/bulk/0"'));
});
