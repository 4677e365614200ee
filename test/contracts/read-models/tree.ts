import { createHash, randomUUID } from 'node:crypto';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, subtreeRoot } from '../../../src/domain/merkle.ts';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import type { TreeWriter } from '../../../src/views/tree/port.ts';
import { recorded, type WithModels } from './harness.ts';

export const treeContract = (withModels: WithModels): void => {
  withModels(
    'tree: leaves per project in log order, heads and subtree roots as the RFC builds them; leaves by position; ' +
      'replays add nothing; the latest checkpoint',
    async (t, m) => {
      const store = m.stores.tree;
      const [a, b] = [randomUUID(), randomUUID()];
      const events = Array.from({ length: 37 }, (_, i) => ({
        r: recorded(),
        project: i % 3 === 0 ? b : a,
        hash: createHash('sha256').update(`leaf ${i}`).digest(),
      }));
      const apply = (r: RecordedEvent, w: TreeWriter) => {
        const e = events.find((x) => x.r === r);
        if (e) w.leaf(e.project, r.position, e.hash);
      };
      await store.commit(
        events.slice(0, 20).map((e) => e.r),
        apply,
      );
      await store.commit(
        events.slice(10, 37).map((e) => e.r),
        apply,
      );
      await store.commit(
        events.slice(0, 37).map((e) => e.r),
        apply,
      );
      const expected = (project: string) => {
        let frontier = EMPTY_FRONTIER;
        for (const e of events.filter((x) => x.project === project)) frontier = appendLeaf(frontier, e.hash).frontier;
        return frontier;
      };
      for (const project of [a, b]) {
        const head = await m.tree.head(project);
        const want = expected(project);
        t.is(head?.frontier.size, want.size);
        t.deepEqual(head?.root, frontierRoot(want));
        t.deepEqual(
          await subtreeRoot((level, index) => m.tree.node(project, level, index), 0, want.size),
          frontierRoot(want),
          'from stored subtrees',
        );
      }
      const ofA = events.filter((x) => x.project === a);
      const page = await m.tree.leavesFrom(a, ofA[5]!.r.position, 4);
      t.deepEqual(
        page.map((l) => [l.index, l.position, l.hash.toString('hex')]),
        ofA.slice(5, 9).map((e, i) => [5 + i, e.r.position, e.hash.toString('hex')]),
      );
      t.deepEqual(await m.tree.leavesFrom(a, String(Number(events[36]!.r.position) + 1), 4), []);
      t.deepEqual((await m.tree.heads()).map((h) => h.project_id).sort(), [a, b].sort());
      t.is(await m.tree.latestCheckpoint(a), null);
      const checkpoint = {
        project_id: a,
        size: 10,
        root: 'cm9vdA==',
        note: 'note',
        signed_at: '2026-01-01T00:00:00.000Z',
        position: '0',
      };
      const signed = recorded();
      await store.commit([signed], (_r, w) => w.checkpointSigned({ ...checkpoint, position: signed.position }));
      t.deepEqual(await m.tree.latestCheckpoint(a), { ...checkpoint, position: signed.position });
      t.is((await m.tree.head(a))?.checkpoint_size, 10);
      await t.throwsAsync(m.tree.node(a, 9, 0));
    },
  );
};
