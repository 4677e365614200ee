import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { BLANK, MISSING_LEAF, PROBLEM, checkBatch, type BatchResult, type LineProblem } from './leaf.ts';
import { LeafThreads } from './leaf-threads.ts';
import type { Checkpoint } from './note.ts';
import { StreamingRoot } from './tree.ts';

/** Checks a replayed stream (the NDJSON of `GET /v1/stream`, docs/auditors.md) against
 *  checkpoints, in one pass with flat memory: batches of lines are checked (leaf.ts) in this
 *  thread or, past the first few megabytes, in worker threads; their results are taken in order
 *  here, where leaf indexes are followed and leaf hashes folded into roots. */

export type StreamFailureKind = 'malformed' | 'edited' | 'deleted' | 'reordered' | 'missing' | 'truncated' | 'altered';

export interface StreamFailure {
  readonly kind: StreamFailureKind;
  /** The leaf index the failure is about, when there is one. */
  readonly index: number | null;
  /** The line of the stream it was found at (from 1), or null at the end of the stream. */
  readonly line: number | null;
  readonly message: string;
}

export interface StreamReport {
  /** Lines read as leaves, missing ones included. */
  readonly leaves: number;
  /** Missing records accepted by their leaf hash (--allow-missing). */
  readonly missing: number;
  /** The checkpoints whose root the leaves gave, smallest first. */
  readonly verified: ReadonlyArray<{ size: number; root: Buffer }>;
}

export type StreamResult = { ok: true; report: StreamReport } | { ok: false; failure: StreamFailure };

export interface StreamOptions {
  /** Accept `{"missing":true}` lines by the leaf hash they carry, instead of failing on them. */
  readonly allowMissing: boolean;
  /** Worker threads for the per-line work; default one per core, none on a single core. */
  readonly threads?: number;
  /** Bytes checked in this thread before threads start (default 4 MB): a small stream is done
   *  sooner than threads would be ready. */
  readonly inThreadBytes?: number;
  /** About how many bytes of lines make a batch (default 1 MB). */
  readonly batchBytes?: number;
}

/** Batches sent and not yet taken, per thread: enough that a thread the machine's other work
 *  holds up for a while does not leave the others idle (see LeafThreads.check). */
const IN_FLIGHT_PER_THREAD = 4;

/** The parts joined, in memory of their own (not a slice of a shared pool). */
const joined = (parts: readonly Buffer[], bytes: number): Buffer => {
  const all = Buffer.allocUnsafeSlow(bytes);
  let at = 0;
  for (const part of parts) at += part.copy(all, at, 0, Math.min(part.length, bytes - at));
  return all;
};

/** The stream cut at newlines into batches of about `batchBytes`, each a buffer that is all of
 *  its ArrayBuffer: the batch is copied once, from the stream's chunks, and then handed to a
 *  thread as it is. */
async function* batchesOf(input: Readable, batchBytes: number): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    held.push(buf);
    heldBytes += buf.length;
    if (heldBytes < batchBytes) continue;
    const end = buf.lastIndexOf(0x0a);
    // Within a line longer than a batch: read on, joining only once a newline comes.
    if (end < 0) continue;
    const cut = heldBytes - buf.length + end + 1;
    yield joined(held, cut);
    held = cut < heldBytes ? [buf.subarray(end + 1)] : [];
    heldBytes -= cut;
  }
  if (heldBytes > 0) yield joined(held, heldBytes);
}

const describe = (index: number, lineNo: number, p: LineProblem): string => {
  const where = [`line ${lineNo}`];
  if (p.position !== null) where.push(`position ${p.position}`);
  if (p.id !== null) where.push(`id ${p.id}`);
  return `leaf ${index} (${where.join(', ')})`;
};

const b64 = (hash: Buffer) => hash.toString('base64');

/** What depends on order: the leaf indexes seen so far, the tree, the checkpoints still due. */
class LeafOrder {
  private readonly due: Checkpoint[];
  private readonly verified: Array<{ size: number; root: Buffer }> = [];
  private readonly tree = new StreamingRoot();
  private missing = 0;
  private lines = 0;
  /** A leaf index skipped at `line`: reordered if it shows up later, deleted if not. */
  private gap: { index: number; line: number; found: number } | null = null;

  constructor(checkpoints: readonly Checkpoint[]) {
    this.due = [...checkpoints].sort((a, b) => a.size - b.size);
  }

  /** Compares the root with every checkpoint of the current size. */
  checkRoots(): StreamFailure | null {
    while (this.due.length > 0 && this.due[0]!.size === this.tree.size) {
      const checkpoint = this.due.shift()!;
      const root = this.tree.root();
      if (!root.equals(checkpoint.root)) {
        const after = this.verified.at(-1)?.size ?? 0;
        return {
          kind: 'altered',
          index: null,
          line: null,
          message:
            `the root of the first ${checkpoint.size} leaves is ${b64(root)}, ` +
            `the checkpoint signed ${b64(checkpoint.root)}: ` +
            'every record gives its own leaf hash, so the stored tree itself was altered, ' +
            `between sizes ${after} and ${checkpoint.size}` +
            (after > 0 ? ` (the first ${after} leaves match the checkpoint of size ${after})` : ''),
        };
      }
      this.verified.push({ size: checkpoint.size, root });
    }
    return null;
  }

