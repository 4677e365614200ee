import { decodeHash } from './base64.ts';
import { leafText, type RecordFields } from './canonical.ts';
import { NOT_SURE, leafOfLine } from './leaf-bytes.ts';
import { leafHashOfText } from './tree.ts';

/** The per-line work of stream verification, on a batch of lines: recompute each line's leaf hash
 *  from its fields and compare it with the `leaf_hash` it carries (from the line's bytes when
 *  they are written as the server writes them, leaf-bytes.ts; else parsed, canonical.ts, which
 *  also tells what is wrong with a line). What depends on order (leaf indexes, roots) is the
 *  caller's (stream.ts). This runs in the main thread or in a worker thread (leaf-worker.ts), so
 *  a batch's result is a few typed arrays, cheap to transfer. */

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

const text = (value: unknown): string | null =>
  typeof value === 'string' || typeof value === 'number' ? String(value) : null;

/** Checks the lines of `batch` (bytes cut at newlines, a "\r" before one dropped; a last line
 *  without one is read too). Each line is read by its bytes (leaf-bytes.ts) when they are written
 *  the way the server writes them, and otherwise, or when something is wrong with it, parsed and
 *  its leaf text made again (canonical.ts), which decides what is wrong. */
export const checkBatch = (batch: Buffer, allowMissing: boolean): BatchResult => {
  const starts: number[] = [];
  const stops: number[] = [];
  for (let at = 0; at < batch.length; ) {
    const newline = batch.indexOf(0x0a, at);
    const stop = newline < 0 ? batch.length : newline;
    starts.push(at);
    stops.push(stop > at && batch[stop - 1] === 0x0d ? stop - 1 : stop);
    at = stop + 1;
  }
  const n = starts.length;
  const codes = new Uint8Array(n);
  const indexes = new Float64Array(n).fill(Number.NaN);
  const hashes = new Uint8Array(32 * n);
  const hashBytes = Buffer.from(hashes.buffer);
  let problem: LineProblem | null = null;
  const fail = (at: number, kind: ProblemKind, r: StreamLine | null, details: Partial<LineProblem> = {}) => {
    codes[at] = PROBLEM;
    problem ??= {
      at,
      kind,
      index: Number.isNaN(indexes[at]!) ? null : indexes[at]!,
      position: text(r?.position),
      id: text(r?.id),
      computed: null,
      given: null,
      reason: null,
      ...details,
    };
  };
  for (let i = 0; i < n; i += 1) {
    const start = starts[i]!;
    const stop = stops[i]!;
    if (stop === start) {
      codes[i] = BLANK;
      continue;
    }
    if (problem === null) {
      const index = leafOfLine(batch, start, stop, hashBytes, i);
      if (index !== NOT_SURE) {
        indexes[i] = index;
        codes[i] = LEAF;
        continue;
      }
    }
    let r: StreamLine;
    try {
      r = JSON.parse(batch.toString('utf8', start, stop)) as StreamLine;
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
    if (problem !== null) {
      codes[i] = PROBLEM;
      continue;
    }
    if (typeof r.leaf_hash !== 'string') {
      fail(i, 'malformed', r, { reason: 'has no leaf_hash' });
      continue;
    }
    if (r.missing === true) {
      const given = decodeHash(r.leaf_hash);
      if (!allowMissing) fail(i, 'missing', r);
      else if (given === null)
        fail(i, 'malformed', r, { reason: 'is missing, and its leaf_hash is not the base64 of a 32-byte hash' });
      else {
        hashes.set(given, 32 * i);
        codes[i] = MISSING_LEAF;
      }
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
