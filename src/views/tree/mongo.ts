import { Binary, MongoBulkWriteError, type AnyBulkWriteOperation, type Db } from 'mongodb';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, type Frontier, type Hash } from '../../domain/merkle.ts';
import type { LatestCheckpoint, TreeHead, TreeLeaf, TreeQueries, TreeWriter } from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

/** Each project's tree in MongoDB: a head document per project (size, right edge, the last log
 *  position it applied, the latest checkpoint), one document per complete subtree root, and one
 *  per leaf's record position. Subtree and leaf documents are keyed by what they are, so writing
 *  them again changes nothing; the head moves by compare-and-set on its size, so a replayed batch
 *  (or a former lease holder's late one) appends each record once. */
interface HeadDoc {
  _id: string;
  size: number;
  frontier: Binary[];
  applied_through: number;
  checkpoint_size?: number;
  checkpoint?: LatestCheckpoint;
}
interface NodeDoc {
  _id: string;
  project_id: string;
  level: number;
  idx: number;
  hash: Binary;
}
interface LeafDoc {
  _id: string;
  project_id: string;
  position: number;
  idx: number;
}

const HEADS = 'tree_heads';
const NODES = 'tree_nodes';
const LEAVES = 'tree_leaves';

const treeMongoSchema: MongoSchema = {
  version: 3,
  collections: [HEADS, NODES, LEAVES],
  async ensureIndexes(db) {
    await db.collection(LEAVES).createIndexes([{ key: { project_id: 1, position: 1 } }]);
  },
};

const nodeId = (projectId: string, level: number, index: number) => `${projectId}/${level}/${index}`;
const hashOf = (b: Binary): Hash => Buffer.from(b.buffer);
const frontierOf = (doc: HeadDoc | null): Frontier =>
  doc === null ? EMPTY_FRONTIER : { size: doc.size, nodes: doc.frontier.map(hashOf) };

interface Pending {
  leaves: Array<{ position: number; hash: Hash }>;
  checkpoint: LatestCheckpoint | null;
}

const MAX_ATTEMPTS = 5;

/** One batch's leaves and checkpoints, project by project: the subtree and leaf documents first
 *  (idempotent), then each head, guarded by the size it was read at. A head another writer moved
 *  meanwhile is read again, and only what it does not have yet is appended. */
const applyBatch = async (db: Db, batch: ReadonlyMap<string, Pending>): Promise<void> => {
  const heads = db.collection<HeadDoc>(HEADS);
  let ids = [...batch.keys()];
  for (let attempt = 1; ids.length > 0; attempt += 1) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`tree: heads kept changing under this batch (${ids.length} projects)`);
    const stored = new Map((await heads.find({ _id: { $in: ids } }).toArray()).map((h) => [h._id, h]));
    const nodes: AnyBulkWriteOperation<NodeDoc>[] = [];
    const leaves: AnyBulkWriteOperation<LeafDoc>[] = [];
    const headWrites: AnyBulkWriteOperation<HeadDoc>[] = [];
    const written: string[] = [];
    for (const projectId of ids) {
      const pending = batch.get(projectId)!;
      const doc = stored.get(projectId) ?? null;
      const appliedThrough = doc?.applied_through ?? -1;
      let frontier = frontierOf(doc);
      let last = appliedThrough;
      for (const { position, hash } of pending.leaves) {
        if (position <= appliedThrough) continue;
        const appended = appendLeaf(frontier, hash);
        leaves.push({
          updateOne: {
            filter: { _id: `${projectId}/${position}` },
            update: { $setOnInsert: { project_id: projectId, position, idx: frontier.size } },
            upsert: true,
          },
        });
        for (const n of appended.completed) {
          const _id = nodeId(projectId, n.level, n.index);
          nodes.push({
            updateOne: {
              filter: { _id },
              update: {
                $setOnInsert: { project_id: projectId, level: n.level, idx: n.index, hash: new Binary(n.hash) },
              },
              upsert: true,
            },
          });
        }
        frontier = appended.frontier;
        last = position;
      }
      const checkpoint =
        pending.checkpoint !== null && pending.checkpoint.size > (doc?.checkpoint_size ?? 0)
          ? pending.checkpoint
          : null;
      if (last === appliedThrough && checkpoint === null) continue;
      const set: Partial<HeadDoc> = {
        size: frontier.size,
        frontier: frontier.nodes.map((h) => new Binary(h)),
        applied_through: last,
      };
      if (checkpoint !== null) Object.assign(set, { checkpoint_size: checkpoint.size, checkpoint });
      written.push(projectId);
      headWrites.push(
        doc === null
          ? { insertOne: { document: { _id: projectId, ...set } as HeadDoc } }
          : {
              updateOne: {
                filter: { _id: projectId, size: doc.size, applied_through: doc.applied_through },
                update: { $set: set },
              },
            },
      );
    }
    if (nodes.length > 0) await db.collection<NodeDoc>(NODES).bulkWrite(nodes, { ordered: false });
    if (leaves.length > 0) await db.collection<LeafDoc>(LEAVES).bulkWrite(leaves, { ordered: false });
    if (headWrites.length === 0) return;
    let landed: number;
    try {
      const result = await heads.bulkWrite(headWrites, { ordered: false });
      landed = result.insertedCount + result.matchedCount;
    } catch (error) {
      const errors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
      if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw error;
      landed = 0;
    }
    if (landed === headWrites.length) return;
    ids = written;
  }
};

