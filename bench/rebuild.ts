import Database from 'better-sqlite3';
import { copyFileSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { READ_MODELS } from '../src/compose/read-models.ts';
import { rebuildEmbeddedReadModels, type RebuildStep } from '../src/compose/rebuild.ts';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { streamFamily } from '../src/domain/streams.ts';
import { STATE_FILE, VIEWS_FILE } from '../src/views/store/sqlite-files.ts';
import { demoDataDir, embeddedLog, loadAuditRows, verdict } from './support.ts';

/** `watchlog rebuild` of a log of BENCH_REBUILD_EVENTS demo events (default 1,000,000; the data
 *  dir of the dashboard section, filled once under .bench/), against a baseline from the same
 *  run: raw better-sqlite3 loading the log's audit events into a table of the audit-events read
 *  model's own schema (same columns, the same indexes created after the load, the same pragmas a
 *  rebuild uses), which is the least a rebuild must do for its largest read model. */

const EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 1_000_000);
/** 1: the whole replay on one thread, as before the second lane (for comparing); default 2, as
 *  `watchlog rebuild` runs it. */
const LANES = Number(process.env.BENCH_REBUILD_LANES ?? 2);
export const REBUILD_TARGETS = { perSec: 50_000, seconds: 20, flatness: 0.8 } as const;

export interface RebuildReport {
  events: number;
  auditEvents: number;
  seconds: number;
  perSec: number;
  steps: Array<{ step: RebuildStep; atMs: number }>;
  /** Replay rate over the first and the last tenth of the log, events/s. */
  firstTenthPerSec: number;
  lastTenthPerSec: number;
  baseline: { seconds: number; perSec: number };
  /** The rebuild's speed per event as a share of the baseline's. */
  ratio: number;
  /** Each projection's time over the bulk replay, µs per log record (a batch's events are decoded
   *  once, by the first projection that handles their type). */
  perProjectionUs: Array<{ projection: string; us: number }>;
}

const bytesOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** The raw load: the log's audit events into the read model's table, in transactions of 10,000,
 *  then its query indexes. */
const baselineLoad = (logFile: string, into: string): { rows: number; seconds: number } => {
  rmSync(into, { force: true });
  const started = performance.now();
  const db = new Database(into);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -262144');
  const schema = READ_MODELS.auditEvents.sqlite.schema;
  db.exec(schema.create);
  const rows = loadAuditRows(logFile, db, 10_000);
  if (schema.queryIndexes) db.exec(schema.queryIndexes);
  db.close();
  rmSync(into, { force: true });
  return { rows, seconds: (performance.now() - started) / 1000 };
};

