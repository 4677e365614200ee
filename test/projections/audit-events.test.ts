import { auditEventsProjection } from '../../projections/audit-events.ts';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import type { DomainEvent, EventData } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { ERASED_IDENTIFIER, eraseAuditEvent } from '../../src/domain/retention.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(auditEventsProjection, (m) => m.stores.auditEvents);

const [P, Q, MONITOR, ALERT, URL, REFUSED] = [
  '1c9e7a40-2b3d-4e5f-8a6b-7c8d9e0f1a01',
  '1c9e7a40-2b3d-4e5f-8a6b-7c8d9e0f1a02',
  '2d0f8b51-3c4e-4f60-9b7c-8d9e0f1a2b01',
  '3e1a9c62-4d5f-4071-8c8d-9e0f1a2b3c01',
  'https://orders.example.com/health',
  'connect ECONNREFUSED 10.0.0.7:443',
];

const at = (second: number) => new Date(Date.UTC(2026, 3, 1, 12, 0, second)).toISOString();

const deleteOrder: StoredAuditEvent = {
  id: '4f2b0d73-5e60-4182-9d9e-0f1a2b3c4d01',
  project_id: P,
  event_type: 'http',
  timestamp: at(0),
  path: '/orders/42',
  method: 'DELETE',
  identifier: 'ann',
  service_name: 'orders',
  environment: 'production',
  source: 'backend',
  status_code: 204,
  response_time: 31,
  user_email: 'ann@example.com',
  user_name: 'Ann',
  user_roles: ['admin'],
  ip: '203.0.113.9',
  user_agent: 'curl/8.5',
  request_id: 'req-1',
  session_id: 'sess-1',
  query_params: { force: 'true' },
  request_body: { reason: 'duplicate' },
  error_message: 'none',
};
const checkout: StoredAuditEvent = {
  id: '4f2b0d73-5e60-4182-9d9e-0f1a2b3c4d02',
  project_id: P,
  event_type: 'http',
  timestamp: at(5),
  path: '/checkout',
  method: 'GET',
  identifier: 'bob',
  service_name: 'shop',
  environment: 'staging',
  source: 'browser',
};
const failedInvoice: StoredAuditEvent = {
  id: '4f2b0d73-5e60-4182-9d9e-0f1a2b3c4d03',
  project_id: Q,
  event_type: 'http',
  timestamp: at(80),
  path: '/invoices',
  method: 'POST',
  identifier: 'carol',
  service_name: 'billing',
  environment: 'production',
  source: 'backend',
  status_code: 500,
};

const recorded = (data: StoredAuditEvent): DomainEvent => ({ type: 'AuditEventRecorded', data });
const wentDown = (second: number, over: Partial<EventData<'MonitorWentDown'>> = {}): DomainEvent => ({
  type: 'MonitorWentDown',
  data: {
    monitor_id: MONITOR,
    project_id: P,
    name: 'orders',
    url: URL,
    expected_status: 200,
    went_down_at: at(second),
    response_ms: 3,
    error: REFUSED,
    ...over,
  },
});
const cameUp = (second: number): DomainEvent => ({
  type: 'MonitorCameUp',
  data: {
    monitor_id: MONITOR,
    project_id: P,
    name: 'orders',
    url: URL,
    came_up_at: at(second),
    status_code: 200,
    response_ms: 95,
    downtime_seconds: 60,
  },
});
const alert: DomainEvent = {
  type: 'AnomalyDetected',
  data: {
    alert_id: ALERT,
    project_id: P,
    rule: 'mass_delete',
    subject: 'orders',
    service_name: 'orders',
    environment: 'production',
    detected_at: at(20),
    details: { count: 60, threshold: 50, window_secs: 60 },
  },
};

/** The list items (oldest first, with their bodies) and the full stored events (newest first). */
const read = async (m: ReadModels) => {
  const events: StoredAuditEvent[] = [];
  for await (const batch of m.auditEvents.exportBatches({}, { all: true }, 100)) events.push(...batch);
  const page = await m.auditEvents.list(
    { page: 1, limit: 100, sort_by: 'timestamp', sort_order: 'asc' },
    { all: true },
    { withRequestBody: true },
  );
  return { items: page.data, events };
};

