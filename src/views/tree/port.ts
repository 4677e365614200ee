import type { Frontier, Hash } from '../../domain/merkle.ts';
import type { RecordedEvent } from '../../log/event-log.ts';

/** Each project's Merkle tree over its records (docs/auditors.md): its head (size, right edge,
 *  root), every complete subtree's root (leaves are level 0), which record position each leaf
 *  is, and the latest signed checkpoint. */

export interface TreeHead {
  readonly project_id: string;
  readonly frontier: Frontier;
  readonly root: Hash;
  /** The size of the latest signed checkpoint (0 before the first). */
  readonly checkpoint_size: number;
}

export interface TreeLeaf {
  readonly index: number;
  readonly position: string;
  readonly hash: Hash;
}

export interface LatestCheckpoint {
  readonly project_id: string;
  readonly size: number;
  readonly root: string;
  readonly note: string;
  readonly signed_at: string;
  readonly position: string;
}

/** A line of a project's stream (docs/auditors.md#replay-get-v1stream): the record with its leaf;
 *  the leaf alone when the log no longer has the record; for a record that retention or an erasure
 *  replaced, the reason and the leaf hash its tombstone keeps (not the tree's copy: a tombstone
 *  with another hash then fails verification). */
export const streamLine = (leaf: TreeLeaf, record: RecordedEvent | undefined): Record<string, unknown> => {
  if (record === undefined)
    return { leaf_index: leaf.index, position: leaf.position, missing: true, leaf_hash: leaf.hash.toString('base64') };
  if (record.type === 'RecordRedacted') {
    const { reason, leaf_hash } = record.data as { reason: string; leaf_hash: string };
    return { leaf_index: leaf.index, position: leaf.position, missing: true, reason, leaf_hash };
  }
  return {
    leaf_index: leaf.index,
    position: record.position,
    stream: record.stream,
    revision: record.revision,
    type: record.type,
    id: record.id,
    data: record.data,
    metadata: record.metadata,
    recorded_at: record.metadata.recorded_at,
    leaf_hash: leaf.hash.toString('base64'),
  };
};

/** `streamLine` as JSON text. With the record's stored text, its data and metadata are written as
 *  the log keeps them, unparsed: the same JSON value (a leaf is hashed from the canonical form,
 *  whatever the key order), for a fraction of the cost of a parse and a stringify of the body. */
export const streamLineText = (leaf: TreeLeaf, record: RecordedEvent | undefined): string => {
  if (record?.text === undefined || record.type === 'RecordRedacted') return JSON.stringify(streamLine(leaf, record));
  const recordedAt = record.metadata.recorded_at;
  return (
    `{"leaf_index":${leaf.index},"position":${JSON.stringify(record.position)},` +
    `"stream":${JSON.stringify(record.stream)},` +
    `"revision":${record.revision},"type":${JSON.stringify(record.type)},"id":${JSON.stringify(record.id)},` +
    `"data":${record.text.data},"metadata":${record.text.metadata}` +
    `${recordedAt === undefined ? '' : `,"recorded_at":${JSON.stringify(recordedAt)}`},` +
    `"leaf_hash":${JSON.stringify(leaf.hash.toString('base64'))}}`
  );
};

/** A project's stream lines from `fromPosition` on, at most `limit`, a page of records read from
 *  the log at a time (flat memory whatever the size), a page at a time: a consumer that writes
 *  each page as one chunk pays the per-write cost once per page, not once per line. */
export async function* streamPages(
  tree: Pick<TreeQueries, 'leavesFrom'>,
  readPositions: (positions: readonly string[]) => Promise<RecordedEvent[]>,
  projectId: string,
  fromPosition: string,
  limit: number,
  page = 1000,
): AsyncGenerator<Array<{ position: string; text: string }>> {
  let cursor = fromPosition;
  let left = limit;
  while (left > 0) {
    const leaves = await tree.leavesFrom(projectId, cursor, Math.min(page, left));
    if (leaves.length === 0) return;
    const records = new Map((await readPositions(leaves.map((l) => l.position))).map((r) => [r.position, r]));
    yield leaves.map((leaf) => ({ position: leaf.position, text: streamLineText(leaf, records.get(leaf.position)) }));
    cursor = (BigInt(leaves[leaves.length - 1]!.position) + 1n).toString();
    left -= leaves.length;
  }
}

/** The same lines one by one. */
export async function* streamLines(
  ...args: Parameters<typeof streamPages>
): AsyncGenerator<{ position: string; text: string }> {
  for await (const lines of streamPages(...args)) yield* lines;
}

export interface TreeWriter {
  /** The project's next leaf: the record at `position`, whose leaf hash is `hash`. */
  leaf(projectId: string, position: string, hash: Hash): void;
  checkpointSigned(checkpoint: LatestCheckpoint): void;
}

export interface TreeQueries {
  head(projectId: string): Promise<TreeHead | null>;
  /** Every project's head (what the checkpoint sealer compares with what it signed). */
  heads(): Promise<TreeHead[]>;
  /** A stored complete subtree's root: leaves [index·2^level, (index+1)·2^level). */
  node(projectId: string, level: number, index: number): Promise<Hash>;
  /** Leaves from the record at `fromPosition` on (inclusive), in order, at most `limit`. */
  leavesFrom(projectId: string, fromPosition: string, limit: number): Promise<TreeLeaf[]>;
  latestCheckpoint(projectId: string): Promise<LatestCheckpoint | null>;
  /** The position of the leaf `skip` leaves after the first at or after `fromPosition` (a page's
   *  next cursor); null when there is none. */
  positionAfter(projectId: string, fromPosition: string, skip: number): Promise<string | null>;
}
