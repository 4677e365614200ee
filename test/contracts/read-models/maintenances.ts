import { randomUUID } from 'node:crypto';
import type { MaintenanceView } from '../../../src/views/maintenances/port.ts';
import { recorded, type WithModels } from './harness.ts';

export const maintenancesContract = (withModels: WithModels): void => {
  withModels(
    'maintenances: lists in scope, every window, a project\'s, the open ones covering a monitor ("all" included), ' +
      'changes, occurrences opening and closing, removal, and a replayed batch changes nothing',
    async (t, m) => {
      const [project, other] = [randomUUID(), randomUUID()];
      const [monitor, elsewhere] = [randomUUID(), randomUUID()];
      const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()] as const;
      const view = (id: string, over: Partial<MaintenanceView> = {}): MaintenanceView => ({
        id,
        project_id: project,
        title: 'Database upgrade',
        description: null,
        monitor_ids: 'all',
        schedule: { kind: 'once', starts_at: '2026-03-01T02:00:00.000Z', ends_at: '2026-03-01T04:00:00.000Z' },
        open: null,
        created_at: '2026-02-01T00:00:00.000Z',
        updated_at: '2026-02-01T00:00:00.000Z',
        ...over,
      });
      const weekly = {
        kind: 'recurring' as const,
        rrule: 'FREQ=WEEKLY;BYDAY=SU',
        starts_at: '2026-03-01T01:00:00.000Z',
        duration_minutes: 90,
        timezone: 'Europe/Berlin',
      };
      const first = recorded();
      const schedule = () =>
        m.stores.maintenances.commit([first], (_r, w) => {
          w.scheduled(view(ids[0]));
          w.scheduled(
            view(ids[1], {
              monitor_ids: [monitor],
              schedule: weekly,
              description: 'Sunday backups',
              created_at: '2026-02-02T00:00:00.000Z',
              updated_at: '2026-02-02T00:00:00.000Z',
            }),
          );
          w.scheduled(view(ids[2], { monitor_ids: [elsewhere], created_at: '2026-02-03T00:00:00.000Z' }));
          w.scheduled(view(ids[3], { project_id: other, created_at: '2026-01-01T00:00:00.000Z' }));
        });
      await schedule();
      await schedule();
      const idsOf = (rows: MaintenanceView[]) => rows.map((r) => r.id);
      t.deepEqual(idsOf(await m.maintenances.list({ all: true }, project)), [ids[0], ids[1], ids[2]]);
      t.deepEqual(idsOf(await m.maintenances.list({ all: true })), [ids[3], ids[0], ids[1], ids[2]]);
      t.deepEqual(idsOf(await m.maintenances.list({ all: false, projectIds: [other] })), [ids[3]]);
      t.deepEqual(await m.maintenances.list({ all: false, projectIds: [] }), []);
      t.deepEqual(idsOf(await m.maintenances.all()), [ids[3], ids[0], ids[1], ids[2]]);
      t.deepEqual(idsOf(await m.maintenances.ofProject(other)), [ids[3]]);
      t.deepEqual(
        await m.maintenances.get(ids[1], { all: false, projectIds: [project] }),
        view(ids[1], {
          monitor_ids: [monitor],
          schedule: weekly,
          description: 'Sunday backups',
          created_at: '2026-02-02T00:00:00.000Z',
          updated_at: '2026-02-02T00:00:00.000Z',
        }),
      );
      t.is(await m.maintenances.get(ids[1], { all: false, projectIds: [other] }), null, 'out of scope');
      t.deepEqual(await m.maintenances.openFor(project, monitor), [], 'nothing is open yet');

      const open = { start: '2026-03-01T02:00:00.000Z', end: '2026-03-01T04:00:00.000Z' };
      const sunday = { start: '2026-03-01T01:00:00.000Z', end: '2026-03-01T02:30:00.000Z' };
      const second = recorded();
      const opening = () =>
        m.stores.maintenances.commit([second], (_r, w) => {
          w.started(ids[0], open);
          w.started(ids[1], sunday);
          w.started(ids[2], open);
          w.started(ids[3], open);
          w.updated(ids[1], { title: 'Backups', description: null }, '2026-02-10T00:00:00.000Z');
        });
      await opening();
      await opening();
      t.deepEqual(idsOf(await m.maintenances.openFor(project, monitor)), [ids[0], ids[1]], '"all" covers it too');
      t.deepEqual(idsOf(await m.maintenances.openFor(project, elsewhere)), [ids[0], ids[2]]);
      t.deepEqual(idsOf(await m.maintenances.openFor(other, monitor)), [ids[3]]);
      t.deepEqual(await m.maintenances.openFor(randomUUID(), monitor), []);
      t.like(await m.maintenances.get(ids[1], { all: true }), {
        title: 'Backups',
        description: null,
        open: sunday,
        updated_at: '2026-02-10T00:00:00.000Z',
        schedule: weekly,
      });

      const third = recorded();
      await m.stores.maintenances.commit([third], (_r, w) => {
        w.ended(ids[0]);
        w.updated(ids[2], { monitor_ids: [monitor] }, '2026-02-11T00:00:00.000Z');
        w.deleted(ids[3]);
      });
      t.deepEqual(idsOf(await m.maintenances.openFor(project, monitor)), [ids[1], ids[2]]);
      t.deepEqual(await m.maintenances.openFor(project, elsewhere), []);
      t.is((await m.maintenances.get(ids[0], { all: true }))?.open, null);
      t.is(await m.maintenances.get(ids[3], { all: true }), null);
      t.deepEqual(await m.maintenances.ofProject(other), []);
      t.deepEqual(idsOf(await m.maintenances.all()), [ids[0], ids[1], ids[2]]);
    },
  );
};