const mongoTreeWriter = (ops: BulkOps): TreeWriter => {
  const batch = new Map<string, Pending>();
  const pendingOf = (projectId: string): Pending => {
    if (batch.size === 0) ops.defer((db) => applyBatch(db, batch));
    let pending = batch.get(projectId);
    if (!pending) {
      pending = { leaves: [], checkpoint: null };
      batch.set(projectId, pending);
    }
    return pending;
  };
  return {
    leaf(projectId, position, hash) {
      pendingOf(projectId).leaves.push({ position: Number(position), hash });
    },
    checkpointSigned(checkpoint) {
      pendingOf(checkpoint.project_id).checkpoint = checkpoint;
    },
  };
};

const toHead = (doc: HeadDoc): TreeHead => {
  const frontier = frontierOf(doc);
  return { project_id: doc._id, frontier, root: frontierRoot(frontier), checkpoint_size: doc.checkpoint_size ?? 0 };
};

class MongoTreeQueries implements TreeQueries {
  constructor(private readonly db: Db) {}

  async head(projectId: string): Promise<TreeHead | null> {
    const doc = await this.db.collection<HeadDoc>(HEADS).findOne({ _id: projectId });
    return doc && toHead(doc);
  }

  async heads(): Promise<TreeHead[]> {
    return (await this.db.collection<HeadDoc>(HEADS).find().sort({ _id: 1 }).toArray()).map(toHead);
  }

  async node(projectId: string, level: number, index: number): Promise<Hash> {
    const doc = await this.db.collection<NodeDoc>(NODES).findOne({ _id: nodeId(projectId, level, index) });
    if (!doc) throw new Error(`project ${projectId}: no subtree ${level}:${index} in the tree`);
    return hashOf(doc.hash);
  }

  async leavesFrom(projectId: string, fromPosition: string, limit: number): Promise<TreeLeaf[]> {
    const leaves = await this.db
      .collection<LeafDoc>(LEAVES)
      .find({ project_id: projectId, position: { $gte: Number(fromPosition) } })
      .sort({ position: 1 })
      .limit(limit)
      .toArray();
    if (leaves.length === 0) return [];
    const hashes = new Map(
      (
        await this.db
          .collection<NodeDoc>(NODES)
          .find({ _id: { $in: leaves.map((l) => nodeId(projectId, 0, l.idx)) } })
          .toArray()
      ).map((n) => [n.idx, hashOf(n.hash)]),
    );
    return leaves.map((l) => {
      const hash = hashes.get(l.idx);
      if (!hash) throw new Error(`project ${projectId}: leaf ${l.idx} has no hash`);
      return { index: l.idx, position: String(l.position), hash };
    });
  }

  async positionAfter(projectId: string, fromPosition: string, skip: number): Promise<string | null> {
    const [leaf] = await this.db
      .collection<LeafDoc>(LEAVES)
      .find({ project_id: projectId, position: { $gte: Number(fromPosition) } }, { projection: { position: 1 } })
      .sort({ position: 1 })
      .skip(skip)
      .limit(1)
      .toArray();
    return leaf ? String(leaf.position) : null;
  }

  async latestCheckpoint(projectId: string): Promise<LatestCheckpoint | null> {
    return (
      (await this.db.collection<HeadDoc>(HEADS).findOne({ _id: projectId }, { projection: { checkpoint: 1 } }))
        ?.checkpoint ?? null
    );
  }
}

export const mongoTree: MongoReadModel<TreeWriter, TreeQueries> = {
  schema: treeMongoSchema,
  batchWriter: () => mongoTreeWriter,
  queries: (db) => new MongoTreeQueries(db),
};
