import { createHash, hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/** A project's Merkle tree (RFC 6962 §2.1 hashing, RFC 9162 proofs), as the server builds it:
 *  the leaf bytes of a record, appending leaves to a tree kept as its right edge (the "frontier"),
 *  roots, and inclusion and consistency proofs from stored subtree hashes. Pure: hashes in, hashes
 *  out. The offline verifier (src/verify/) is a second, independent implementation. */

export type Hash = Buffer;

const sha256 = (...parts: Uint8Array[]): Hash => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

export const EMPTY_ROOT: Hash = sha256();

/** What a record is, for its leaf: position-independent, so both logs give the same leaves. */
export interface LeafRecord {
  readonly id: string;
  readonly stream: string;
  readonly revision: number;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
}

/** The canonical JSON (RFC 8785) of the record's position-independent fields, as UTF-8. */
export const leafBytes = (r: LeafRecord): Buffer =>
  Buffer.from(
    canonicalJson({
      data: r.data,
      id: r.id,
      metadata: r.metadata,
      revision: r.revision,
      stream: r.stream,
      type: r.type,
    }),
    'utf8',
  );

export const leafHash = (bytes: Uint8Array): Hash => sha256(LEAF_PREFIX, bytes);

/** `leafHash(leafBytes(r))` in one step: the text is hashed as it is encoded, no bytes copied (its
 *  UTF-8 is the leaf bytes: JSON.stringify escapes lone surrogates, so the text is well formed). */
export const recordLeafHash = (r: LeafRecord): Hash =>
  hash(
    'sha256',
    `\u0000${canonicalJson({
      data: r.data,
      id: r.id,
      metadata: r.metadata,
      revision: r.revision,
      stream: r.stream,
      type: r.type,
    })}`,
    'buffer',
  ) as Hash;
export const nodeHash = (left: Uint8Array, right: Uint8Array): Hash =>
  hash('sha256', Buffer.concat([NODE_PREFIX, left, right], 1 + left.length + right.length), 'buffer') as Hash;

/** The largest power of two smaller than n (n > 1). */
const splitOf = (n: number): number => {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
};

/** A tree kept by its right edge: the roots of its complete subtrees, largest (leftmost) first,
 *  one per bit set in `size`. That is all an append needs, and the root is their fold. */
export interface Frontier {
  readonly size: number;
  readonly nodes: readonly Hash[];
}

export const EMPTY_FRONTIER: Frontier = { size: 0, nodes: [] };

/** A complete subtree's root: `level` 0 is a leaf, level L covers leaves [index·2^L, (index+1)·2^L). */
export interface StoredNode {
  readonly level: number;
  readonly index: number;
  readonly hash: Hash;
}

/** Appends one leaf: the new frontier, and every complete subtree the leaf completes (the leaf
 *  itself first), to be stored for proofs. */
export const appendLeaf = (frontier: Frontier, leaf: Hash): { frontier: Frontier; completed: StoredNode[] } => {
  const nodes = [...frontier.nodes];
  const completed: StoredNode[] = [{ level: 0, index: frontier.size, hash: leaf }];
  let hash = leaf;
  let index = frontier.size;
  let level = 0;
  // Each trailing 1 bit of the old size is a subtree of this level that the new one pairs with.
  while (index % 2 === 1) {
    const left = nodes.pop();
    if (left === undefined) throw new Error('frontier does not match its size');
    hash = nodeHash(left, hash);
    index = (index - 1) / 2;
    level += 1;
    completed.push({ level, index, hash });
  }
  nodes.push(hash);
  return { frontier: { size: frontier.size + 1, nodes }, completed };
};

/** The tree's root: its complete subtrees folded from the right (RFC 6962's split). */
export const frontierRoot = (frontier: Frontier): Hash => {
  if (frontier.nodes.length === 0) return EMPTY_ROOT;
  let root = frontier.nodes[frontier.nodes.length - 1]!;
  for (let i = frontier.nodes.length - 2; i >= 0; i -= 1) root = nodeHash(frontier.nodes[i]!, root);
  return root;
};

/** Reads a stored complete subtree's root. */
export type NodeReader = (level: number, index: number) => Promise<Hash>;

const isPowerOfTwo = (n: number) => n > 0 && (n & (n - 1)) === 0;

/** The root of leaves [start, end), from stored complete subtrees. */
export const subtreeRoot = async (read: NodeReader, start: number, end: number): Promise<Hash> => {
  const size = end - start;
  if (size === 0) return EMPTY_ROOT;
  if (isPowerOfTwo(size) && start % size === 0) return read(Math.log2(size), start / size);
  const k = splitOf(size);
  return nodeHash(await subtreeRoot(read, start, start + k), await subtreeRoot(read, start + k, end));
};

/** RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of `size` leaves, leaf side first. */
export const inclusionProof = async (read: NodeReader, index: number, size: number): Promise<Hash[]> => {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path = async (m: number, start: number, end: number): Promise<Hash[]> => {
    const n = end - start;
    if (n === 1) return [];
    const k = splitOf(n);
    return m < k
      ? [...(await path(m, start, start + k)), await subtreeRoot(read, start + k, end)]
      : [...(await path(m - k, start + k, end)), await subtreeRoot(read, start, start + k)];
  };
  return path(index, 0, size);
};

/** RFC 9162 §2.1.4.1: the proof that the tree of `from` leaves is a prefix of the tree of `to`. */
export const consistencyProof = async (read: NodeReader, from: number, to: number): Promise<Hash[]> => {
  if (!(from >= 0 && from <= to)) throw new RangeError(`no consistency proof from ${from} to ${to}`);
  if (from === 0 || from === to) return [];
  const subproof = async (m: number, start: number, end: number, complete: boolean): Promise<Hash[]> => {
    const n = end - start;
    if (m === n) return complete ? [] : [await subtreeRoot(read, start, end)];
    const k = splitOf(n);
    return m <= k
      ? [...(await subproof(m, start, start + k, complete)), await subtreeRoot(read, start + k, end)]
      : [...(await subproof(m - k, start + k, end, false)), await subtreeRoot(read, start, start + k)];
  };
  return subproof(from, 0, to, true);
};
