import type Database from 'better-sqlite3';
import type { CompactionResult } from '../event-log.ts';
import { compressBlock, compressible } from './blocks.ts';
import { restAfterWrite } from './rest-after-write.ts';
import type { InlineRow, LogStatements } from './statements.ts';

/** How the log compresses records past its recent tail (blocks.ts). */
export interface CompactionOptions {
  /** Records at the head of the log left as they are: the live tail that projections, appendOnce
   *  and recent reads touch. */
  keepRecent?: number;
  /** Positions looked at per step; a block's records all come from one such window, so a replay
   *  needs at most one window's blocks decoded at a time. */
  window?: number;
  /** Records per block at most. */
  blockRecords?: number;
  /** Records whose streams share a family share blocks (by default each stream is its own). */
  familyOf?: (stream: string) => string;
}

export const compactionSettings = (options: CompactionOptions = {}): Required<CompactionOptions> => ({
  keepRecent: 10_000,
  window: 4096,
  blockRecords: 128,
  familyOf: (stream) => stream,
  ...options,
});

/** A row changed between compaction's read and its write (a redaction ran meanwhile). */
class ChangedMeanwhile extends Error {}

/** Positions compaction reads at once. */
const READ_SLICE = 512;

/** Compresses the records behind the log's recent tail into blocks, a window of positions at
 *  a time (see CompactionOptions); resumes where the last run stopped. Deflating runs on
 *  libuv's pool; each block is written in a short transaction of its own, checked against the
 *  rows as they are then, so appends and redactions go on between them. Stops early once the
 *  log is `closed`. */
export const compactLog = async (
  db: Database.Database,
  stmts: LogStatements,
  settings: Required<CompactionOptions>,
  closed: () => boolean,
): Promise<CompactionResult> => {
  const { keepRecent, window, blockRecords, familyOf } = settings;
  const result: CompactionResult = { records: 0, blocks: 0, bytesIn: 0, bytesOut: 0 };
  const limit = (stmts.lastPosition.get()?.position ?? 0) - keepRecent;
  let through = stmts.compactedThrough.get()?.through ?? 0;
  const apply = db.transaction((block: InlineRow[], body: Buffer) => {
    const id = Number(stmts.insertBlock.run(body).lastInsertRowid);
    for (const r of block) {
      if (stmts.uncompacted.run(r.position, r.id, r.type, r.data, r.metadata).changes !== 1)
        throw new ChangedMeanwhile();
      stmts.compacted.run(r.position, r.stream, r.revision, r.type, id);
    }
  });
  while (!closed() && through < limit) {
    const end = Math.min(limit, through + window);
    const families = new Map<string, InlineRow[][]>();
    // Read a slice at a time: the window's rows at once would hold the event loop for tens of ms.
    for (let from = through; from < end; from += READ_SLICE) {
      if (from > through) await new Promise((resolve) => setImmediate(resolve));
      if (closed()) return result;
      for (const row of stmts.compactable.all(from, Math.min(end, from + READ_SLICE))) {
        if (!compressible(row)) continue;
        const family = familyOf(row.stream);
        let chunks = families.get(family);
        if (!chunks) {
          chunks = [];
          families.set(family, chunks);
        }
        const last = chunks[chunks.length - 1];
        if (last && last.length < blockRecords) last.push(row);
        else chunks.push([row]);
      }
    }
    // One block at a time: deflated on libuv's pool, then written in a short transaction of its
    // own, and rested after (restAfterWrite).
    for (const block of [...families.values()].flat()) {
      const body = await compressBlock(block);
      if (closed()) return result;
      const started = performance.now();
      try {
        apply.immediate(block, body);
      } catch (error) {
        // Done again on the next run, from the rows as they are then.
        if (error instanceof ChangedMeanwhile) return result;
        throw error;
      }
      result.blocks += 1;
      result.records += block.length;
      for (const r of block) result.bytesIn += r.id.length + r.data.length + r.metadata.length;
      result.bytesOut += body.length;
      await restAfterWrite(started);
    }
    if (closed()) return result;
    stmts.setCompactedThrough.run(end);
    through = end;
  }
  return result;
};
