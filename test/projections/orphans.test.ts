import { orphansProjection } from '../../projections/orphans.ts';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(orphansProjection, (m) => m.stores.orphans);

const P = '7c5e3a06-8192-44b5-8a2b-3c4d5e6f7a01';
const Q = '7c5e3a06-8192-44b5-8a2b-3c4d5e6f7a02';
const T0 = Date.UTC(2026, 7, 1, 12, 0);
const iso = (ms: number) => new Date(ms).toISOString();

let ids = 0;
const nextId = () => {
  ids += 1;
  return `8d6f4b17-9203-45c6-9b3c-${String(ids).padStart(12, '0')}`;
};
/** A browser or backend http event of project P at `ms` after T0, with `request_id` unless null. */
const http = (
  source: 'browser' | 'backend',
  request_id: string | null,
  ms: number,
  over: Partial<StoredAuditEvent> = {},
): DomainEvent => ({
  type: 'AuditEventRecorded',
  data: {
    id: nextId(),
    project_id: P,
    event_type: 'http',
    timestamp: iso(T0 + ms),
    path: '/api/cart',
    method: 'GET',
    identifier: 'ann',
    service_name: 'shop',
    environment: 'production',
    source,
    status_code: 200,
    response_time: 12,
    ...(request_id === null ? {} : { request_id }),
    ...over,
  },
});
const browser = (request_id: string | null, ms: number, over: Partial<StoredAuditEvent> = {}) =>
  http('browser', request_id, ms, over);
const backend = (request_id: string, ms: number, over: Partial<StoredAuditEvent> = {}) =>
  http('backend', request_id, ms, over);

/** How the orphans list shows a browser event. */
const orphan = (e: DomainEvent) => {
  if (e.type !== 'AuditEventRecorded') throw new Error('not an audit event');
  const d = e.data;
  return {
    id: d.id,
    project_id: d.project_id,
    event_type: d.event_type,
    method: d.method,
    path: d.path,
    status_code: d.status_code ?? null,
    response_time: d.response_time ?? null,
    identifier: d.identifier,
    user_email: d.user_email ?? null,
    service_name: d.service_name,
    environment: d.environment,
    timestamp: d.timestamp,
    request_id: d.request_id,
  };
};

const read = (m: ReadModels) => m.orphans.list({ settledBefore: T0 + 86_400_000, page: 1, limit: 50 }, { all: true });
const orphanRequests = async (m: ReadModels) => (await read(m)).data.map((o) => o.request_id);

const tooLate = browser('r3', 200_000);
const neverAnswered = browser('r4', 250_000, {
  method: 'POST',
  path: '/api/orders',
  identifier: 'dana',
  user_email: 'dana@example.com',
  service_name: 'spa',
  environment: 'staging',
  status_code: undefined,
  response_time: undefined,
});
const otherProject = browser('r5', 260_000);

scenarioTests(it, {
  projectId: P,
  events: () => [
    browser('r1', 0),
    backend('r1', 120_000), // exactly two minutes after: paired
    backend('r2', 10_000),
    browser('r2', 130_000), // the backend came first, two minutes before: paired
    tooLate,
    backend('r3', 321_000), // two minutes and a second after: not paired
    neverAnswered,
    otherProject,
    backend('r5', 260_000, { project_id: Q }), // same request id, another project
    browser(null, 270_000), // no request id: cannot be paired, left out
    browser('r6', 280_000, { event_type: 'system.alert' }), // not http: left out
    backend('r7', 300_000), // a backend event alone is no orphan
  ],
  read,
  expected: () => ({
    data: [orphan(otherProject), orphan(neverAnswered), orphan(tooLate)],
    pagination: { page: 1, limit: 50, totalItems: 3, totalPage: 1 },
  }),
});

it('a pair is two minutes apart at most, inclusive, whichever side is recorded first', async (t, f) => {
  await f.fold([
    browser('after', 300_000),
    backend('after', 420_000),
    backend('before', 300_000),
    browser('before', 420_000),
    browser('after+1ms', 300_000),
    backend('after+1ms', 420_001),
    backend('before+1ms', 300_000),
    browser('before+1ms', 420_001),
    backend('earlier', 420_000),
    browser('earlier', 300_000), // the backend event is the later one, recorded first
  ]);
  t.deepEqual((await orphanRequests(f.models)).sort(), ['after+1ms', 'before+1ms']);
});

it('one backend event pairs every browser event of its request id within the window', async (t, f) => {
  await f.fold([browser('r', 0), browser('r', 60_000), browser('r', 300_000)]);
  t.is((await read(f.models)).pagination.totalItems, 3);
  await f.fold([backend('r', 100_000)]);
  t.deepEqual(
    (await read(f.models)).data.map((o) => o.timestamp),
    [iso(T0 + 300_000)],
  );
});

it('only a backend event pairs: two browser events of one request id stay orphans', async (t, f) => {
  await f.fold([browser('r', 0), browser('r', 1_000)]);
  t.deepEqual(await orphanRequests(f.models), ['r', 'r']);
});
