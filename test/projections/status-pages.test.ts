import { statusPagesProjection } from '../../projections/status-pages.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { StatusPageSettings } from '../../src/domain/status-page.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import type { StatusPageView } from '../../src/views/status-pages/port.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';
import type { Recorder } from '../helpers/recorder.ts';

const it = projectionTests(statusPagesProjection, (m) => m.stores.statusPages);

const P = 'a1b2c3d4-0000-4000-8000-00000000000a';
const Q = 'a1b2c3d4-0000-4000-8000-00000000000b';
const [A, B, C, D] = [1, 2, 3, 4].map((i) => `b2c3d4e5-0000-4000-8000-00000000000${i}`) as [
  string,
  string,
  string,
  string,
];
const [M1, M2, M3] = [1, 2, 3].map((i) => `c3d4e5f6-0000-4000-8000-00000000000${i}`) as [string, string, string];
const INCIDENT = 'd4e5f6a7-0000-4000-8000-000000000001';
const WINDOW = 'e5f6a7b8-0000-4000-8000-000000000001';

const at = (minute: number) => new Date(Date.UTC(2026, 3, 1, 8, minute)).toISOString();

const settings = (slug: string, monitors: string[], over: Partial<StatusPageSettings> = {}): StatusPageSettings => ({
  slug,
  title: `Status of ${slug}`,
  description: null,
  groups: [{ name: 'Services', monitor_ids: monitors }],
  published: true,
  show_uptime_days: 30,
  custom_domain: null,
  auto_incidents: false,
  ...over,
});

const created = (page_id: string, s: StatusPageSettings, minute: number, project_id = P): DomainEvent => ({
  type: 'StatusPageCreated',
  data: { page_id, project_id, ...s, created_at: at(minute) },
});
const updated = (page_id: string, changes: Partial<StatusPageSettings>, minute: number): DomainEvent => ({
  type: 'StatusPageUpdated',
  data: { page_id, project_id: P, changes, updated_at: at(minute) },
});
const deleted = (page_id: string, minute: number): DomainEvent => ({
  type: 'StatusPageDeleted',
  data: { page_id, project_id: P, deleted_at: at(minute) },
});
const check = (monitor_id: string, ok: boolean, minute: number, project_id = P): DomainEvent => ({
  type: 'CheckRecorded',
  data: { monitor_id, project_id, checked_at: at(minute), ok, response_ms: ok ? 40 : 10_000 },
});
const wentDown = (monitor_id: string, minute: number): DomainEvent => ({
  type: 'MonitorWentDown',
  data: {
    monitor_id,
    project_id: P,
    name: 'api',
    url: 'https://api.example.com/',
    expected_status: 200,
    went_down_at: at(minute),
    response_ms: 10_000,
    error: 'timeout',
  },
});
const cameUp = (monitor_id: string, minute: number): DomainEvent => ({
  type: 'MonitorCameUp',
  data: {
    monitor_id,
    project_id: P,
    name: 'api',
    url: 'https://api.example.com/',
    came_up_at: at(minute),
    status_code: 200,
    response_ms: 40,
    downtime_seconds: 60,
  },
});
const incidentOpened = (monitor_ids: string[], minute: number, project_id = P): DomainEvent => ({
  type: 'IncidentOpened',
  data: {
    incident_id: INCIDENT,
    project_id,
    title: 'API errors',
    status: 'investigating',
    impact: 'major',
    monitor_ids,
    update_id: 'f6a7b8c9-0000-4000-8000-000000000001',
    message: 'Looking into it',
    opened_at: at(minute),
  },
});
const maintenanceStarted = (project_id: string, minute: number): DomainEvent => ({
  type: 'MaintenanceStarted',
  data: {
    maintenance_id: WINDOW,
    project_id,
    occurrence_start: at(minute),
    occurrence_end: at(minute + 30),
    title: 'Upgrade',
    monitor_ids: 'all',
    at: at(minute),
  },
});

