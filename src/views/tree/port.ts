import type { Frontier, Hash } from '../../domain/merkle.ts';

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

export interface TreeLeaf { readonly index: number; readonly position: string; readonly hash: Hash }

export interface LatestCheckpoint { readonly project_id: string; readonly size: number; readonly root: string; readonly note: string; readonly signed_at: string; readonly position: string }

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
