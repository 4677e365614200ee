import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const otlpContract = (withModels: WithModels): void => {
  withModels(
    "otlp: a project's settings, replaced whole by each set; replays change nothing; reset forgets them",
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const first = [recorded()];
      const second = [recorded()];
      const firstOfP = {
        project_id: p,
        identifier_attribute: 'app.user',
        default_environment: 'staging',
        unsupported_methods: 'nearest',
        updated_at: '2026-01-01T00:00:00.000Z',
      } as const;
      const ofQ = { ...firstOfP, project_id: q, identifier_attribute: null, updated_at: '2026-01-01T00:00:01.000Z' };
      const secondOfP = {
        ...firstOfP,
        identifier_attribute: null,
        default_environment: 'development',
        unsupported_methods: 'skip',
        updated_at: '2026-01-02T00:00:00.000Z',
      } as const;
      const applyFirst = () =>
        m.stores.otlp.commit(first, (_r, w) => {
          w.settingsSet(firstOfP);
          w.settingsSet(ofQ);
        });
      const applySecond = () => m.stores.otlp.commit(second, (_r, w) => w.settingsSet(secondOfP));
      t.is(await m.otlp.settingsOf(p), null);
      await applyFirst();
      t.deepEqual(await m.otlp.settingsOf(p), firstOfP);
      await applySecond();
      await applyFirst();
      await applySecond();
      t.deepEqual(await m.otlp.settingsOf(p), secondOfP);
      t.deepEqual(await m.otlp.settingsOf(q), ofQ);
      await m.stores.otlp.reset();
      t.is(await m.otlp.settingsOf(p), null);
      t.is(await m.otlp.settingsOf(q), null);
    },
  );
};