const view = (id: string, s: StatusPageSettings, minute: number, over: Partial<StatusPageView> = {}) => ({
  id,
  project_id: P,
  ...s,
  created_at: at(minute),
  updated_at: at(minute),
  ...over,
});

const pages = [A, B, C, D];
const read = async (m: ReadModels) => ({
  list: await m.statusPages.list({ all: true }),
  versions: await Promise.all(pages.map((id) => m.statusPages.version(id))),
  bySlug: (await m.statusPages.bySlug('web'))?.id ?? null,
  byDomain: (await m.statusPages.byDomain('status.example.com'))?.id ?? null,
  published: await Promise.all([M1, M2, M3].map((id) => m.statusPages.publishedShowing(id))),
  auto: (await m.statusPages.autoIncidentPages(M1)).map((p) => p.id),
});

const alpha = settings('api', [M1, M2], { custom_domain: 'status.example.com', auto_incidents: true });
const beta = settings('beta', [M2], { published: false });
const gamma = settings('gamma', [M3]);
const HISTORY: DomainEvent[] = [
  created(A, alpha, 0),
  created(B, beta, 1),
  created(C, gamma, 2, Q),
  check(M1, true, 3),
  check(M1, false, 4),
  wentDown(M2, 5),
  updated(B, { slug: 'web', groups: [{ name: 'Web', monitor_ids: [M1] }], published: true }, 6),
  cameUp(M2, 7),
  maintenanceStarted(Q, 8),
  incidentOpened([M1], 9),
  check(M2, true, 10),
  created(D, settings('temporary', []), 11),
  deleted(D, 12),
  {
    type: 'IncidentUpdatePosted',
    data: {
      incident_id: INCIDENT,
      project_id: P,
      update_id: 'f6a7b8c9-0000-4000-8000-000000000002',
      status: 'identified',
      message: 'Found it',
      posted_at: at(13),
    },
  },
  { type: 'MonitorUpdated', data: { monitor_id: M2, project_id: P, changes: { name: 'api-2' }, updated_at: at(14) } },
  check(M3, true, 15, Q),
];
const positionOf = (recorder: Recorder, index: number) => recorder.recordOf(HISTORY[index]!).position;

scenarioTests(it, {
  projectId: P,
  events: () => HISTORY,
  read,
  expected: (recorder) => ({
    list: [
      view(A, alpha, 0),
      view(B, { ...beta, slug: 'web', groups: [{ name: 'Web', monitor_ids: [M1] }], published: true }, 1, {
        updated_at: at(6),
      }),
      view(C, gamma, 2, { project_id: Q }),
    ],
    // A: M2's update (14); B: the incident's update (13, a project-wide touch); C: the
    // maintenance of its project (8); D: deleted.
    versions: [positionOf(recorder, 14), positionOf(recorder, 13), positionOf(recorder, 8), null],
    bySlug: B,
    byDomain: A,
    published: [2, 1, 1],
    auto: [A],
  }),
});

it('a failed check moves the version of the pages that show its monitor; an OK check moves none', async (t, f) => {
  const made = await f.fold([created(A, settings('a', [M1]), 0), created(B, settings('b', [M2]), 0)]);
  const versions = () => Promise.all([A, B].map((id) => f.models.statusPages.version(id)));
  const before = await versions();
  t.deepEqual(
    before,
    made.map((r) => r.position),
  );
  await f.fold([check(M1, true, 1), check(M2, true, 1), check(M1, true, 2)]);
  t.deepEqual(await versions(), before, 'OK checks move nothing');
  const [failed] = await f.fold([check(M1, false, 3)]);
  t.deepEqual(await versions(), [failed!.position, before[1]]);
  const batch = await f.fold([
    check(M2, false, 4),
    check(M2, false, 5),
    check(M1, true, 5),
    check(M2, false, 6),
    check(M2, true, 7),
  ]);
  t.deepEqual(await versions(), [failed!.position, batch[3]!.position], 'the last failure of the batch');
});

