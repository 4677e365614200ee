import autocannon from 'autocannon';
import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  checkpointLatency,
  ingestSides,
  latestCheckpoint,
  type CheckpointLatency,
  type IngestSide,
} from './auditors-sealing.ts';
import { filledDataDir, readRows, replay, type Fill, type Replay } from './auditors-replay.ts';
import {
  CONNECTIONS,
  DURATION,
  KEEP_LOG_AS_WRITTEN,
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
 *  `watchlog verify`'s rate, the fourth figure of the issue, is the verify section. The sealer's
 *  measures are in auditors-sealing.ts, the replay in auditors-replay.ts. */

const RECORDS = Number(process.env.BENCH_AUDITORS_RECORDS ?? 1_000_000);
const SLICES = Number(process.env.BENCH_AUDITORS_SLICES ?? 5);
const SAMPLES = Number(process.env.BENCH_AUDITORS_SAMPLES ?? 10);
const ROUNDS = Number(process.env.BENCH_AUDITORS_ROUNDS ?? 2);
const TARGETS = {
  sealingRatio: 0.95,
  checkpointMs: 1500,
  replayPerSec: 50_000,
  rssGrowthMb: 100,
  loadedRssMb: 300,
} as const;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

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
      SLICES,
    );
    const sealed = {
      on: (await latestCheckpoint(servers[0]!, projects[0]!.id))?.size ?? null,
      off: (await latestCheckpoint(servers[1]!, projects[1]!.id))?.size ?? null,
    };
    await servers[1]!.child.stop();
    process.stderr.write(`  checkpoint latency under load, ${SAMPLES} samples…\n`);
    const checkpoint = await checkpointLatency(servers[0]!, projects[0]!.key, SAMPLES);
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
    `${name.padEnd(44)} ${fmt(s.requestsPerSec).padStart(6)} req/s   p99 ${median(s.p99s)} ms   ` +
    `errors ${s.errors}   slices ${s.slices.map(fmt).join(' ')}`;
  const c = r.checkpoint;
  const ms = (xs: number[]) => xs.map((x) => fmt(x)).join(', ');
  const worstReplay = r.replays.reduce((a, b) => (b.perSec < a.perSec ? b : a));
  const worstRss = Math.max(...r.replays.map((x) => x.rssGrowthMb));
  const rate = Math.round((r.fill.records / r.fill.appendMs) * 1000);
  return [
    `auditors (issue 15's cost): ${DURATION} s of single-event ingest each at ${CONNECTIONS} connections ` +
      `in ${SLICES} alternating slices; ${SAMPLES} checkpoint samples; ` +
      `${r.replays.length} replays of ${fmt(r.fill.records)} records`,
    side('watchlog POST /v1/audit, sealing on (1 s)', r.sealingOn),
    side('watchlog POST /v1/audit, sealing off (baseline)', r.sealingOff),
    `sealing on / off (median of the slices): ${(r.ratio * 100).toFixed(1)}%   ` +
      `${verdict(r.ratio >= TARGETS.sealingRatio)} (target >= ${TARGETS.sealingRatio * 100}%)` +
      `; latest checkpoint after the slices: on ${r.sealed.on ?? 'none'}, off ${r.sealed.off ?? 'none'}`,
    `append to a covering checkpoint, under load (${fmt(c.loadPerSec)} req/s): ` +
      `p50 ${fmt(median(c.samplesMs))} ms, max ${fmt(Math.max(...c.samplesMs))} ms   ` +
      `${verdict(Math.max(...c.samplesMs) <= TARGETS.checkpointMs)} (target <= ${TARGETS.checkpointMs} ms)`,
    `    samples ${ms(c.samplesMs)} ms; signed after ${ms(c.signedMs)} ms; ` +
      `the append answered in p50 ${fmt(median(c.ackMs))} ms`,
    `    fill: ${r.fill.reused ? 'reused .bench/ (filled earlier: ' : ''}` +
      `appended in ${(r.fill.appendMs / 1000).toFixed(1)} s (${fmt(rate)} records/s), ` +
      `read models built in ${(r.fill.projectMs / 1000).toFixed(1)} s${r.fill.reused ? ')' : ''}`,
    ...r.replays.map(
      (x, i) =>
        `replay GET /v1/stream #${i + 1}: ${fmt(x.records)} records, ${fmt(x.bytes / 1e6)} MB in ${x.pages} pages, ` +
        `${x.seconds.toFixed(1)} s: ${fmt(x.perSec)} records/s; ` +
        `server RSS ${x.rssBeforeMb} → peak ${x.rssPeakMb} MB (+${x.rssGrowthMb} MB)`,
    ),
    `replay rate (worst of ${r.replays.length}): ${fmt(worstReplay.perSec)} records/s   ` +
      `${verdict(worstReplay.perSec >= TARGETS.replayPerSec)} (target >= ${fmt(TARGETS.replayPerSec)})` +
      `; x${(worstReplay.perSec / median(r.baseline.map((b) => b.perSec))).toFixed(2)} the baseline`,
    `replay RSS growth (worst): ${worstRss} MB   ` +
      `${verdict(worstRss < TARGETS.rssGrowthMb)} (target < ${TARGETS.rssGrowthMb} MB)`,
    `baseline (the same rows read from log.db with better-sqlite3 in the bench process): ` +
      `${r.baseline.map((b) => fmt(b.perSec)).join(', ')} rows/s`,
    `server RSS with ${fmt(r.fill.records)} records stored, ` +
      `under single-event ingest (${fmt(r.loaded.requestsPerSec)} req/s): ` +
      `${r.loaded.rssBeforeMb} MB before, peak ${r.loaded.rssPeakMb} MB   ` +
      `${verdict(r.loaded.rssPeakMb < TARGETS.loadedRssMb)} (target < ${TARGETS.loadedRssMb} MB)`,
  ];
};