const listItem = (e: StoredAuditEvent) => ({
  id: e.id,
  project_id: e.project_id,
  event_type: e.event_type,
  method: e.method,
  path: e.path,
  status_code: e.status_code ?? null,
  response_time: e.response_time ?? null,
  identifier: e.identifier,
  user_email: e.user_email ?? null,
  service_name: e.service_name,
  environment: e.environment,
  timestamp: e.timestamp,
  request_body: e.request_body ?? null,
});

const down = wentDown(10);
const up = cameUp(70);

scenarioTests(it, {
  projectId: P,
  events: () => [recorded(deleteOrder), recorded(checkout), down, alert, up, recorded(failedInvoice)],
  read,
  expected: (recorder) => {
    // SPEC 6.1 and 2.10, keyed by the transition's event id and by the alert id.
    const healthcheck = {
      project_id: P,
      identifier: 'system',
      method: 'GET',
      environment: 'production',
      source: 'backend' as const,
      service_name: 'orders',
      path: URL,
    };
    const downRow: StoredAuditEvent = {
      ...healthcheck,
      id: recorder.recordOf(down).id,
      event_type: 'system.healthcheck.down',
      timestamp: at(10),
      response_time: 3,
      request_body: { url: URL, expected_status: 200, status_code: 0, response_ms: 3, error: REFUSED },
    };
    const upRow: StoredAuditEvent = {
      ...healthcheck,
      id: recorder.recordOf(up).id,
      event_type: 'system.healthcheck.up',
      timestamp: at(70),
      status_code: 200,
      response_time: 95,
      request_body: { url: URL, status_code: 200, response_ms: 95, downtime_seconds: 60 },
    };
    const alertRow: StoredAuditEvent = {
      id: ALERT,
      project_id: P,
      event_type: 'system.alert',
      timestamp: at(20),
      path: 'mass_delete',
      method: 'POST',
      identifier: 'system',
      service_name: 'orders',
      environment: 'production',
      source: 'backend',
      request_body: { count: 60, threshold: 50, window_secs: 60 },
    };
    const oldestFirst = [deleteOrder, checkout, downRow, alertRow, upRow, failedInvoice];
    return { items: oldestFirst.map(listItem), events: [...oldestFirst].reverse() };
  },
});

it(
  'every transition is a row of its own, keyed by its event id, ' + 'so a monitor that goes down twice shows twice',
  async (t, f) => {
    const [first, again] = [wentDown(10), wentDown(130)];
    await f.fold([first, cameUp(70), again]);
    const downs = await f.models.auditEvents.list(
      { event_type: 'system.healthcheck.down', page: 1, limit: 10, sort_by: 'timestamp', sort_order: 'asc' },
      { all: true },
    );
    t.deepEqual(
      downs.data.map((e) => [e.id, e.timestamp]),
      [
        [f.recorder.recordOf(first).id, at(10)],
        [f.recorder.recordOf(again).id, at(130)],
      ],
    );
  },
);

it(
  'a down with a status code carries it; ' + 'the path is the URL cut to 255 characters, the body keeps it whole',
  async (t, f) => {
    const long = `https://orders.example.com/${'x'.repeat(300)}`;
    const down503 = wentDown(10, {
      url: long,
      status_code: 503,
      error: 'expected status 200, received 503',
      response_ms: 41,
    });
    await f.fold([down503]);
    t.deepEqual(await f.models.auditEvents.get(f.recorder.recordOf(down503).id, { all: true }), {
      id: f.recorder.recordOf(down503).id,
      project_id: P,
      event_type: 'system.healthcheck.down',
      timestamp: at(10),
      path: long.slice(0, 255),
      method: 'GET',
      identifier: 'system',
      service_name: 'orders',
      environment: 'production',
      source: 'backend',
      status_code: 503,
      response_time: 41,
      request_body: {
        url: long,
        expected_status: 200,
        status_code: 503,
        response_ms: 41,
        error: 'expected status 200, received 503',
      },
    });
  },
);

it(
  'retention drops exactly the rows before its cutoff, ' +
    'up to `until` when it is one page of several, of its project only',
  async (t, f) => {
    const [first, second, third] = f.recorder.record([
      recorded(deleteOrder),
      recorded(checkout),
      recorded(failedInvoice),
    ]);
    await f.foldRecorded([first!, second!, third!]);
    const ids = async () => (await read(f.models)).events.map((e) => e.id).sort();
    // One page: rows before at(10) up to the first (by time, then position); `checkout` waits.
    await f.fold([
      {
        type: 'RetentionApplied',
        data: {
          project_id: P,
          cutoff: at(10),
          through_position: third!.position,
          removed: 1,
          applied_at: at(90),
          until: { timestamp: at(0), position: first!.position },
        },
      },
    ]);
    t.deepEqual(await ids(), [checkout.id, failedInvoice.id].sort());
    // The last page: everything before the cutoff up to `through_position`; Q's invoice is another project.
    await f.fold([
      {
        type: 'RetentionApplied',
        data: { project_id: P, cutoff: at(10), through_position: third!.position, removed: 1, applied_at: at(90) },
      },
    ]);
    t.deepEqual(await ids(), [failedInvoice.id]);
  },
);

