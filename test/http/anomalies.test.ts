import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import { api, login, projectWithKey, sampleEvent, startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let token: string;
let projectA: string;
let projectB: string;

/** Alerts are written by the audit-events projection from AnomalyDetected events (anomaly
 *  issue); here they are put into the read model as that projection would. */
const alert = (projectId: string, rule: string, service: string, minute: number): StoredAuditEvent => ({
  id: randomUUID(),
  project_id: projectId,
  event_type: 'system.alert',
  timestamp: new Date(Date.UTC(2026, 5, 1, 12, minute)).toISOString(),
  path: rule,
  method: 'POST',
  identifier: 'system',
  service_name: service,
  environment: 'production',
  source: 'backend',
  request_body: { rule, count: minute },
});

test.before(async () => {
  server = await startTestServer();
  token = await login(server.url);
  const a = await projectWithKey(server.url, token, 'a');
  const b = await projectWithKey(server.url, token, 'b');
  projectA = a.projectId;
  projectB = b.projectId;
  await api(server.url, 'POST', '/v1/audit', { apiKey: a.apiKey, body: sampleEvent() });
  const alerts = [
    alert(projectA, 'brute_force', 'auth', 1),
    alert(projectA, 'mass_delete', 'orders', 2),
    alert(projectA, 'brute_force', 'auth', 3),
    alert(projectB, 'error_rate', 'billing', 4),
  ];
  const recorded: RecordedEvent[] = alerts.map((_, i) => ({
    id: randomUUID(),
    type: 'AnomalyDetected',
    stream: 'anomalies',
    revision: i,
    position: String(1_000_000 + i),
    data: {},
    metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
  }));
  await server.runtime.readModels.stores.auditEvents.commit(recorded, (r, w) =>
    w.record(alerts[recorded.indexOf(r)]!, r.position),
  );
});
test.after.always(() => server.stop());

const anomalies = (query = '', t = token) => api(server.url, 'GET', `/v1/audit/anomalies${query}`, { token: t });

test('alerts only, newest first, paginated, with the rule fields', async (t) => {
  const res = await anomalies();
  t.is(res.status, 200);
  t.deepEqual(res.body.pagination, { page: 1, limit: 20, totalItems: 4, totalPage: 1 });
  t.deepEqual(
    res.body.data.map((e: { path: string }) => e.path),
    ['error_rate', 'brute_force', 'mass_delete', 'brute_force'],
  );
  t.true(
    res.body.data.every(
      (e: { event_type: string; identifier: string }) => e.event_type === 'system.alert' && e.identifier === 'system',
    ),
  );
  t.deepEqual(res.body.data[1].request_body, { rule: 'brute_force', count: 3 });
  const page2 = await anomalies('?limit=3&page=2');
  t.is(page2.body.data.length, 1);
  t.is(page2.body.pagination.totalPage, 2);
});

test('filters: project_id, service_name, rule, dates', async (t) => {
  t.is((await anomalies(`?project_id=${projectB}`)).body.pagination.totalItems, 1);
  t.is((await anomalies('?rule=brute_force')).body.pagination.totalItems, 2);
  t.is((await anomalies('?service_name=orders')).body.data[0].path, 'mass_delete');
  t.is(
    (await anomalies('?start_date=2026-06-01T12:02:00Z&end_date=2026-06-01T12:03:00Z')).body.pagination.totalItems,
    2,
  );
  t.is((await anomalies('?rule=volume_spike')).body.pagination.totalItems, 0);
});

test('bad values are 400; a member sees only its projects', async (t) => {
  const bad = await anomalies('?rule=nope&limit=500&project_id=x');
  t.is(bad.status, 400);
  t.deepEqual(bad.body.error.details.map((d: { path: string }) => d.path).sort(), ['limit', 'project_id', 'rule']);
  await api(server.url, 'POST', '/v1/users', {
    token,
    body: { email: 'b-only@example.com', password: 'b-only-password', role: 'member', project_ids: [projectB] },
  });
  const member = await login(server.url, 'b-only@example.com', 'b-only-password');
  const scoped = await anomalies('', member);
  t.deepEqual(
    scoped.body.data.map((e: { project_id: string }) => e.project_id),
    [projectB],
  );
  t.is((await anomalies(`?project_id=${projectA}`, member)).status, 404, 'a project the member cannot see');
  t.is((await api(server.url, 'GET', '/v1/audit/anomalies')).status, 401);
});
