import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { openSqliteReadModels, projectionRunners, READ_MODELS } from '../src/compose/read-models.ts';
import { createProject } from '../src/commands/projects.ts';
import { recordAuditEvents, type IngestItem } from '../src/commands/ingest.ts';
import type { AuditEventInput } from '../src/domain/audit-event.ts';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { openViewsDatabase } from '../src/views/store/sqlite.ts';
import { Projector } from '../projections/projector.ts';
import { timedRunners } from '../src/compose/rebuild.ts';
import { EVENT, loadAuditRows, verdict } from './support.ts';

/** `npm run bench projector`: what the projector costs per event once the read models hold a
 *  log's worth of traffic, as a live worker applies it (the live store: WAL, synchronous=NORMAL,
 *  every query index in place, batches of the projector's full size), against the least the
 *  largest of its read models costs: the same audit rows inserted into the audit-events table
 *  and its indexes, live-style, with raw better-sqlite3. */

const EVENTS = Number(process.env.BENCH_PROJECTOR_EVENTS ?? 200_000);
/** What the live projector reads at once when it is behind (ProjectorOptions.fullBatch). */
const BATCH = 1000;
export const PROJECTOR_TARGET_US = 15;

export interface ProjectorReport {
  events: number;
  records: number;
  /** µs per log record, every projection: elapsed, and the process's CPU (garbage collection
   *  included). */
  wallUs: number;
  cpuUs: number;
  perProjectionUs: Array<{ projection: string; us: number }>;
  baseline: { rows: number; wallUs: number; cpuUs: number };
}

const SERVICES = ['orders', 'billing', 'search', 'accounts', 'catalog', 'checkout', 'shipping', 'reviews'];
const METHODS: ReadonlyArray<AuditEventInput['method']> = [
  'GET',
  'GET',
  'GET',
  'GET',
  'GET',
  'GET',
  'POST',
  'POST',
  'PUT',
  'DELETE',
];
const STATUSES = [200, 200, 200, 200, 200, 200, 201, 204, 400, 401, 404, 500];

/** Traffic of many users across services: 5,000 identifiers, 40 routes, a unique request id per
 *  call, a session id on one call in five, and a browser-side event for one backend call in ten
 *  (sent after it, one in fifty with a request id of its own: an orphan). */
const traffic = (): (() => AuditEventInput) => {
  const base = JSON.parse(EVENT) as AuditEventInput;
  // The ingest section's traffic instead: one event sent again and again (each keyed anew).
  if (process.env.BENCH_PROJECTOR_TRAFFIC === 'alike') return () => base;
  let seq = 0;
  let lastRequest = '';
  return () => {
    seq += 1;
    const user = (seq * 7919) % 5000;
    const service = SERVICES[seq % SERVICES.length]!;
    if (seq % 10 === 0) {
      return {
        ...base,
        source: 'browser',
        service_name: service,
        identifier: `user-${user}`,
        path: `/api/r${seq % 40}/:id`,
        request_id: seq % 50 === 0 ? `req-browser-${seq}` : lastRequest,
      };
    }
    lastRequest = `req-${seq}`;
    return {
      ...base,
      request_id: lastRequest,
      identifier: `user-${user}`,
      service_name: service,
      path: `/api/r${seq % 40}/:id`,
      method: METHODS[seq % METHODS.length]!,
      status_code: STATUSES[(seq * 31) % STATUSES.length]!,
      response_time: 1 + ((seq * 7877) % 1500),
      environment: seq % 5 === 0 ? 'staging' : 'production',
      ...(seq % 5 === 1 ? { session_id: `sess-${user}-${Math.floor(seq / 2000)}` } : {}),
    };
  };
};

/** The log: EVENTS events through the ingest command, 100 a batch, each keyed, as SDKs send them,
 *  two milliseconds of traffic apart. */
const fillLog = async (file: string): Promise<void> => {
  const log = new SqliteEventLog(file);
  try {
    const started = Date.parse('2026-11-30T00:00:00Z');
    let at = started;
    const ctx = { actor: 'bench', correlationId: randomUUID(), now: () => new Date(at) };
    const { id: projectId } = await createProject({ log }, 'bench', ctx);
    const next = traffic();
    for (let n = 0; n < EVENTS; n += 100) {
      const items: IngestItem[] = Array.from({ length: Math.min(100, EVENTS - n) }, () => ({
        input: next(),
        idempotencyKey: randomUUID(),
      }));
      await recordAuditEvents(log, projectId, items, ctx, null, 86_400_000);
      at += 200;
    }
  } finally {
    await log.close();
  }
};