it("touches move only the pages of the event's project that show its monitor, or every page of it", async (t, f) => {
  const [, b, c] = await f.fold([
    created(A, settings('a', [M1]), 0),
    created(B, settings('b', [M2, M3]), 0),
    created(C, settings('c', [M1]), 0, Q),
  ]);
  const versions = () => Promise.all([A, B, C].map((id) => f.models.statusPages.version(id)));
  const [down] = await f.fold([wentDown(M1, 1)]);
  t.deepEqual(await versions(), [down!.position, b!.position, c!.position], "Q's page shows M1 too: not moved");
  const [opened] = await f.fold([incidentOpened([M2, M3], 2)]);
  t.deepEqual(await versions(), [down!.position, opened!.position, c!.position]);
  const [everywhere] = await f.fold([incidentOpened([], 3)]);
  t.deepEqual(await versions(), [everywhere!.position, everywhere!.position, c!.position]);
  const [window] = await f.fold([maintenanceStarted(Q, 4)]);
  t.deepEqual(await versions(), [everywhere!.position, everywhere!.position, window!.position]);
  const [established] = await f.fold([
    {
      type: 'MonitorStatusEstablished',
      data: { monitor_id: M3, project_id: P, status: 'UP', checked_at: at(5), ok: true, response_ms: 30 },
    },
  ]);
  t.deepEqual(await versions(), [everywhere!.position, established!.position, window!.position]);
  const [gone] = await f.fold([{ type: 'MonitorDeleted', data: { monitor_id: M1, project_id: P, deleted_at: at(6) } }]);
  t.deepEqual(await versions(), [gone!.position, established!.position, window!.position]);
});

it('a page changed moves to its change; one that stops showing a monitor is no longer touched by it', async (t, f) => {
  await f.fold([created(A, settings('a', [M1]), 0)]);
  const [changed] = await f.fold([updated(A, { groups: [{ name: 'Other', monitor_ids: [M2] }] }, 1)]);
  t.is(await f.models.statusPages.version(A), changed!.position);
  await f.fold([wentDown(M1, 2), check(M1, false, 3)]);
  t.is(await f.models.statusPages.version(A), changed!.position);
  t.is(await f.models.statusPages.publishedShowing(M1), 0);
  const [down] = await f.fold([wentDown(M2, 4)]);
  t.is(await f.models.statusPages.version(A), down!.position);
  await f.fold([deleted(A, 5), wentDown(M2, 6)]);
  t.is(await f.models.statusPages.version(A), null);
  t.deepEqual(await f.models.statusPages.list({ all: true }), []);
});

it('lists within scope; finds a page by slug and by custom domain', async (t, f) => {
  await f.fold([
    created(A, settings('alpha', [M1], { custom_domain: 'status.example.com' }), 0),
    created(B, settings('beta', []), 1),
    created(C, settings('gamma', []), 2, Q),
  ]);
  const ids = (views: StatusPageView[]) => views.map((v) => v.id);
  t.deepEqual(ids(await f.models.statusPages.list({ all: true })), [A, B, C]);
  t.deepEqual(ids(await f.models.statusPages.list({ all: false, projectIds: [P] })), [A, B]);
  t.deepEqual(ids(await f.models.statusPages.list({ all: false, projectIds: [P, Q] }, Q)), [C]);
  t.deepEqual(await f.models.statusPages.list({ all: false, projectIds: [P] }, Q), []);
  t.is(await f.models.statusPages.get(C, { all: false, projectIds: [P] }), null);
  t.is((await f.models.statusPages.bySlug('gamma'))?.id, C);
  t.is((await f.models.statusPages.byDomain('status.example.com'))?.id, A);
  await f.fold([updated(A, { slug: 'alpha-2', custom_domain: 'www.example.org' }, 3)]);
  t.is(await f.models.statusPages.bySlug('alpha'), null);
  t.is((await f.models.statusPages.bySlug('alpha-2'))?.id, A);
  t.is(await f.models.statusPages.byDomain('status.example.com'), null);
  t.is((await f.models.statusPages.byDomain('www.example.org'))?.id, A);
});
