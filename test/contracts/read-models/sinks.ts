import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const sinksContract = (withModels: WithModels): void => {
  withModels(
    'sinks: views without secrets by project, every sink with its target, changes and removal',
    async (t, m) => {
      const project = randomUUID();
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      const view = (id: string, over: Record<string, unknown> = {}) => ({
        id,
        project_id: project,
        type: 'splunk_hec' as const,
        name: null,
        active: true,
        filter: {},
        settings: { url: 'https://splunk.test/services/collector/event', token: '********' },
        degraded: false,
        degraded_reason: null,
        degraded_since: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        ...over,
      });
      const target = {
        type: 'splunk_hec' as const,
        url: 'https://splunk.test/services/collector/event',
        token: 'hec-s3cret',
      };
      const first = recorded();
      const apply = () =>
        m.stores.sinks.commit([first], (_r, w) => {
          w.created(view(ids[0]!), target, first.position);
          w.created(view(ids[1]!, { created_at: '2026-01-02T00:00:00.000Z' }), target, first.position);
          w.created(view(ids[2]!, { project_id: randomUUID() }), target, first.position);
        });
      await apply();
      await apply();
      t.deepEqual(
        (await m.sinks.list(project)).map((s) => s.id),
        ids.slice(0, 2),
      );
      t.false(JSON.stringify(await m.sinks.list(project)).includes('hec-s3cret'));
      t.is(await m.sinks.get(randomUUID(), ids[0]!), null, "another project's sink is not found");
      const all = await m.sinks.all();
      t.deepEqual(all.find((r) => r.view.id === ids[0])?.target, target);
      t.is(all.find((r) => r.view.id === ids[0])?.created_position, first.position);

      const second = recorded();
      await m.stores.sinks.commit([second], (_r, w) => {
        w.updated(ids[0]!, { active: false, filter: { event_type: ['http'] } }, '2026-01-03T00:00:00.000Z');
        w.degraded(ids[1]!, 'answered 503', '2026-01-03T00:00:01.000Z');
        w.deleted(ids[2]!);
      });
      t.like(await m.sinks.get(project, ids[0]!), {
        active: false,
        filter: { event_type: ['http'] },
        updated_at: '2026-01-03T00:00:00.000Z',
      });
      t.like(await m.sinks.get(project, ids[1]!), { degraded: true, degraded_reason: 'answered 503' });
      t.false((await m.sinks.all()).some((r) => r.view.id === ids[2]));
      const third = recorded();
      await m.stores.sinks.commit([third], (_r, w) => w.recovered(ids[1]!));
      t.like(await m.sinks.get(project, ids[1]!), { degraded: false, degraded_reason: null, degraded_since: null });
    },
  );
};