const cpuUs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return used.user + used.system;
};

/** Every projection through the projector's own catch-up (leases, one read and one decode per
 *  batch for all of them), each runner timed. */
const project = async (logFile: string, viewsFile: string) => {
  const log = new SqliteEventLog(logFile);
  const readModels = await openSqliteReadModels(viewsFile);
  const spent = new Map<string, number>();
  const timed = timedRunners(projectionRunners(readModels), (name, ms) => spent.set(name, (spent.get(name) ?? 0) + ms));
  try {
    const projector = new Projector(log, timed, readModels.leases, pino({ level: 'silent' }));
    const cpu = process.cpuUsage();
    const started = performance.now();
    await projector.catchUp(undefined, { batchSize: BATCH });
    const wallMs = performance.now() - started;
    return { wallMs, cpuUs: cpuUs(cpu), spent, records: Number(await log.headPosition()) };
  } finally {
    await readModels.close();
    await log.close();
  }
};

/** The floor: the log's audit events, parsed and inserted as the audit-events writer inserts
 *  them, into its table with every index made, on a connection opened as the live store opens
 *  it, a transaction per BATCH. */
const rawAuditRows = (logFile: string, viewsFile: string): { rows: number; wallMs: number; cpuUs: number } => {
  const db = openViewsDatabase(viewsFile);
  try {
    const { schema } = READ_MODELS.auditEvents.sqlite;
    db.exec(schema.create + (schema.queryIndexes ?? ''));
    const cpu = process.cpuUsage();
    const started = performance.now();
    const rows = loadAuditRows(logFile, db, BATCH);
    return { rows, wallMs: performance.now() - started, cpuUs: cpuUs(cpu) };
  } finally {
    db.close();
  }
};

export const projectorBenchmark = async (): Promise<ProjectorReport> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'watchlog-bench-projector-'));
  try {
    const logFile = path.join(dir, 'log.db');
    process.stderr.write(`  a log of ${EVENTS} ingested events (BENCH_PROJECTOR_EVENTS)…\n`);
    await fillLog(logFile);
    process.stderr.write('  baseline: the audit rows alone into their table and indexes…\n');
    const raw = rawAuditRows(logFile, path.join(dir, 'baseline.db'));
    process.stderr.write('  every projection…\n');
    const run = await project(logFile, path.join(dir, 'views.db'));
    const per = (ms: number) => (ms * 1000) / run.records;
    return {
      events: EVENTS,
      records: run.records,
      wallUs: per(run.wallMs),
      cpuUs: run.cpuUs / run.records,
      perProjectionUs: [...run.spent]
        .map(([projection, ms]) => ({ projection, us: per(ms) }))
        .sort((a, b) => b.us - a.us),
      baseline: { rows: raw.rows, wallUs: (raw.wallMs * 1000) / raw.rows, cpuUs: raw.cpuUs / raw.rows },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

export const printProjector = (r: ProjectorReport): string[] => {
  const spent = r.perProjectionUs.reduce((n, p) => n + p.us, 0);
  return [
    `projector: ${r.records.toLocaleString('en-US')} log records ` +
      `(${r.events.toLocaleString('en-US')} ingested events) applied to every read model, live store, ` +
      `batches of ${BATCH}`,
    `  steady cost per event      ${r.wallUs.toFixed(1)} µs elapsed, ${r.cpuUs.toFixed(1)} µs of CPU ` +
      `(target ≤ ${PROJECTOR_TARGET_US} µs): ${verdict(r.wallUs <= PROJECTOR_TARGET_US)}`,
    `  by projection, µs per record: ${r.perProjectionUs
      .filter((p) => p.us >= 0.05)
      .map(({ projection, us }) => `${projection} ${us.toFixed(1)}`)
      .join(', ')}` +
      ` (the first to handle a record decodes it; reading the log and leases: ${(r.wallUs - spent).toFixed(1)})`,
    `  baseline: raw better-sqlite3, the ${r.baseline.rows.toLocaleString('en-US')} audit rows alone ` +
      `into their table and indexes: ${r.baseline.wallUs.toFixed(1)} µs elapsed, ` +
      `${r.baseline.cpuUs.toFixed(1)} µs of CPU a row`,
    `  projector / baseline       ${(r.wallUs / r.baseline.wallUs).toFixed(2)}× the time of one table's rows, ` +
      `for ${Object.keys(READ_MODELS).length} read models` +
      `${r.baseline.wallUs > PROJECTOR_TARGET_US ? `; the baseline alone is over the target on this machine` : ''}`,
  ];
};