export const rebuildBenchmark = async (): Promise<RebuildReport> => {
  process.stderr.write(`  a data dir of ${EVENTS} demo events (BENCH_REBUILD_EVENTS) under .bench/…\n`);
  const { dir } = await demoDataDir(EVENTS, { current: false });
  const logFile = path.join(dir, 'log.db');

  process.stderr.write('  baseline: raw better-sqlite3 load of the audit events…\n');
  const raw = baselineLoad(logFile, path.join(dir, 'baseline.db'));

  process.stderr.write('  watchlog rebuild…\n');
  const log = new SqliteEventLog(logFile);
  const samples: Array<{ ms: number; position: number }> = [];
  const steps: RebuildReport['steps'] = [];
  const started = performance.now();
  let head = 0;
  let lastPrint = 0;
  const applied = new Map<string, number>();
  try {
    await rebuildEmbeddedReadModels(
      dir,
      log,
      (p) => {
        const ms = performance.now() - started;
        head = Number(p.head ?? 0);
        samples.push({ ms, position: Number(p.position) });
        if (ms - lastPrint > 15_000) {
          lastPrint = ms;
          process.stderr.write(`    at ${p.position}/${p.head}\n`);
        }
      },
      {
        onStep: (step) => steps.push({ step, atMs: performance.now() - started }),
        onApplied: (projection, ms) => applied.set(projection, (applied.get(projection) ?? 0) + ms),
        ...(LANES === 1 ? {} : { laneLog: embeddedLog(dir) }),
      },
    );
  } finally {
    await log.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const replayEnd = steps.find((s) => s.step === 'indexes')?.atMs ?? seconds * 1000;
  const replayed = samples.filter((s) => s.ms <= replayEnd);
  /** The rate between the first samples at two fractions of the log. */
  const rateBetween = (from: number, to: number): number => {
    // When the replay first got there: with two lanes, progress is the slower lane's, which
    // several samples in a row may repeat.
    const at = (fraction: number) =>
      replayed.find((s) => s.position >= fraction * head) ?? replayed[replayed.length - 1]!;
    const a = at(from);
    const b = at(to);
    return b.ms > a.ms ? ((b.position - a.position) / (b.ms - a.ms)) * 1000 : NaN;
  };
  return {
    events: head,
    auditEvents: raw.rows,
    seconds,
    perSec: head / seconds,
    steps,
    firstTenthPerSec: rateBetween(0, 0.1),
    lastTenthPerSec: rateBetween(0.9, 1),
    baseline: { seconds: raw.seconds, perSec: raw.rows / raw.seconds },
    ratio: head / seconds / (raw.rows / raw.seconds),
    perProjectionUs: [...applied]
      .map(([projection, ms]) => ({ projection, us: (ms * 1000) / head }))
      .sort((a, b) => b.us - a.us),
  };
};

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export const printRebuild = (r: RebuildReport): string[] => {
  const flat = r.lastTenthPerSec / r.firstTenthPerSec;
  const stepLine = r.steps.map(({ step, atMs }) => `${step} at ${(atMs / 1000).toFixed(1)} s`).join(', ');
  return [
    `rebuild of ${fmt(r.events)} log records (${fmt(r.auditEvents)} audit events) into every read ` +
      `model (BENCH_REBUILD_EVENTS), in ${LANES} lane${LANES === 1 ? '' : 's'} (BENCH_REBUILD_LANES)`,
    `  watchlog rebuild           ${r.seconds.toFixed(1)} s, ${fmt(r.perSec)} ev/s (target ≥ ` +
      `${fmt(REBUILD_TARGETS.perSec)} ev/s, ≤ ${REBUILD_TARGETS.seconds} s): ` +
      `${verdict(r.perSec >= REBUILD_TARGETS.perSec && r.seconds <= REBUILD_TARGETS.seconds)}`,
    `    steps: ${stepLine}`,
    `  flat as the log grows      ${fmt(r.firstTenthPerSec)} ev/s over the first tenth, ` +
      `${fmt(r.lastTenthPerSec)} over the last (${(flat * 100).toFixed(0)} %, target ≥ ` +
      `${REBUILD_TARGETS.flatness * 100} %): ${verdict(flat >= REBUILD_TARGETS.flatness)}`,
    `  baseline: raw load of the audit-events table alone, same indexes after: ` +
      `${r.baseline.seconds.toFixed(1)} s, ${fmt(r.baseline.perSec)} rows/s`,
    `  rebuild / baseline         ${(r.ratio * 100).toFixed(1)} % of the raw load's speed per event, ` +
      `for ${Object.keys(READ_MODELS).length} read models instead of one table`,
    "  where the bulk replay's time goes, µs per record" +
      (LANES === 1 ? '' : ' (wall time: the lanes share two cores, so these add up to more than the replay took)') +
      `: ${r.perProjectionUs.map(({ projection, us }) => `${projection} ${us.toFixed(1)}`).join(', ')}` +
      ` (sum ${r.perProjectionUs.reduce((n, p) => n + p.us, 0).toFixed(1)}; the rest is reading the log)`,
  ];
};

// --- storage -------------------------------------------------------------------------------

export interface StorageReport {
  events: number;
  auditEvents: number;
  /** The mean length of an audit event's JSON as the log stores it. */
  eventJsonBytes: number;
  files: Array<{ file: string; bytes: number }>;
  /** Bytes on disk per read model in the views file (tables and their indexes), by dbstat. */
  readModels: Array<{ name: string; bytes: number; indexBytes: number }>;
  /** A copy of the log compacted as the log-compaction job does it, then vacuumed. */
  compacted: { records: number; seconds: number; vacuumSeconds: number; bytes: number; blockBytes: number };
}

/** The compaction job's work on a copy of the bench's log (the bench dir itself stays as the
 *  other sections expect it), then VACUUM, which gives the freed pages back to the file system
 *  (a running server leaves them to later appends). */
const compactedCopy = async (logFile: string): Promise<StorageReport['compacted']> => {
  const dir = `${logFile}.compacted`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  const copy = path.join(dir, 'log.db');
  try {
    copyFileSync(logFile, copy);
    const log = new SqliteEventLog(copy, { compaction: { familyOf: streamFamily } });
    let started = performance.now();
    const done = await log.compact();
    const seconds = (performance.now() - started) / 1000;
    await log.close();
    const db = new Database(copy);
    started = performance.now();
    db.exec('VACUUM');
    const vacuumSeconds = (performance.now() - started) / 1000;
    db.close();
    return { records: done.records, seconds, vacuumSeconds, bytes: bytesOf(copy), blockBytes: done.bytesOut };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const storageBenchmark = async (): Promise<StorageReport> => {
  const { dir } = await demoDataDir(EVENTS);
  const log = new Database(path.join(dir, 'log.db'), { readonly: true });
  const { events } = log.prepare('SELECT count(*) AS events FROM events').get() as { events: number };
  const { auditEvents, json } = log
    .prepare(
      'SELECT count(*) AS auditEvents, avg(length(data)) AS json FROM events ' +
        "WHERE type = 'AuditEventRecorded' AND data <> ''",
    )
    .get() as { auditEvents: number; json: number };
  log.close();
  process.stderr.write('  compacting a copy of the log…\n');
  const compacted = await compactedCopy(path.join(dir, 'log.db'));
  const withWal = (file: string) => bytesOf(file) + bytesOf(`${file}-wal`);
  const files = ['log.db', VIEWS_FILE, STATE_FILE, 'jobs.db'].map((file) => ({
    file,
    bytes: withWal(path.join(dir, file)),
  }));
  const views = new Database(path.join(dir, VIEWS_FILE), { readonly: true });
  const pages = views
    .prepare(`SELECT m.tbl_name AS tbl, m.type AS type, sum(s.pgsize) AS bytes
    FROM dbstat AS s JOIN sqlite_master AS m ON m.name = s.name GROUP BY m.tbl_name, m.type`)
    .all() as Array<{ tbl: string; type: string; bytes: number }>;
  views.close();
  const readModels = Object.entries(READ_MODELS)
    .map(([name, entry]) => {
      const tables = new Set(entry.sqlite.schema.tables);
      const mine = pages.filter((p) => tables.has(p.tbl));
      return {
        name,
        bytes: mine.reduce((n, p) => n + p.bytes, 0),
        indexBytes: mine.filter((p) => p.type === 'index').reduce((n, p) => n + p.bytes, 0),
      };
    })
    .filter((m) => m.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  return { events, auditEvents, eventJsonBytes: json, files, readModels, compacted };
};

export const printStorage = (r: StorageReport): string[] => {
  const per = (bytes: number) => (bytes / r.events).toFixed(0);
  const views = r.files.find((f) => f.file === VIEWS_FILE)?.bytes ?? 0;
  const logAndViews = r.compacted.bytes + views;
  const ratio = logAndViews / r.events / r.eventJsonBytes;
  const c = r.compacted;
  return [
    `storage of ${fmt(r.events)} log records (${fmt(r.auditEvents)} audit events, ` +
      `${r.eventJsonBytes.toFixed(0)} bytes of JSON each on average)`,
    ...r.files.map(
      (f) =>
        `  ${f.file.padEnd(26)} ${(f.bytes / 1048576).toFixed(0).padStart(6)} MiB, ` +
        `${per(f.bytes).padStart(5)} bytes per record`,
    ),
    `  log.db compacted           ${(c.bytes / 1048576).toFixed(0).padStart(6)} MiB, ` +
      `${per(c.bytes).padStart(5)} bytes per record (${fmt(c.records)} records into blocks of ` +
      `${(c.blockBytes / c.records).toFixed(0)} bytes each, in ${c.seconds.toFixed(1)} s: ` +
      `${fmt(c.records / c.seconds)} records/s; VACUUM ${c.vacuumSeconds.toFixed(1)} s)`,
    `  log (compacted) + read models ${per(logAndViews)} bytes per record, ${ratio.toFixed(2)}× the ` +
      `event's JSON (target ≤ 2×): ${verdict(ratio <= 2)}`,
    '  per read model (tables and their indexes, dbstat):',
    ...r.readModels.map(
      (m) => `    ${m.name.padEnd(24)} ${per(m.bytes).padStart(5)} bytes per record (indexes ${per(m.indexBytes)})`,
    ),
  ];
};
