import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newEvent, type CommandContext } from '../src/commands/handle.ts';
import { toStoredAuditEvent } from '../src/commands/ingest.ts';
import { createProject } from '../src/commands/projects.ts';
import { rebuildEmbeddedReadModels } from '../src/compose/rebuild.ts';
import { openStores } from '../src/compose/stores.ts';
import { loadConfig } from '../src/config.ts';
import type { AuditEventInput } from '../src/domain/audit-event.ts';
import { auditStream, projectStream } from '../src/domain/streams.ts';
import { EVENT, currentReadModels, embeddedLog, sampleRss, type Watchlog } from './support.ts';

/** The auditors section's replay (auditors.ts): a data dir of many records, read back through
 *  GET /v1/stream and, for the baseline, straight from log.db. */

const root = fileURLToPath(new URL('..', import.meta.url));
/** Records per GET /v1/stream: the route's largest page, so a replay is few requests. */
const PAGE = 100_000;

export interface Fill {
  records: number;
  reused: boolean;
  appendMs: number;
  projectMs: number;
  projectId: string;
}

const MARKER = 'bench-auditors.json';

/** BENCH_AUDITORS_RECORDS records of one project (its creation, then audit events as ingest
 *  stores them, masked by ingest's own code) appended straight to the log in appends of 10,000,
 *  then every read model built as `watchlog rebuild` builds them (the tree among them, which
 *  /v1/stream reads its leaves from). Kept in .bench/auditors-<n>/ and reused by later runs. */
