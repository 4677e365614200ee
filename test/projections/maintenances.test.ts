import { maintenancesProjection } from '../../projections/maintenances.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { MaintenanceSettings } from '../../src/domain/maintenance.ts';
import type { MaintenanceView } from '../../src/views/maintenances/port.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(maintenancesProjection, (m) => m.stores.maintenances);

const P = 'e4cf0b7d-f809-4b2c-9d0e-1f2a3b4c5d01';
const Q = 'e4cf0b7d-f809-4b2c-9d0e-1f2a3b4c5d02';
const [DB, SUNDAYS, GONE, OTHER] = [1, 2, 3, 4].map((i) => `f5d01c8e-0a1b-4c3d-8e1f-2a3b4c5d6e0${i}`) as [
  string,
  string,
  string,
  string,
];
const [API, WEB] = ['a6e12d9f-1b2c-4d4e-9f0a-3b4c5d6e7f01', 'a6e12d9f-1b2c-4d4e-9f0a-3b4c5d6e7f02'];

const at = (hour: number, minute = 0) => new Date(Date.UTC(2026, 2, 1, hour, minute)).toISOString();
const once = { kind: 'once' as const, starts_at: at(2), ends_at: at(4) };
const sundays = {
  kind: 'recurring' as const,
  rrule: 'FREQ=WEEKLY;BYDAY=SU',
  starts_at: at(1),
  duration_minutes: 90,
  timezone: 'Europe/Berlin',
};

const scheduled = (
  maintenance_id: string,
  settings: Partial<MaintenanceSettings>,
  hour: number,
  project_id = P,
): DomainEvent => ({
  type: 'MaintenanceScheduled',
  data: {
    maintenance_id,
    project_id,
    title: 'Database upgrade',
    description: null,
    monitor_ids: 'all',
    schedule: once,
    ...settings,
    created_at: at(hour),
  },
});
const updated = (maintenance_id: string, changes: Partial<MaintenanceSettings>, hour: number): DomainEvent => ({
  type: 'MaintenanceUpdated',
  data: { maintenance_id, project_id: P, changes, updated_at: at(hour) },
});
const started = (maintenance_id: string, start: string, end: string, project_id = P): DomainEvent => ({
  type: 'MaintenanceStarted',
  data: {
    maintenance_id,
    project_id,
    occurrence_start: start,
    occurrence_end: end,
    title: 'Database upgrade',
    monitor_ids: 'all',
    at: start,
  },
});
const ended = (maintenance_id: string, start: string, end: string): DomainEvent => ({
  type: 'MaintenanceEnded',
  data: { maintenance_id, project_id: P, occurrence_start: start, occurrence_end: end, at: end },
});
const deleted = (maintenance_id: string, hour: number): DomainEvent => ({
  type: 'MaintenanceDeleted',
  data: { maintenance_id, project_id: P, deleted_at: at(hour) },
});

const view = (id: string, over: Partial<MaintenanceView> = {}): MaintenanceView => ({
  id,
  project_id: P,
  title: 'Database upgrade',
  description: null,
  monitor_ids: 'all',
  schedule: once,
  open: null,
  created_at: at(0),
  updated_at: at(0),
  ...over,
});

const read = async (m: ReadModels) => ({
  all: await m.maintenances.all(),
  api: (await m.maintenances.openFor(P, API)).map((v) => v.id),
  web: (await m.maintenances.openFor(P, WEB)).map((v) => v.id),
  other: (await m.maintenances.openFor(Q, API)).map((v) => v.id),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    scheduled(DB, {}, 0),
    scheduled(SUNDAYS, { monitor_ids: [API], schedule: sundays, description: 'Backups' }, 0),
    scheduled(GONE, { monitor_ids: [WEB] }, 0),
    scheduled(OTHER, {}, 0, Q),
    started(SUNDAYS, at(1), at(2, 30)),
    started(GONE, at(2), at(4)),
    started(DB, at(2), at(4)),
    updated(DB, { title: 'Postgres 17', monitor_ids: [WEB] }, 2),
    started(OTHER, at(2), at(4), Q),
    ended(SUNDAYS, at(1), at(2, 30)),
    ended(GONE, at(2), at(3)),
    deleted(GONE, 3),
  ],
  read,
  expected: () => ({
    all: [
      view(DB, { title: 'Postgres 17', monitor_ids: [WEB], open: { start: at(2), end: at(4) }, updated_at: at(2) }),
      view(SUNDAYS, { monitor_ids: [API], schedule: sundays, description: 'Backups' }),
      view(OTHER, { project_id: Q, open: { start: at(2), end: at(4) } }),
    ],
    api: [],
    web: [DB],
    other: [OTHER],
  }),
});

it('an occurrence opens and closes, and the next opens: each time the window says which is open', async (t, f) => {
  await f.fold([scheduled(SUNDAYS, { monitor_ids: [API], schedule: sundays }, 0), started(SUNDAYS, at(1), at(2, 30))]);
  t.deepEqual(
    (await f.models.maintenances.openFor(P, API)).map((v) => v.open),
    [{ start: at(1), end: at(2, 30) }],
  );
  await f.fold([ended(SUNDAYS, at(1), at(2, 30))]);
  t.deepEqual(await f.models.maintenances.openFor(P, API), []);
  const next = { start: '2026-03-08T00:00:00.000Z', end: '2026-03-08T01:30:00.000Z' };
  await f.fold([started(SUNDAYS, next.start, next.end)]);
  t.deepEqual((await f.models.maintenances.get(SUNDAYS, { all: true }))?.open, next);
  t.deepEqual(await f.models.maintenances.openFor(P, WEB), [], 'a list of ids covers those monitors only');
});
