import type Database from 'better-sqlite3';
import type { Redaction } from '../event-log.ts';
import { compressBlockSync, decompressBlock } from './blocks.ts';
import { restAfterWrite } from './rest-after-write.ts';
import type { LogStatements } from './statements.ts';

const REDACT_PAGE = 100;

/** Each transaction holds the write lock for a hundred rows (a few ms), and the next waits
 *  (restAfterWrite): the writer thread's group commits get in between. They are not
 *  fsynced one by one (synchronous=NORMAL on this connection for the while): the writer's next
 *  commit syncs the WAL they are in, and one lost to a crash is redone by the next run (retention
 *  and erasure are repeatable). */
export const redactRecords = async (
  db: Database.Database,
  stmts: LogStatements,
  redactions: readonly Redaction[],
): Promise<number> => {
  let replaced = 0;
  const run = db.transaction((page: readonly Redaction[]) => {
    const compressed = new Map<number, Redaction[]>();
    for (const r of page) {
      const at = stmts.blockOf.get(Number(r.position));
      if (at === undefined) continue;
      if (at.block === null)
        replaced += stmts.redact.run(
          r.type,
          JSON.stringify(r.data),
          JSON.stringify(r.metadata),
          Number(r.position),
        ).changes;
      else if (compressed.has(at.block)) compressed.get(at.block)!.push(r);
      else compressed.set(at.block, [r]);
    }
    for (const [block, rs] of compressed) replaced += rewriteBlock(stmts, block, rs);
  });
  db.pragma('synchronous = NORMAL');
  try {
    for (let i = 0; i < redactions.length; i += REDACT_PAGE) {
      const started = performance.now();
      run.immediate(redactions.slice(i, i + REDACT_PAGE));
      if (i + REDACT_PAGE < redactions.length) await restAfterWrite(started);
    }
  } finally {
    db.pragma('synchronous = FULL');
  }
  return replaced;
};

/** A redaction of compressed records writes their block again, under a new id: the old
 *  payloads leave the file with the old block (an erasure must not leave them in it), and no
 *  reader's cached copy of a block is ever out of date. Records whose rows are gone are
 *  dropped from the new block. */
const rewriteBlock = (stmts: LogStatements, block: number, redactions: readonly Redaction[]): number => {
  const body = stmts.blockBody.get(block)?.body;
  if (!body) throw new Error(`log.db: block ${block} does not exist`);
  const records = new Map(
    decompressBlock(body)
      .records()
      .map((record) => [record.position, record]),
  );
  for (const r of redactions) {
    const record = records.get(Number(r.position));
    if (!record) throw new Error(`log.db: event ${r.position} is missing from its block ${block}`);
    record.type = r.type;
    record.data = JSON.stringify(r.data);
    record.metadata = JSON.stringify(r.metadata);
  }
  const kept = [...records.values()].filter((record) => stmts.blockOf.get(record.position)?.block === block);
  stmts.deleteBlock.run(block);
  if (kept.length === 0) return redactions.length;
  const id = Number(stmts.insertBlock.run(compressBlockSync(kept)).lastInsertRowid);
  for (const record of kept) stmts.moveToBlock.run(id, record.type, record.position);
  return redactions.length;
};
