import { createHash, hash } from 'node:crypto';

/** RFC 6962 §2.1 hashing and the RFC 9162 proof checks (§2.1.3.2 inclusion, §2.1.4.2
 *  consistency), written from the RFCs. Sizes and indexes are plain numbers: exact up to 2^53,
 *  which no checkpoint parsed here exceeds (see note.ts). */

export const EMPTY_ROOT: Buffer = hash('sha256', new Uint8Array(0), 'buffer');

const NODE_PREFIX = 0x01;

/** SHA-256(0x00 ‖ leaf bytes), the leaf bytes given as the text they are the UTF-8 of: a string
 *  is hashed as UTF-8, and "\0" is the byte 0x00. One call, no intermediate Buffer. */
export const leafHashOfText = (text: string): Buffer => hash('sha256', `\0${text}`, 'buffer');

const LEAF_PREFIX = new Uint8Array([0x00]);

export const leafHash = (bytes: Uint8Array): Buffer => createHash('sha256').update(LEAF_PREFIX).update(bytes).digest();

/** 0x01 ‖ left ‖ right, reused: one native call per node, and a tree of a million leaves hashes
 *  a million nodes. */
const nodeInput = Buffer.alloc(65);
nodeInput[0] = NODE_PREFIX;

export const nodeHash = (left: Uint8Array, right: Uint8Array): Buffer => {
  if (left.length !== 32 || right.length !== 32) throw new RangeError('a node hashes two 32-byte hashes');
  nodeInput.set(left, 1);
  nodeInput.set(right, 33);
  return hash('sha256', nodeInput, 'buffer');
};

/** The root of a tree read one leaf at a time, in O(log n) memory: the roots of its complete
 *  subtrees, largest (leftmost) first, one per bit set in the size. They are kept side by side in
 *  one buffer, after the input of a node hash: two neighbours are a node's input in one copy, and
 *  its hash is taken as a binary (latin1) string and written back (node's hash() gives a Buffer
 *  about three times slower, and a tree of a million leaves hashes a million nodes). */
export class StreamingRoot {
  /** 0x01 ‖ left ‖ right at [0, 65), then the subtrees' roots, 32 bytes each. */
  private readonly memory = Buffer.alloc(65 + 32 * 64);
  private readonly input = this.memory.subarray(0, 65);
  private subtrees = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Appends the leaf hash at `leaf[offset, offset + 32)`. */
  append(leaf: Uint8Array, offset = 0): void {
    if (leaf.length < offset + 32) throw new RangeError('a leaf hash has 32 bytes');
    const memory = this.memory;
    const at = 65 + 32 * this.subtrees;
    for (let k = 0; k < 32; k += 1) memory[at + k] = leaf[offset + k]!;
    this.subtrees += 1;
    // Each trailing 1 bit of the old size is a complete subtree the new leaf's subtree pairs with.
    for (let bits = this.count; bits % 2 === 1; bits = (bits - 1) / 2) {
      this.subtrees -= 1;
      this.pair(65 + 32 * (this.subtrees - 1));
    }
    this.count += 1;
  }

  /** Hashes the subtree roots at `at` and `at + 32` into the one at `at`. */
  private pair(at: number): void {
    this.memory[0] = NODE_PREFIX;
    this.memory.copyWithin(1, at, at + 64);
    this.memory.write(hash('sha256', this.input, 'binary'), at, 32, 'binary');
  }

  /** The root of the leaves so far: the subtrees folded from the right, as RFC 6962 splits. */
  root(): Buffer {
    if (this.subtrees === 0) return EMPTY_ROOT;
    let right: Buffer = Buffer.from(this.memory.subarray(65 + 32 * (this.subtrees - 1), 65 + 32 * this.subtrees));
    for (let i = this.subtrees - 2; i >= 0; i -= 1)
      right = nodeHash(this.memory.subarray(65 + 32 * i, 65 + 32 * i + 32), right);
    return right;
  }
}

const isOdd = (n: number) => n % 2 === 1;
const half = (n: number) => Math.floor(n / 2);
const isPowerOfTwo = (n: number): boolean => {
  let m = n;
  while (m > 1 && m % 2 === 0) m /= 2;
  return m === 1;
};

/** RFC 9162 §2.1.3.2: does `proof` show that `leaf` is leaf `index` of the tree of `size` leaves
 *  whose root is `root`? */
export const verifyInclusion = (
  index: number,
  size: number,
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): boolean => {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && Buffer.from(r).equals(root);
};

/** RFC 9162 §2.1.4.2: does `proof` show that the tree of `from` leaves with root `fromRoot` is a
 *  prefix of the tree of `to` leaves with root `toRoot`? */
export const verifyConsistency = (
  from: number,
  to: number,
  fromRoot: Uint8Array,
  toRoot: Uint8Array,
  proof: readonly Uint8Array[],
): boolean => {
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && from <= to)) return false;
  // The RFC's algorithm starts from a non-empty proof; the two trivial cases have empty ones
  // (RFC 9162 §2.1.4.1): a tree is consistent with itself, and the empty tree with any tree.
  if (from === to) return proof.length === 0 && Buffer.from(fromRoot).equals(toRoot);
  if (from === 0) return proof.length === 0 && Buffer.from(fromRoot).equals(EMPTY_ROOT);
  if (proof.length === 0) return false;
  // A power-of-two old tree is a complete subtree of the new one: the proof leaves out its root.
  const path = isPowerOfTwo(from) ? [fromRoot, ...proof] : proof;
  let fn = from - 1;
  let sn = to - 1;
  while (isOdd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (isOdd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!isOdd(fn)) {
        while (!isOdd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && Buffer.from(fr).equals(fromRoot) && Buffer.from(sr).equals(toRoot);
};