export const filledDataDir = async (records: number): Promise<Fill & { dir: string }> => {
  const dir = path.join(root, '.bench', `auditors-${records}`);
  const marker = path.join(dir, MARKER);
  if (existsSync(marker)) {
    const saved = JSON.parse(readFileSync(marker, 'utf8')) as Omit<Fill, 'reused'>;
    await currentReadModels(dir);
    return { ...saved, dir, reused: true };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const stores = await openStores(loadConfig({ WATCHLOG_DATA_DIR: dir }), { writerThread: false });
  try {
    const log = stores.log;
    const start = Date.now() - 3_600_000;
    const ctx = (at: Date): CommandContext => ({ actor: 'system:bench', correlationId: randomUUID(), now: () => at });
    const { id: projectId } = await createProject({ log }, 'replay', ctx(new Date(start)));
    const input = JSON.parse(EVENT) as AuditEventInput;
    const events = records - 1;
    const appending = performance.now();
    let reported = Date.now();
    for (let done = 0; done < events; ) {
      const batch = Array.from({ length: Math.min(10_000, events - done) }, (_, k) => {
        const i = done + k;
        const at = new Date(start + Math.floor((i * 3_600_000) / events));
        const stored = toStoredAuditEvent(
          projectId,
          { ...input, path: `/api/orders/${i}`, request_id: `req-${i.toString(16)}`, response_time: 5 + (i % 200) },
          at,
        );
        return newEvent({ type: 'AuditEventRecorded', data: stored }, { ...ctx(at), correlationId: stored.id });
      });
      await log.append(auditStream(projectId), batch, 'any');
      done += batch.length;
      if (Date.now() - reported > 10_000 || done === events) {
        reported = Date.now();
        process.stderr.write(`  appended ${done + 1}/${records}\n`);
      }
    }
    const appendMs = performance.now() - appending;
    const projecting = performance.now();
    let progressAt = Date.now();
    await rebuildEmbeddedReadModels(
      dir,
      log,
      (p) => {
        if (Date.now() - progressAt < 30_000) return;
        progressAt = Date.now();
        process.stderr.write(`  read models at ${p.position}/${p.head}\n`);
      },
      { laneLog: embeddedLog(dir) },
    );
    const fill = { records, appendMs, projectMs: performance.now() - projecting, projectId };
    writeFileSync(marker, `${JSON.stringify({ made_by: 'bench/auditors.ts', ...fill }, null, 2)}\n`);
    return { ...fill, dir, reused: false };
  } finally {
    await stores.close();
  }
};

export interface Replay {
  records: number;
  bytes: number;
  pages: number;
  seconds: number;
  perSec: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
}

/** GET /v1/stream page after page (Watchlog-Next-From), counting lines and bytes as they arrive
 *  (node:http, not fetch: a client that parses nothing leaves the second core to the server);
 *  the server's VmRSS sampled meanwhile. Checks that the lines are the tree's leaves 0…n−1. */
export const replay = async (w: Watchlog, projectId: string): Promise<Replay> => {
  const rss = sampleRss(w.child.process.pid!);
  const started = performance.now();
  let from: string | null = '0';
  let records = 0;
  let bytes = 0;
  let pages = 0;
  let treeSizeAtStart = -1;
  let lastLine = '';
  while (from !== null) {
    const page = await new Promise<{ next: string | null; size: number; lines: number; bytes: number; last: string }>(
      (resolve, reject) => {
        http
          .get(`${w.base}/v1/stream?project_id=${projectId}&from=${from}&limit=${PAGE}`, { headers: w.auth }, (res) => {
            if (res.statusCode !== 200) {
              reject(new Error(`GET /v1/stream: ${res.statusCode}`));
              res.resume();
              return;
            }
            let lines = 0;
            let n = 0;
            let tail: Buffer = Buffer.alloc(0);
            res.on('data', (chunk: Buffer) => {
              n += chunk.length;
              for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
              tail =
                chunk.length >= 4096
                  ? chunk.subarray(chunk.length - 4096)
                  : Buffer.concat([tail, chunk]).subarray(-4096);
            });
            res.on('end', () =>
              resolve({
                next: (res.headers['watchlog-next-from'] as string | undefined) ?? null,
                size: Number(res.headers['watchlog-tree-size']),
                lines,
                bytes: n,
                last: tail.toString('utf8').trimEnd().split('\n').pop() ?? '',
              }),
            );
            res.on('error', reject);
          })
          .on('error', reject);
      },
    );
    if (treeSizeAtStart < 0) treeSizeAtStart = page.size;
    records += page.lines;
    bytes += page.bytes;
    pages += 1;
    if (page.last !== '') lastLine = page.last;
    from = page.next;
  }
  const seconds = (performance.now() - started) / 1000;
  const { beforeKb, peakKb } = rss.stop();
  const lastIndex = (JSON.parse(lastLine) as { leaf_index: number }).leaf_index;
  if (records !== treeSizeAtStart || lastIndex !== records - 1) {
    throw new Error(`the replay gave ${records} lines ending at leaf ${lastIndex}; the tree holds ${treeSizeAtStart}`);
  }
  const mb = (kb: number) => Math.round(kb / 102.4) / 10;
  return {
    records,
    bytes,
    pages,
    seconds,
    perSec: records / seconds,
    rssBeforeMb: mb(beforeKb),
    rssPeakMb: mb(peakKb),
    rssGrowthMb: mb(peakKb - beforeKb),
  };
};

/** The baseline: the project's rows read from log.db with better-sqlite3 in this process, in log
 *  order, every column touched, nothing parsed or written (the floor under any replay). */
export const readRows = (dir: string, projectId: string): { rows: number; perSec: number } => {
  const db = new Database(path.join(dir, 'log.db'), { readonly: true });
  try {
    const streams = new Set([auditStream(projectId), projectStream(projectId)]);
    const started = performance.now();
    let rows = 0;
    let chars = 0;
    for (const r of db
      .prepare<
        [],
        { position: number; stream: string; revision: number; id: string; type: string; data: string; metadata: string }
      >('SELECT position, stream, revision, id, type, data, metadata FROM events ORDER BY position')
      .iterate()) {
      if (!streams.has(r.stream)) continue;
      rows += 1;
      chars += r.id.length + r.type.length + r.data.length + r.metadata.length;
    }
    if (chars === 0) throw new Error('no rows');
    return { rows, perSec: rows / ((performance.now() - started) / 1000) };
  } finally {
    db.close();
  }
};
