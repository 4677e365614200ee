import { randomUUID } from 'node:crypto';
import type { AuditListItem } from '../../../src/views/audit-events/port.ts';
import type { OrphansWriter } from '../../../src/views/orphans/port.ts';
import { recorded, type WithModels } from './harness.ts';

export const orphansContract = (withModels: WithModels): void => {
  withModels(
    'orphans: pairing in either order within the window, per project; replays change nothing',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const t0 = Date.UTC(2026, 7, 1, 12, 0);
      const item = (projectId: string, second: number, path: string): AuditListItem => ({
        id: randomUUID(),
        project_id: projectId,
        event_type: 'http',
        method: 'GET',
        path,
        status_code: 200,
        response_time: 5,
        identifier: 'u',
        user_email: null,
        service_name: 'spa',
        environment: 'production',
        timestamp: new Date(t0 + second * 1000).toISOString(),
      });
      const plan: Array<(w: OrphansWriter) => void> = [
        (w) => w.browserEvent(item(p, 0, '/a'), 'r1'),
        (w) => w.backendEvent(p, 'r1', t0 + 120_000),
        (w) => w.backendEvent(p, 'r2', t0),
        (w) => w.browserEvent(item(p, 121, '/b'), 'r2'),
        (w) => w.browserEvent(item(q, 5, '/c'), 'r1'),
      ];
      const batch = plan.map(() => recorded());
      const apply = () => m.stores.orphans.commit(batch, (r, w) => plan[batch.indexOf(r)]!(w));
      await apply();
      await apply();
      const page = await m.orphans.list({ settledBefore: t0 + 3_600_000, page: 1, limit: 10 }, { all: true });
      const mine = page.data.filter((e) => e.project_id === p || e.project_id === q);
      t.deepEqual(
        mine.map((e) => [e.path, e.request_id]),
        [
          ['/b', 'r2'],
          ['/c', 'r1'],
        ],
      );
      t.is(
        (await m.orphans.list({ settledBefore: t0 + 60_000, page: 1, limit: 10 }, { all: false, projectIds: [p, q] }))
          .pagination.totalItems,
        1,
      );
      t.is(
        (
          await m.orphans.list(
            { project_id: p, settledBefore: t0 + 3_600_000, page: 1, limit: 10 },
            { all: false, projectIds: [q] },
          )
        ).pagination.totalItems,
        0,
      );
    },
  );
};
