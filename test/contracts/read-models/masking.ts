import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const maskingContract = (withModels: WithModels): void => {
  withModels(
    "masking: a project's rules, replaced whole by each set; replays change nothing; reset forgets them",
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const first = [recorded()];
      const second = [recorded()];
      const applyFirst = () =>
        m.stores.masking.commit(first, (_r, w) => {
          w.rulesSet({
            project_id: p,
            keys: ['Session-Id', '$where', 'a.b'],
            patterns: ['sk_live_[0-9]+'],
            updated_at: '2026-01-01T00:00:00.000Z',
          });
          w.rulesSet({ project_id: q, keys: ['x'], patterns: [], updated_at: '2026-01-01T00:00:01.000Z' });
        });
      const applySecond = () =>
        m.stores.masking.commit(second, (_r, w) => {
          w.rulesSet({ project_id: p, keys: [], patterns: ['(?i)^bearer '], updated_at: '2026-01-02T00:00:00.000Z' });
        });
      t.is(await m.masking.rulesOf(p), null);
      await applyFirst();
      t.deepEqual(await m.masking.rulesOf(p), {
        project_id: p,
        keys: ['Session-Id', '$where', 'a.b'],
        patterns: ['sk_live_[0-9]+'],
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      await applySecond();
      await applyFirst();
      await applySecond();
      t.deepEqual(await m.masking.rulesOf(p), {
        project_id: p,
        keys: [],
        patterns: ['(?i)^bearer '],
        updated_at: '2026-01-02T00:00:00.000Z',
      });
      t.deepEqual(await m.masking.rulesOf(q), {
        project_id: q,
        keys: ['x'],
        patterns: [],
        updated_at: '2026-01-01T00:00:01.000Z',
      });
      await m.stores.masking.reset();
      t.is(await m.masking.rulesOf(p), null);
      t.is(await m.masking.rulesOf(q), null);
    },
  );
};
