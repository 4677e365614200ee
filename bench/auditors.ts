import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
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
import {
  CONNECTIONS,
  DURATION,
  EVENT,
  KEEP_LOG_AS_WRITTEN,
  WARMUP,
  alternatingSlices,
  currentReadModels,
  embeddedLog,
  median,
  projectWithKey,
  sampleRss,
  singleEventIngest,
  startWatchlog,
  verdict,
  type Watchlog,
} from './support.ts';

/** What the auditors' features cost (issue 15, "Must show"), beside a baseline from the same run:
 *  1. single-event ingest with the checkpoint sealer on (every second, the default) against off
 *     (WATCHLOG_CHECKPOINT_INTERVAL_MS=0), two servers side by side in alternating slices;
 *  2. the time from an append, under that load, to a signed checkpoint that covers it;
 *  3. a replay of BENCH_AUDITORS_RECORDS records (default 1,000,000) through GET /v1/stream, with
 *     the server's RSS growth, against reading the same rows from log.db in this process.
 *  `watchlog verify`'s rate, the fourth figure of the issue, is the verify section. */

const root = fileURLToPath(new URL('..', import.meta.url));
const RECORDS = Number(process.env.BENCH_AUDITORS_RECORDS ?? 1_000_000);
const SLICES = Number(process.env.BENCH_AUDITORS_SLICES ?? 5);
const SAMPLES = Number(process.env.BENCH_AUDITORS_SAMPLES ?? 10);
const ROUNDS = Number(process.env.BENCH_AUDITORS_ROUNDS ?? 2);
/** Records per GET /v1/stream: the route's largest page, so a replay is few requests. */
const PAGE = 100_000;
const TARGETS = {
  sealingRatio: 0.95,
  checkpointMs: 1500,
  replayPerSec: 50_000,
  rssGrowthMb: 100,
  loadedRssMb: 300,
} as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

// --- 1. sealing on against off ------------------------------------------------------------

export interface IngestSide {
  requestsPerSec: number;
  slices: number[];
  p99s: number[];
  errors: number;
}

const ingestSides = async (servers: readonly Watchlog[], keys: readonly string[]): Promise<IngestSide[]> => {
  for (const [i, w] of servers.entries())
    if (WARMUP > 0)
      await autocannon({ ...singleEventIngest(w.base, keys[i]!), connections: CONNECTIONS, duration: WARMUP });
  const slice = DURATION / SLICES;
  const results = await alternatingSlices(servers.length, SLICES, (i) =>
    autocannon({ ...singleEventIngest(servers[i]!.base, keys[i]!), connections: CONNECTIONS, duration: slice }),
  );
  return results.map((runs) => ({
    requestsPerSec: runs.reduce((n, r) => n + r.requests.total, 0) / (slice * runs.length),
    slices: runs.map((r) => r.requests.total / slice),
    p99s: runs.map((r) => r.latency.p99),
    errors: runs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
  }));
};

// --- 2. checkpoint latency under load -----------------------------------------------------

export interface CheckpointLatency {
  /** From sending the append to seeing a checkpoint that covers it, per sample. */
  samplesMs: number[];
  /** From sending the append to the checkpoint's `signed_at` (the server's clock, the same machine). */
  signedMs: number[];
  /** The append's own answer time, per sample. */
  ackMs: number[];
  /** Single-event ingest meanwhile, req/s. */
  loadPerSec: number;
}

const get = async (w: Watchlog, url: string) => fetch(`${w.base}${url}`, { headers: w.auth });

const treeSize = async (w: Watchlog, projectId: string): Promise<number> => {
  const res = await fetch(`${w.base}/v1/stream?project_id=${projectId}`, { method: 'HEAD', headers: w.auth });
  if (!res.ok) throw new Error(`HEAD /v1/stream: ${res.status}`);
  return Number(res.headers.get('watchlog-tree-size'));
};

const latestCheckpoint = async (
  w: Watchlog,
  projectId: string,
): Promise<{ size: number; signed_at: string } | null> => {
  const res = await get(w, `/v1/checkpoints/latest?project_id=${projectId}`);
  if (res.status === 404) {
    await res.arrayBuffer();
    return null;
  }
  if (!res.ok) throw new Error(`GET /v1/checkpoints/latest: ${res.status}`);
  return (await res.json()) as { size: number; signed_at: string };
};

/** The marks go to a project of their own that nothing else writes to: its tree size before a
 *  mark is the mark's leaf index, exactly, without reading the loaded project's stream (which
 *  would add a reader's load to what is measured). The projector and the sealer serve every
 *  project alike, so the mark waits for what the loaded project's appends put before it. */
