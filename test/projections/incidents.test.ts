import { incidentsProjection } from '../../projections/incidents.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { IncidentImpact, IncidentStatus } from '../../src/domain/incident.ts';
import type { IncidentView } from '../../src/views/incidents/port.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(incidentsProjection, (m) => m.stores.incidents);

const P = 'aa11bb22-0000-4000-8000-00000000000a';
const Q = 'aa11bb22-0000-4000-8000-00000000000b';
const [I1, I2, I3, I4] = [1, 2, 3, 4].map((i) => `bb22cc33-0000-4000-8000-00000000000${i}`) as [
  string,
  string,
  string,
  string,
];
const [M1, M2] = [1, 2].map((i) => `cc33dd44-0000-4000-8000-00000000000${i}`) as [string, string];
const DOWN = 'dd44ee55-0000-4000-8000-000000000001';
const u = (n: number) => `ee55ff66-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;

const at = (minute: number) => new Date(Date.UTC(2026, 4, 1, 12, minute)).toISOString();

const opened = (
  incident_id: string,
  minute: number,
  over: { project_id?: string; status?: IncidentStatus; monitor_ids?: string[]; auto?: boolean } = {},
): DomainEvent => ({
  type: 'IncidentOpened',
  data: {
    incident_id,
    project_id: over.project_id ?? P,
    title: `incident ${incident_id.slice(-1)}`,
    status: over.status ?? 'investigating',
    impact: 'minor',
    monitor_ids: over.monitor_ids ?? [],
    update_id: u(minute),
    message: 'We are looking into it',
    opened_at: at(minute),
    ...(over.auto ? { auto: { monitor_id: over.monitor_ids![0]!, down_event_id: DOWN } } : {}),
  },
});
const posted = (
  incident_id: string,
  update: number,
  status: IncidentStatus,
  minute: number,
  impact?: IncidentImpact,
): DomainEvent => ({
  type: 'IncidentUpdatePosted',
  data: {
    incident_id,
    project_id: P,
    update_id: u(update),
    status,
    message: `now ${status}`,
    posted_at: at(minute),
    ...(impact === undefined ? {} : { impact }),
  },
});
const removed = (incident_id: string, minute: number): DomainEvent => ({
  type: 'IncidentDeleted',
  data: { incident_id, project_id: P, deleted_at: at(minute) },
});

const opening = (minute: number, status: IncidentStatus = 'investigating') => ({
  id: u(minute),
  status,
  message: 'We are looking into it',
  impact: 'minor' as const,
  at: at(minute),
});
const later = (n: number, status: IncidentStatus, minute: number, impact: IncidentImpact | null = null) => ({
  id: u(n),
  status,
  message: `now ${status}`,
  impact,
  at: at(minute),
});

const read = async (m: ReadModels) => ({
  all: (await m.incidents.list({ all: true }, { page: 1, limit: 50 })).data,
  open: (await m.incidents.list({ all: true }, { page: 1, limit: 50, open: true })).data.map((i) => i.id),
  shown: (await m.incidents.shownSince(P, at(5), 10)).map((i) => i.id),
  auto: (await m.incidents.openAuto(M2)).map((i) => i.id),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    opened(I1, 0, { monitor_ids: [M1] }),
    opened(I2, 1, { monitor_ids: [M2], auto: true }),
    posted(I1, 20, 'identified', 2, 'major'),
    opened(I3, 3, { project_id: Q }),
    posted(I2, 21, 'resolved', 4),
    posted(I1, 22, 'resolved', 6),
    posted(I1, 23, 'monitoring', 7),
    opened(I4, 8),
    removed(I4, 9),
  ],
  read,
  expected: () => {
    const base: Pick<IncidentView, 'auto' | 'monitor_ids' | 'impact' | 'status'> = {
      auto: null,
      monitor_ids: [],
      impact: 'minor',
      status: 'investigating',
    };
    const i1: IncidentView = {
      ...base,
      id: I1,
      project_id: P,
      title: 'incident 1',
      status: 'monitoring',
      impact: 'major',
      monitor_ids: [M1],
      created_at: at(0),
      updated_at: at(7),
      resolved_at: null,
      updates: [opening(0), later(20, 'identified', 2, 'major'), later(22, 'resolved', 6), later(23, 'monitoring', 7)],
    };
    const i2: IncidentView = {
      ...base,
      id: I2,
      project_id: P,
      title: 'incident 2',
      status: 'resolved',
      monitor_ids: [M2],
      auto: { monitor_id: M2, down_event_id: DOWN },
      created_at: at(1),
      updated_at: at(4),
      resolved_at: at(4),
      updates: [opening(1), later(21, 'resolved', 4)],
    };
    const i3: IncidentView = {
      ...base,
      id: I3,
      project_id: Q,
      title: 'incident 3',
      created_at: at(3),
      updated_at: at(3),
      resolved_at: null,
      updates: [opening(3)],
    };
    return { all: [i3, i2, i1], open: [I3, I1], shown: [I1], auto: [] };
  },
});

it('an update posted again under its id adds nothing; one without an impact keeps the impact', async (t, f) => {
  await f.fold([opened(I1, 0), posted(I1, 10, 'identified', 1, 'critical')]);
  await f.fold([posted(I1, 10, 'identified', 1, 'critical'), posted(I1, 11, 'monitoring', 2)]);
  await f.fold([posted(I1, 11, 'monitoring', 2)]);
  const incident = await f.models.incidents.get(I1, { all: true });
  t.deepEqual(
    incident?.updates.map((x) => x.id),
    [u(0), u(10), u(11)],
  );
  t.like(incident, { status: 'monitoring', impact: 'critical', updated_at: at(2), resolved_at: null });
});

it('resolved sets resolved_at; reopened clears it; an incident opened resolved is resolved', async (t, f) => {
  await f.fold([
    opened(I1, 0, { monitor_ids: [M1], auto: true }),
    opened(I2, 1, { status: 'resolved' }),
    posted(I1, 10, 'resolved', 2),
  ]);
  t.like(await f.models.incidents.get(I1, { all: true }), { status: 'resolved', resolved_at: at(2) });
  t.like(await f.models.incidents.get(I2, { all: true }), { status: 'resolved', resolved_at: at(1) });
  t.deepEqual(await f.models.incidents.openAuto(M1), []);
  await f.fold([posted(I1, 11, 'investigating', 3)]);
  t.like(await f.models.incidents.get(I1, { all: true }), { status: 'investigating', resolved_at: null });
  t.deepEqual(
    (await f.models.incidents.openAuto(M1)).map((i) => i.id),
    [I1],
  );
  await f.fold([removed(I1, 4)]);
  t.deepEqual(await f.models.incidents.openAuto(M1), []);
  t.is(await f.models.incidents.get(I1, { all: true }), null);
});

it('lists page by page, newest first, within scope and the project asked, open ones only when asked', async (t, f) => {
  const events = Array.from({ length: 7 }, (_, i) =>
    opened(`bb22cc33-0000-4000-8000-0000000001${String(i).padStart(2, '0')}`, i, { project_id: i % 3 === 2 ? Q : P }),
  );
  await f.fold([...events, posted('bb22cc33-0000-4000-8000-000000000103', 50, 'resolved', 10)]);
  const ids = (page: { data: IncidentView[] }) => page.data.map((i) => i.id.slice(-2));
  type Request = Partial<Parameters<ReadModels['incidents']['list']>[1]>;
  const list = (scope: Parameters<ReadModels['incidents']['list']>[0], request: Request) =>
    f.models.incidents.list(scope, { page: 1, limit: 3, ...request });
  t.deepEqual(ids(await list({ all: true }, {})), ['06', '05', '04']);
  t.deepEqual(ids(await list({ all: true }, { page: 3 })), ['00']);
  t.deepEqual((await list({ all: true }, { page: 3 })).pagination, { page: 3, limit: 3, totalItems: 7, totalPage: 3 });
  t.deepEqual(ids(await list({ all: false, projectIds: [P] }, {})), ['06', '04', '03']);
  t.deepEqual(ids(await list({ all: false, projectIds: [P] }, { page: 2 })), ['01', '00']);
  t.deepEqual(ids(await list({ all: false, projectIds: [P] }, { open: true, limit: 10 })), ['06', '04', '01', '00']);
  t.deepEqual(ids(await list({ all: true }, { projectId: Q })), ['05', '02']);
  t.deepEqual(ids(await list({ all: false, projectIds: [P] }, { projectId: Q })), []);
  t.deepEqual(ids(await list({ all: false, projectIds: [] }, {})), []);
  t.deepEqual(
    (await f.models.incidents.shownSince(P, at(11), 2)).map((i) => i.id.slice(-2)),
    ['06', '04'],
  );
  t.deepEqual(
    (await f.models.incidents.shownSince(P, at(10), 10)).map((i) => i.id.slice(-2)),
    ['06', '04', '03', '01', '00'],
  );
});
