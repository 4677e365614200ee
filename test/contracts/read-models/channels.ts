import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const channelsContract = (withModels: WithModels): void => {
  withModels(
    'channels: views without secrets, targets of active opted-in channels and of channels for all projects, ' +
      'updates and removal',
    async (t, m) => {
      const project = randomUUID();
      const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const view = (id: string, over: Record<string, unknown> = {}) => ({
        id,
        project_id: project,
        type: 'webhook' as const,
        name: null,
        url: `https://hooks.test/${id}`,
        has_secret: true,
        settings: {},
        events: ['healthcheck' as const],
        project_scope: 'project' as const,
        quiet_minutes: 0,
        active: true,
        deactivated_reason: null,
        degraded: false,
        degraded_reason: null,
        degraded_since: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        ...over,
      });
      const target = (id: string) => ({
        type: 'webhook' as const,
        url: `https://hooks.test/${id}`,
        secret: 'shh-secret',
      });
      const first = recorded();
      const apply = () =>
        m.stores.channels.commit([first], (_r, w) => {
          w.created(view(ids[0]!), target(ids[0]!));
          w.created(view(ids[1]!, { events: ['alert'], created_at: '2026-01-01T12:00:00.000Z' }), target(ids[1]!));
          w.created(view(ids[2]!, { created_at: '2026-01-02T00:00:00.000Z' }), target(ids[2]!));
          w.created(
            view(ids[3]!, { project_id: randomUUID(), project_scope: 'all', created_at: '2026-01-03T00:00:00.000Z' }),
            target(ids[3]!),
          );
        });
      await apply();
      await apply();
      const idsOf = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
      t.deepEqual(idsOf(await m.channels.list({ all: true }, project)), ids.slice(0, 3));
      t.false(JSON.stringify(await m.channels.list({ all: true })).includes('shh-secret'));
      t.deepEqual(idsOf(await m.channels.targets(project, 'healthcheck')), [ids[0], ids[2], ids[3]]);
      t.deepEqual((await m.channels.targets(project, 'healthcheck'))[0]!.target, target(ids[0]!));
      t.deepEqual(
        idsOf(await m.channels.targets(randomUUID(), 'healthcheck')),
        [ids[3]],
        "a channel for all projects is every project's",
      );
      t.deepEqual(idsOf(await m.channels.targets(project, 'alert')), [ids[1]]);
      t.is(await m.channels.get(ids[0]!, { all: false, projectIds: [randomUUID()] }), null);
      const owner = (await m.channels.get(ids[3]!, { all: true }))!.project_id;
      t.is(
        await m.channels.get(ids[3]!, { all: false, projectIds: [owner] }),
        null,
        "a channel for all projects is an admin's",
      );
      t.deepEqual(await m.channels.list({ all: false, projectIds: [owner] }), []);
      t.deepEqual((await m.channels.target(ids[1]!))?.target, target(ids[1]!));

      const second = recorded();
      await m.stores.channels.commit([second], (_r, w) => {
        w.deactivated(ids[0]!, 'push subscription gone (410)', '2026-01-03T00:00:00.000Z');
        w.degraded(ids[1]!, '3 deliveries in a row failed', '2026-01-03T00:00:01.000Z');
        w.deleted(ids[2]!);
        w.deleted(ids[3]!);
      });
      t.like(await m.channels.get(ids[0]!, { all: true }), {
        active: false,
        deactivated_reason: 'push subscription gone (410)',
      });
      t.like(await m.channels.get(ids[1]!, { all: true }), {
        degraded: true,
        degraded_reason: '3 deliveries in a row failed',
        degraded_since: '2026-01-03T00:00:01.000Z',
      });
      t.deepEqual(await m.channels.targets(project, 'healthcheck'), []);
      t.is(await m.channels.target(ids[2]!), null);
      const third = recorded();
      await m.stores.channels.commit([third], (_r, w) => {
        w.updated(
          ids[0]!,
          { active: true, events: ['healthcheck', 'alert'], name: 'ops', quiet_minutes: 15 },
          '2026-01-04T00:00:00.000Z',
        );
        w.recovered(ids[1]!);
      });
      t.like(await m.channels.get(ids[0]!, { all: true }), {
        active: true,
        deactivated_reason: null,
        events: ['healthcheck', 'alert'],
        name: 'ops',
        quiet_minutes: 15,
        updated_at: '2026-01-04T00:00:00.000Z',
      });
      t.like(await m.channels.get(ids[1]!, { all: true }), {
        degraded: false,
        degraded_reason: null,
        degraded_since: null,
      });
      t.is(await m.channels.get(ids[2]!, { all: true }), null);
    },
  );
};
