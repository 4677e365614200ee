import { treeProjection } from '../../projections/tree.ts';
import { EMPTY_FRONTIER, appendLeaf, leafBytes, leafHash } from '../../src/domain/merkle.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import { projectionTests } from '../helpers/fold.ts';

const it = projectionTests(treeProjection, (m) => m.stores.tree);

const P = '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c01';
const MONITOR = '5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c02';
const at = '2026-04-01T12:00:00.000Z';
const event = (id: string): DomainEvent => ({
  type: 'AuditEventRecorded',
  data: {
    id,
    project_id: P,
    event_type: 'http',
    timestamp: at,
    path: '/x',
    method: 'GET',
    identifier: 'ann',
    service_name: 'shop',
    environment: 'production',
    source: 'backend',
  },
});

it(
  'a record that retention or an erasure replaced is the leaf its tombstone keeps, ' + 'the one the record had',
  async (t, f) => {
    const [record] = f.recorder.record([event('e1')]);
    await f.foldRecorded([record!]);
    const hash = leafHash(leafBytes(record!));
    const [leaf] = await f.models.tree.leavesFrom(P, '0', 10);
    t.deepEqual(leaf?.hash, hash);
    const other = 'ffffffff-4e5f-4a6b-8c7d-9e0f1a2b3c01';
    await f.fold([
      { type: 'RecordRedacted', data: { project_id: other, reason: 'retention', leaf_hash: hash.toString('base64') } },
    ]);
    t.deepEqual(
      (await f.models.tree.leavesFrom(other, '0', 10)).map((l) => l.hash),
      [hash],
    );
    t.deepEqual((await f.models.tree.head(other))?.root, hash, "a one-leaf tree's root is its leaf");
  },
);

it("a monitor's check results are not leaves (the log keeps only the last 200); its transitions are", async (t, f) => {
  await f.fold([
    {
      type: 'CheckRecorded',
      data: { monitor_id: MONITOR, project_id: P, checked_at: at, ok: true, response_ms: 5, status_code: 200 },
    },
    {
      type: 'MonitorStatusEstablished',
      data: {
        monitor_id: MONITOR,
        project_id: P,
        status: 'UP',
        checked_at: at,
        ok: true,
        response_ms: 5,
        status_code: 200,
      },
    },
  ]);
  t.is((await f.models.tree.head(P))?.frontier.size, 1);
});

it(
  "every complete subtree of 20 leaves is the RFC's, at every level, " +
    'whether stored or hashed from its leaves when asked',
  async (t, f) => {
    const records = f.recorder.record(Array.from({ length: 20 }, (_, i) => event(`e${i}`)));
    await f.foldRecorded(records);
    let frontier = EMPTY_FRONTIER;
    const want = new Map<string, Buffer>();
    for (const r of records) {
      const appended = appendLeaf(frontier, leafHash(leafBytes(r)));
      frontier = appended.frontier;
      for (const n of appended.completed) want.set(`${n.level}:${n.index}`, n.hash);
    }
    t.is(want.size, 20 + 10 + 5 + 2 + 1);
    for (const [key, hash] of want) {
      const [level, index] = key.split(':').map(Number) as [number, number];
      t.deepEqual(await f.models.tree.node(P, level, index), hash, key);
    }
    // Subtrees that are not complete yet are not in the tree.
    await t.throwsAsync(f.models.tree.node(P, 2, 5));
    await t.throwsAsync(f.models.tree.node(P, 3, 2));
  },
);