const checkpointLatency = async (w: Watchlog, loadKey: string): Promise<CheckpointLatency> => {
  const marks = await projectWithKey(w, 'auditors-marks');
  const out: CheckpointLatency = { samplesMs: [], signedMs: [], ackMs: [], loadPerSec: 0 };
  let stopLoad = () => {};
  const loaded = new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { ...singleEventIngest(w.base, loadKey), connections: CONNECTIONS, duration: 3600 },
      (err: unknown, r) => (err ? reject(err) : resolve(r)),
    );
    stopLoad = () => instance.stop();
  });
  try {
    await sleep(1000);
    for (let i = 0; i < SAMPLES; i += 1) {
      // Until every record of the project so far is sealed: then nothing but the mark is pending.
      let index = await treeSize(w, marks.id);
      for (const deadline = Date.now() + 30_000; ((await latestCheckpoint(w, marks.id))?.size ?? -1) < index; ) {
        if (Date.now() > deadline) throw new Error('the marks project was not sealed within 30 s');
        await sleep(50);
        index = await treeSize(w, marks.id);
      }
      const wall = Date.now();
      const sent = performance.now();
      const res = await fetch(`${w.base}/v1/audit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': marks.key },
        body: EVENT,
      });
      await res.arrayBuffer();
      if (res.status !== 202) throw new Error(`POST /v1/audit: ${res.status}`);
      out.ackMs.push(performance.now() - sent);
      for (;;) {
        const latest = await latestCheckpoint(w, marks.id);
        if (latest !== null && latest.size > index) {
          out.samplesMs.push(performance.now() - sent);
          out.signedMs.push(Date.parse(latest.signed_at) - wall);
          break;
        }
        if (performance.now() - sent > 30_000) throw new Error(`no checkpoint covered leaf ${index} within 30 s`);
        await sleep(10);
      }
      // Spread the marks over the sealer's period rather than just after each of its ticks.
      await sleep((i * 617) % 1000);
    }
  } finally {
    stopLoad();
  }
  out.loadPerSec = (await loaded).requests.average;
  return out;
};

// --- 3. replay of a filled data dir -------------------------------------------------------

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
const filledDataDir = async (records: number): Promise<Fill & { dir: string }> => {
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
const replay = async (w: Watchlog, projectId: string): Promise<Replay> => {
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
const readRows = (dir: string, projectId: string): { rows: number; perSec: number } => {
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

// --- the section --------------------------------------------------------------------------

export interface AuditorsReport {
  sealingOn: IngestSide;
  sealingOff: IngestSide;
  /** The median of the adjacent slices' ratios, on / off. */
  ratio: number;
  /** Latest checkpoint sizes of the loaded project after the slices (off: none). */
  sealed: { on: number | null; off: number | null };
  checkpoint: CheckpointLatency;
  fill: Fill;
  replays: Replay[];
  baseline: Array<{ rows: number; perSec: number }>;
  /** The same server (its million records stored) under single-event ingest: its RSS. */
  loaded: { requestsPerSec: number; rssBeforeMb: number; rssPeakMb: number };
}

export const auditorsBenchmark = async (): Promise<AuditorsReport> => {
  const dirs = [
    mkdtempSync(path.join(tmpdir(), 'watchlog-bench-')),
    mkdtempSync(path.join(tmpdir(), 'watchlog-bench-')),
  ];
  const servers: Watchlog[] = [];
  let part1: Pick<AuditorsReport, 'sealingOn' | 'sealingOff' | 'ratio' | 'sealed' | 'checkpoint'>;
  try {
    servers.push(await startWatchlog(dirs[0]!, { WATCHLOG_CHECKPOINT_INTERVAL_MS: '1000' }));
    servers.push(await startWatchlog(dirs[1]!, { WATCHLOG_CHECKPOINT_INTERVAL_MS: '0' }));
    const projects = [await projectWithKey(servers[0]!, 'bench'), await projectWithKey(servers[1]!, 'bench')];
    process.stderr.write(`  ingest with sealing on and off, ${SLICES} alternating slices…\n`);
    const [on, off] = await ingestSides(
      servers,
      projects.map((p) => p.key),
    );
    const sealed = {
      on: (await latestCheckpoint(servers[0]!, projects[0]!.id))?.size ?? null,
      off: (await latestCheckpoint(servers[1]!, projects[1]!.id))?.size ?? null,
    };
    await servers[1]!.child.stop();
    process.stderr.write(`  checkpoint latency under load, ${SAMPLES} samples…\n`);
    const checkpoint = await checkpointLatency(servers[0]!, projects[0]!.key);
    part1 = {
      sealingOn: on!,
      sealingOff: off!,
      ratio: median(on!.slices.map((v, i) => v / off!.slices[i]!)),
      sealed,
      checkpoint,
    };
  } finally {
    for (const s of servers) await s.child.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }

  process.stderr.write(`  a data dir of ${RECORDS} records (BENCH_AUDITORS_RECORDS) under .bench/…\n`);
  const { dir, ...fill } = await filledDataDir(RECORDS);
  const server = await startWatchlog(dir, KEEP_LOG_AS_WRITTEN, '/readyz');
  const replays: Replay[] = [];
  const baseline: Array<{ rows: number; perSec: number }> = [];
  let loaded: AuditorsReport['loaded'];
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      process.stderr.write(`  replay round ${round + 1}/${ROUNDS}…\n`);
      baseline.push(readRows(dir, fill.projectId));
      replays.push(await replay(server, fill.projectId));
    }
    process.stderr.write('  the same server under single-event ingest, its RSS sampled…\n');
    const { key } = await projectWithKey(server, 'ingest');
    const rss = sampleRss(server.child.process.pid!);
    const load = await autocannon({
      ...singleEventIngest(server.base, key),
      connections: CONNECTIONS,
      duration: DURATION,
    });
    const { beforeKb, peakKb } = rss.stop();
    loaded = {
      requestsPerSec: load.requests.average,
      rssBeforeMb: Math.round(beforeKb / 1024),
      rssPeakMb: Math.round(peakKb / 1024),
    };
  } finally {
    await server.child.stop();
  }
  return { ...part1, fill, replays, baseline, loaded };
};

export const printAuditors = (r: AuditorsReport): string[] => {
  const side = (name: string, s: IngestSide) =>
    `${name.padEnd(44)} ${fmt(s.requestsPerSec).padStart(6)} req/s   p99 ${median(s.p99s)} ms   errors ${s.errors}   slices ${s.slices.map(fmt).join(' ')}`;
  const c = r.checkpoint;
  const ms = (xs: number[]) => xs.map((x) => fmt(x)).join(', ');
  const worstReplay = r.replays.reduce((a, b) => (b.perSec < a.perSec ? b : a));
  const worstRss = Math.max(...r.replays.map((x) => x.rssGrowthMb));
  const rate = Math.round((r.fill.records / r.fill.appendMs) * 1000);
  return [
    `auditors (issue 15's cost): ${DURATION} s of single-event ingest each at ${CONNECTIONS} connections in ${SLICES} alternating slices; ${SAMPLES} checkpoint samples; ${r.replays.length} replays of ${fmt(r.fill.records)} records`,
    side('watchlog POST /v1/audit, sealing on (1 s)', r.sealingOn),
    side('watchlog POST /v1/audit, sealing off (baseline)', r.sealingOff),
    `sealing on / off (median of the slices): ${(r.ratio * 100).toFixed(1)}%   ${verdict(r.ratio >= TARGETS.sealingRatio)} (target >= ${TARGETS.sealingRatio * 100}%)` +
      `; latest checkpoint after the slices: on ${r.sealed.on ?? 'none'}, off ${r.sealed.off ?? 'none'}`,
    `append to a covering checkpoint, under load (${fmt(c.loadPerSec)} req/s): p50 ${fmt(median(c.samplesMs))} ms, max ${fmt(Math.max(...c.samplesMs))} ms   ` +
      `${verdict(Math.max(...c.samplesMs) <= TARGETS.checkpointMs)} (target <= ${TARGETS.checkpointMs} ms)`,
    `    samples ${ms(c.samplesMs)} ms; signed after ${ms(c.signedMs)} ms; the append answered in p50 ${fmt(median(c.ackMs))} ms`,
    `    fill: ${r.fill.reused ? 'reused .bench/ (filled earlier: ' : ''}appended in ${(r.fill.appendMs / 1000).toFixed(1)} s (${fmt(rate)} records/s), ` +
      `read models built in ${(r.fill.projectMs / 1000).toFixed(1)} s${r.fill.reused ? ')' : ''}`,
    ...r.replays.map(
      (x, i) =>
        `replay GET /v1/stream #${i + 1}: ${fmt(x.records)} records, ${fmt(x.bytes / 1e6)} MB in ${x.pages} pages, ${x.seconds.toFixed(1)} s: ${fmt(x.perSec)} records/s; ` +
        `server RSS ${x.rssBeforeMb} → peak ${x.rssPeakMb} MB (+${x.rssGrowthMb} MB)`,
    ),
    `replay rate (worst of ${r.replays.length}): ${fmt(worstReplay.perSec)} records/s   ${verdict(worstReplay.perSec >= TARGETS.replayPerSec)} (target >= ${fmt(TARGETS.replayPerSec)})` +
      `; x${(worstReplay.perSec / median(r.baseline.map((b) => b.perSec))).toFixed(2)} the baseline`,
    `replay RSS growth (worst): ${worstRss} MB   ${verdict(worstRss < TARGETS.rssGrowthMb)} (target < ${TARGETS.rssGrowthMb} MB)`,
    `baseline (the same rows read from log.db with better-sqlite3 in the bench process): ${r.baseline.map((b) => fmt(b.perSec)).join(', ')} rows/s`,
    `server RSS with ${fmt(r.fill.records)} records stored, under single-event ingest (${fmt(r.loaded.requestsPerSec)} req/s): ` +
      `${r.loaded.rssBeforeMb} MB before, peak ${r.loaded.rssPeakMb} MB   ${verdict(r.loaded.rssPeakMb < TARGETS.loadedRssMb)} (target < ${TARGETS.loadedRssMb} MB)`,
  ];
};
