import { decodeHash } from './base64.ts';
import { leafText, type RecordFields } from './canonical.ts';
import { leafHashOfText } from './tree.ts';

/** The per-line work of stream verification, on a batch of lines: parse each, recompute its leaf
 *  hash from its fields and compare it with the `leaf_hash` it carries. What depends on order
 *  (leaf indexes, roots) is the caller's (stream.ts). This runs in the main thread or in a worker
 *  thread (leaf-worker.ts), so a batch's result is a few typed arrays, cheap to transfer. */

/** A line's outcome. */
export const LEAF = 0;
/** A `{"missing":true}` line accepted by its leaf hash (--allow-missing). */
export const MISSING_LEAF = 1;
export const BLANK = 2;
export const PROBLEM = 3;

export type ProblemKind = 'malformed' | 'edited' | 'missing';

/** What is wrong with a line, for the message (stream.ts words it, knowing the line number). */
export interface LineProblem {
  /** The line's place in its batch, from 0. */
  readonly at: number;
  readonly kind: ProblemKind;
  readonly index: number | null;
  readonly position: string | null;
  readonly id: string | null;
  /** For `edited`: the leaf hash the fields give, and the one the line carries. */
  readonly computed: string | null;
  readonly given: string | null;
  /** For `malformed`: what is wrong. */
  readonly reason: string | null;
}

export interface BatchResult {
  /** Lines in the batch, blank ones included. */
  readonly lines: number;
  /** Per line: LEAF, MISSING_LEAF, BLANK or PROBLEM. */
  readonly codes: Uint8Array<ArrayBuffer>;
  /** Per line: its leaf_index, or NaN when it has none that is valid. */
  readonly indexes: Float64Array<ArrayBuffer>;
  /** Per line: its leaf hash, 32 bytes (zeros unless LEAF or MISSING_LEAF). */
  readonly hashes: Uint8Array<ArrayBuffer>;
  /** The first PROBLEM line's details: the only one the caller can reach, as it stops there. */
  readonly problem: LineProblem | null;
}

/** One line of the stream, as far as this file reads it. */
interface StreamLine extends RecordFields {
  readonly leaf_index?: unknown;
  readonly leaf_hash?: unknown;
  readonly missing?: unknown;
  readonly position?: unknown;
}

const text = (value: unknown): string | null => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

/** Checks the lines of `batch` (text cut at newlines; a last line without one is read too). */
export const checkBatch = (batch: string, allowMissing: boolean): BatchResult => {
  const lines = batch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const n = lines.length;
  const codes = new Uint8Array(n);
  const indexes = new Float64Array(n).fill(Number.NaN);
  const hashes = new Uint8Array(32 * n);
  let problem: LineProblem | null = null;
  const fail = (at: number, kind: ProblemKind, r: StreamLine | null, details: Partial<LineProblem> = {}) => {
    codes[at] = PROBLEM;
    problem ??= {
      at, kind, index: Number.isNaN(indexes[at]!) ? null : indexes[at]!, position: text(r?.position), id: text(r?.id),
      computed: null, given: null, reason: null, ...details,
    };
  };
  for (let i = 0; i < n; i += 1) {
    let line = lines[i]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.length === 0) { codes[i] = BLANK; continue; }
    let r: StreamLine;
    try {
      r = JSON.parse(line) as StreamLine;
    } catch {
      fail(i, 'malformed', null, { reason: 'is not JSON' });
      continue;
    }
    const index = r !== null && typeof r === 'object' ? r.leaf_index : undefined;
    if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0) {
      fail(i, 'malformed', null, { reason: 'is not a record of the stream: no leaf_index' });
      continue;
    }
    indexes[i] = index;
    // After the first problem, only the indexes still matter (for telling a moved leaf from a
    // deleted one): the caller stops at that problem, or before it.
    if (problem !== null) { codes[i] = PROBLEM; continue; }
    if (typeof r.leaf_hash !== 'string') {
      fail(i, 'malformed', r, { reason: 'has no leaf_hash' });
      continue;
    }
    if (r.missing === true) {
      const given = decodeHash(r.leaf_hash);
      if (!allowMissing) fail(i, 'missing', r);
      else if (given === null) fail(i, 'malformed', r, { reason: 'is missing, and its leaf_hash is not the base64 of a 32-byte hash' });
      else { hashes.set(given, 32 * i); codes[i] = MISSING_LEAF; }
      continue;
    }
    const leaf = leafHashOfText(leafText(r));
    const computed = leaf.toString('base64');
    if (computed !== r.leaf_hash) {
      fail(i, 'edited', r, { computed, given: r.leaf_hash });
      continue;
    }
    hashes.set(leaf, 32 * i);
    codes[i] = LEAF;
  }
  return { lines: n, codes, indexes, hashes, problem };
};
