import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyRetention } from '../src/commands/retention.ts';
import { openRuntime } from '../src/compose/runtime.ts';
import { loadConfig } from '../src/config.ts';
import {
  DURATION,
  KEEP_LOG_AS_WRITTEN,
  demoDataDir,
  median,
  projectWithKey,
  singleEventIngest,
  startWatchlog,
  verdict,
} from './support.ts';

/** Retention's cost to ingest (issue 16, item 5): a copy of the 1M-event demo data dir served by
 *  `watchlog start`, paced single-event ingest into another project (BENCH_RETENTION_RATE req/s,
 *  a steady production rate rather than saturation, so that latency measures waiting and not a
 *  full machine) first alone, the baseline, then while every event of the demo's busiest project
 *  expires: the log's records replaced by tombstones a page at a time (in this process, as the
 *  worker's job does), the read models dropping their rows. Reported: the ingest p99 of each
 *  slice against the baseline, the removal's rate, and that nothing of the project is left. */

const root = fileURLToPath(new URL('..', import.meta.url));
const EVENTS = Number(process.env.BENCH_RETENTION_EVENTS ?? 1_000_000);
const RATE = Number(process.env.BENCH_RETENTION_RATE ?? 1000);
const SLICE_SECONDS = 5;
const DAY = 86_400_000;
const TARGETS = { p99Ms: 50 } as const;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

const untilVisible = async <T>(attempt: () => Promise<T>): Promise<T> => {
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline || !String(error).includes('not_yet_visible')) throw error;
    }
  }
};

interface Slice {
  requestsPerSec: number;
  p99: number;
  errors: number;
}

const paced = async (base: string, key: string, seconds: number): Promise<Slice> => {
  const r = await autocannon({
    ...singleEventIngest(base, key),
    connections: 16,
    overallRate: RATE,
    duration: seconds,
  });
  return { requestsPerSec: r.requests.average, p99: r.latency.p99, errors: r.non2xx + r.errors + r.timeouts };
};

export interface RetentionReport {
  expiring: number;
  removed: number;
  seconds: number;
  /** Until every read model had dropped the rows, not only the log. */
  settledSeconds: number;
  left: number;
  baseline: Slice;
  during: Slice[];
}

export const retentionBenchmark = async (): Promise<RetentionReport> => {
  const fill = await demoDataDir(EVENTS);
  const dir = path.join(root, '.bench', `retention-${EVENTS}`);
  rmSync(dir, { recursive: true, force: true });
  process.stderr.write(`  copying ${fill.dir} to ${dir}\n`);
  cpSync(fill.dir, dir, { recursive: true, verbatimSymlinks: true });
  // Compacting the copy's million records would run beside the removal being measured.
  const w = await startWatchlog(dir, KEEP_LOG_AS_WRITTEN, '/readyz');
  const runtime = await openRuntime(loadConfig({ WATCHLOG_DATA_DIR: dir }), { writerThread: false });
  try {
    // A fresh copy's notification reactor first reads the whole log (its checkpoint is in
    // state.db, which the demo fill leaves empty) on the projectors' thread: until it is done a
    // new project is not visible yet (503), so wait for that rather than measure it.
    const { key } = await untilVisible(() => projectWithKey(w, 'live'));
    const all = { all: true } as const;
    const expiring = await runtime.readModels.auditEvents.count({ project_id: fill.projectId }, all);
    await paced(w.base, key, 2);
    const baseline = await paced(w.base, key, DURATION);

    const started = Date.now();
    let done = false;
    // A month ahead with a one-day retention: every event of the project is past it.
    const removal = applyRetention(
      {
        log: runtime.log,
        redactable: (query, after, limit) => runtime.readModels.auditEvents.redactable(query, after, limit),
        async caughtUp(position) {
          if (!(await runtime.caughtUp(['auditEvents'], position, 600_000)))
            throw new Error(`audit-events did not reach ${position}`);
        },
      },
      fill.projectId,
      1,
      { actor: 'bench', correlationId: randomUUID(), now: () => new Date(Date.now() + 30 * DAY) },
    ).finally(() => {
      done = true;
    });
    const during: Slice[] = [];
    while (!done) during.push(await paced(w.base, key, SLICE_SECONDS));
    const removed = await removal;
    const seconds = (Date.now() - started) / 1000;
    const head = (await runtime.log.headPosition())!;
    await runtime.caughtUp(['auditEvents', 'stats', 'derivedSessions', 'orphans', 'tree', 'retention'], head, 600_000);
    const settledSeconds = (Date.now() - started) / 1000;
    const left = await runtime.readModels.auditEvents.count({ project_id: fill.projectId }, all);
    return { expiring, removed, seconds, settledSeconds, left, baseline, during };
  } finally {
    await runtime.close();
    await w.child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

export const printRetention = (r: RetentionReport): string[] => {
  const worst = Math.max(...r.during.map((s) => s.p99));
  const errors = r.during.reduce((n, s) => n + s.errors, 0);
  return [
    `retention (issue 16): ${fmt(r.expiring)} events of one project expire while another ingests at ` +
      `${fmt(RATE)} req/s (16 connections), ${SLICE_SECONDS} s slices`,
    `baseline, no removal running: ${fmt(r.baseline.requestsPerSec)} req/s, p99 ${r.baseline.p99} ` +
      `ms, errors ${r.baseline.errors}`,
    `during the removal, per slice: p99 ${r.during.map((s) => `${s.p99}`).join(', ')} ms; req/s ` +
      `${r.during.map((s) => fmt(s.requestsPerSec)).join(', ')}; errors ${errors}`,
    `ingest p99 while events are removed (worst slice): ${worst} ms (median ` +
      `${median(r.during.map((s) => s.p99))} ms; x${(worst / Math.max(1, r.baseline.p99)).toFixed(1)} ` +
      `the baseline)   ` +
      `${verdict(worst < TARGETS.p99Ms && errors === 0)} (target < ${TARGETS.p99Ms} ms, no errors)`,
    `removed ${fmt(r.removed)} records from the log in ${r.seconds.toFixed(1)} s ` +
      `(${fmt(r.removed / r.seconds)} records/s); every read model done after ` +
      `${r.settledSeconds.toFixed(1)} s; ` +
      `rows of the project left: ${fmt(r.left)} (${fmt(r.expiring - r.removed)} of its ` +
      `${fmt(r.expiring)} rows were alerts and transitions, whose records stay)   ` +
      `${verdict(r.left === 0)}`,
  ];
};