  /** Takes a batch's lines in order; the first failure, if any. */
  take(batch: BatchResult): StreamFailure | null {
    for (let i = 0; i < batch.lines; i += 1) {
      const code = batch.codes[i];
      if (code === BLANK) continue;
      const lineNo = this.lines + i + 1;
      const index = batch.indexes[i]!;
      if (this.gap !== null) {
        if (index !== this.gap.index) continue;
        const { index: late, line, found } = this.gap;
        return {
          kind: 'reordered',
          index: late,
          line: lineNo,
          message:
            `leaf ${late} was reordered: line ${line} holds leaf ${found} where leaf ${late} belongs, and ` +
            `leaf ${late} comes later, at line ${lineNo}`,
        };
      }
      const expected = this.tree.size;
      if (Number.isNaN(index)) return this.problem(batch, i, lineNo);
      if (index < expected) {
        return {
          kind: 'reordered',
          index,
          line: lineNo,
          message:
            `leaf ${index} was reordered: it comes again at line ${lineNo}, after leaf ${expected - 1} (a ` +
            `duplicate or out-of-order record)`,
        };
      }
      if (index > expected) {
        // Whether the skipped leaf was moved or removed shows only further on.
        this.gap = { index: expected, line: lineNo, found: index };
        continue;
      }
      if (code === PROBLEM) return this.problem(batch, i, lineNo);
      if (code === MISSING_LEAF) this.missing += 1;
      this.tree.append(batch.hashes, 32 * i);
      const failure = this.checkRoots();
      if (failure) return failure;
    }
    this.lines += batch.lines;
    return null;
  }

  private problem(batch: BatchResult, at: number, lineNo: number): StreamFailure {
    const p = batch.problem;
    const expected = this.tree.size;
    if (p === null || p.at !== at)
      return {
        kind: 'malformed',
        index: expected,
        line: lineNo,
        message: `line ${lineNo} cannot be read (expected leaf ${expected})`,
      };
    if (p.kind === 'malformed')
      return {
        kind: 'malformed',
        index: expected,
        line: lineNo,
        message: `line ${lineNo} ${p.reason} (expected leaf ${expected})`,
      };
    if (p.kind === 'missing') {
      return {
        kind: 'missing',
        index: expected,
        line: lineNo,
        message:
          `leaf ${expected} (line ${lineNo}${p.position === null ? '' : `, position ${p.position}`}) is ` +
          `missing: the tree holds it but the log no longer has the record (--allow-missing accepts it by ` +
          `its leaf hash)`,
      };
    }
    return {
      kind: 'edited',
      index: expected,
      line: lineNo,
      message:
        `${describe(expected, lineNo, p)} was edited: ` +
        `its fields hash to ${p.computed}, ` +
        `the tree holds ${p.given}`,
    };
  }

  /** At the end of the stream: a leaf never found, a checkpoint never reached, or the report. */
  finish(): StreamResult {
    if (this.gap !== null) {
      const { index, line, found } = this.gap;
      const message =
        index === 0
          ? `leaf 0 is not in the stream (it starts at leaf ${found}, line ${line}): deleted, or the stream ` +
            `does not start at the project's first record`
          : `leaf ${index} was deleted: line ${line} holds leaf ${found} right after leaf ${index - 1}, and ` +
            `leaf ${index} is nowhere in the stream`;
      return { ok: false, failure: { kind: 'deleted', index, line, message } };
    }
    const next = this.due[0];
    if (next !== undefined) {
      const size = this.tree.size;
      return {
        ok: false,
        failure: {
          kind: 'truncated',
          index: size,
          line: null,
          message:
            `the stream is truncated: it ends after ${size} leaves, and the checkpoint of size ${next.size} ` +
            `needs leaves ${size} to ${next.size - 1} too (the first missing is leaf ${size})`,
        },
      };
    }
    return { ok: true, report: { leaves: this.tree.size, missing: this.missing, verified: this.verified } };
  }
}

export const verifyStream = async (
  input: Readable,
  checkpoints: readonly Checkpoint[],
  options: StreamOptions,
): Promise<StreamResult> => {
  const order = new LeafOrder(checkpoints);
  const atStart = order.checkRoots();
  if (atStart) return { ok: false, failure: atStart };
  const cores = availableParallelism();
  const threadCount = options.threads ?? (cores > 1 ? cores : 0);
  const inThreadBytes = options.inThreadBytes ?? 4 << 20;
  let threads: LeafThreads | null = null;
  const pending: Array<Promise<BatchResult>> = [];
  let read = 0;
  try {
    for await (const batch of batchesOf(input, options.batchBytes ?? 1 << 20)) {
      const bytes = batch.length;
      let failure: StreamFailure | null = null;
      if (threadCount === 0 || read < inThreadBytes) {
        failure = order.take(checkBatch(batch, options.allowMissing));
      } else {
        threads ??= new LeafThreads(threadCount);
        // The batch is handed over: it is empty here from now on.
        pending.push(threads.check(batch, options.allowMissing));
        if (pending.length >= threadCount * IN_FLIGHT_PER_THREAD) failure = order.take(await pending.shift()!);
      }
      if (failure) return { ok: false, failure };
      read += bytes;
    }
    for (const answer of pending) {
      const failure = order.take(await answer);
      if (failure) return { ok: false, failure };
    }
    return order.finish();
  } finally {
    await threads?.close();
  }
};