it('an erasure gives the rows of one identifier the form that replaying their erased records gives', async (t, f) => {
  const [ann] = f.recorder.record([recorded(deleteOrder)]);
  await f.foldRecorded([ann!]);
  await f.fold([
    recorded(checkout),
    {
      type: 'IdentifierErased',
      data: { project_id: P, identifier: 'ann', through_position: ann!.position, erased: 1, erased_at: at(90) },
    },
  ]);
  const erased = await f.models.auditEvents.get(deleteOrder.id, { all: true });
  t.deepEqual(erased, eraseAuditEvent(deleteOrder));
  t.is(erased?.identifier, ERASED_IDENTIFIER);
  t.deepEqual(await f.models.auditEvents.get(checkout.id, { all: true }), checkout, 'another identifier is left alone');
  // A rebuild sees the erased record in the log instead.
  await f.fold([
    {
      type: 'RecordRedacted',
      data: {
        project_id: P,
        reason: 'erasure',
        leaf_hash: `${'A'.repeat(43)}=`,
        event: eraseAuditEvent({ ...deleteOrder, id: 'replayed-ann' }),
      },
    },
  ]);
  t.deepEqual(await f.models.auditEvents.get('replayed-ann', { all: true }), {
    ...eraseAuditEvent(deleteOrder),
    id: 'replayed-ann',
  });
});

it(
  'a maintenance window opening and closing is a system.maintenance.started and .ended row of its project, ' +
    'each keyed by its event id; a transition inside it is the same healthcheck row as any other',
  async (t, f) => {
    const MAINTENANCE = '5a3c1e84-6f71-4293-8eaf-1a2b3c4d5e01';
    const window = { maintenance_id: MAINTENANCE, project_id: P, occurrence_start: at(0), occurrence_end: at(120) };
    const started: DomainEvent = {
      type: 'MaintenanceStarted',
      data: { ...window, title: 'Database upgrade', monitor_ids: [MONITOR], at: at(3) },
    };
    const ended: DomainEvent = { type: 'MaintenanceEnded', data: { ...window, title: 'Database upgrade', at: at(90) } };
    const inside = wentDown(10, { in_maintenance: true });
    await f.fold([started, inside, ended]);
    const common = {
      project_id: P,
      path: `maintenance:${MAINTENANCE}`,
      method: 'POST',
      identifier: 'system',
      service_name: 'Database upgrade',
      environment: 'production',
      source: 'backend' as const,
    };
    const body = {
      maintenance_id: MAINTENANCE,
      title: 'Database upgrade',
      occurrence_start: at(0),
      occurrence_end: at(120),
    };
    t.deepEqual(await f.models.auditEvents.get(f.recorder.recordOf(started).id, { all: true }), {
      ...common,
      id: f.recorder.recordOf(started).id,
      event_type: 'system.maintenance.started',
      timestamp: at(0),
      request_body: { ...body, monitor_ids: [MONITOR], seen_at: at(3) },
    });
    t.deepEqual(await f.models.auditEvents.get(f.recorder.recordOf(ended).id, { all: true }), {
      ...common,
      id: f.recorder.recordOf(ended).id,
      event_type: 'system.maintenance.ended',
      timestamp: at(90),
      request_body: { ...body, ended_at: at(90) },
    });
    const listed = await f.models.auditEvents.list(
      { event_type: 'system.maintenance.ended', page: 1, limit: 10, sort_by: 'timestamp', sort_order: 'asc' },
      { all: false, projectIds: [P] },
    );
    t.deepEqual(
      listed.data.map((e) => e.id),
      [f.recorder.recordOf(ended).id],
    );
    t.like(await f.models.auditEvents.get(f.recorder.recordOf(inside).id, { all: true }), {
      event_type: 'system.healthcheck.down',
      request_body: { url: URL, expected_status: 200, status_code: 0, response_ms: 3, error: REFUSED },
    });
  },
);
