import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { json, sampleRss, startWatchlog, verdict, type Watchlog } from './support.ts';
import { beatEvery, kindOf, startKindTargets, type KindTargets } from './monitor-kinds.ts';

/** The small figure, measured first in the same run as the large one (BENCH_MONITORS). */
const SMALL = 1000;
const LARGE = Number(process.env.BENCH_MONITORS ?? 10_000);
const SECONDS = Number(process.env.BENCH_MONITOR_SECONDS ?? 60);
export const INTERVAL_S = 10;
/** The server's cap on monitors per project. */
const PER_PROJECT = 10;
/** Creation requests in flight at once: enough to keep the server busy, few enough not to time out. */
const IN_FLIGHT = 16;
/** The targets at the large figure. */
const TARGET_P99_MS = 1000;
const TARGET_RSS_MB = 500;

export interface MonitorsRun {
  monitors: number;
  seconds: number;
  /** How long creating the projects and monitors through the API took, s. */
  createSeconds: number;
  checks: number;
  expectedChecks: number;
  /** Per monitor, floor(window / interval) less the checks it got in the window (and up to the
   *  lateness target after it), summed. */
  missed: number;
  /** How far each check started after its schedule (the previous check plus the interval), ms. */
  lateness: { p50: number; p99: number; max: number };
  /** CPU time of the watchlog process over the measured window, as a share of one core. */
  cpuShareOfOneCore: number;
  /** The server's largest VmRSS sampled during the window, MB. */
  peakRssMb: number;
  /** Requests the JSON API answered (the http monitors' checks). */
  targetRequests: number;
  /** Heartbeat monitors, and the beats watchlog accepted for them over the whole run. */
  heartbeats: number;
  beats: number;
}

export interface MonitorsReport {
  small: MonitorsRun;
  large: MonitorsRun;
}

/** Process CPU time (user + system), in seconds, from /proc. */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `work` on every item with at most `limit` at once. */
const inParallel = async <T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
};

/** The projects (PER_PROJECT monitors each) and `count` monitors of the mix of kinds: the ids of
 *  the polled ones (http, tcp, dns), and the heartbeat URLs. Also the status page section's. */
export const createMonitors = async (
  w: Watchlog,
  count: number,
  kinds: KindTargets,
): Promise<{ polled: string[]; heartbeats: string[] }> => {
  const projects = await inParallel(
    Array.from({ length: Math.ceil(count / PER_PROJECT) }, (_, p) => p),
    IN_FLIGHT,
    (p) =>
      json<{ id: string }>(`${w.base}/v1/projects`, {
        method: 'POST',
        headers: w.auth,
        body: JSON.stringify({ name: `p${p}` }),
      }),
  );
  // Monitor i goes to project i mod the number of projects: the server creates one monitor of a
  // project at a time, so requests in flight at once are for different projects.
  const monitors = Array.from({ length: count }, (_, i) => i);
  const created = await inParallel(monitors, IN_FLIGHT, (i) =>
    json<{ id: string; heartbeat_url?: string }>(`${w.base}/v1/monitors`, {
      method: 'POST',
      headers: w.auth,
      body: JSON.stringify({ project_id: projects[i % projects.length]!.id, ...kinds.monitor(i, INTERVAL_S) }),
    }),
  );
  return {
    polled: created.filter((_, i) => kindOf(i) !== 'heartbeat').map((m) => m.id),
    heartbeats: created.flatMap((m) => (m.heartbeat_url === undefined ? [] : [m.heartbeat_url])),
  };
};

/** The check times per monitor, read from the log's CheckRecorded events as they come. */
class CheckTimes {
  readonly byMonitor = new Map<string, number[]>();
  private after: string | null = null;
  constructor(private readonly log: SqliteEventLog) {}

  async readNew(): Promise<void> {
    for (;;) {
      const batch = await this.log.readAll(this.after, 5000);
      if (batch.length === 0) return;
      this.after = batch[batch.length - 1]!.position;
      for (const e of batch) {
        if (e.type !== 'CheckRecorded') continue;
        const data = e.data as { monitor_id: string; checked_at: string };
        const list = this.byMonitor.get(data.monitor_id) ?? [];
        list.push(Date.parse(data.checked_at));
        this.byMonitor.set(data.monitor_id, list);
      }
    }
  }
}

/** `count` monitors of the mix of kinds at a 10 s interval against local targets, the heartbeats
 *  beaten every interval: every polled check should start on time. */
const measure = async (count: number): Promise<MonitorsRun> => {
  const kinds = await startKindTargets();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-monitors-'));
  const w = await startWatchlog(dataDir);
  let beating: ReturnType<typeof beatEvery> | null = null;
  try {
    const createStart = Date.now();
    const { polled: ids, heartbeats } = await createMonitors(w, count, kinds);
    beating = beatEvery(heartbeats, INTERVAL_S * 1000);
    const createSeconds = (Date.now() - createStart) / 1000;
    process.stderr.write(`${count} monitors created in ${createSeconds.toFixed(1)} s\n`);
    const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
    const times = new CheckTimes(log);
    // The window starts on a steady schedule: every monitor checked once, then one interval more.
    const deadline = Date.now() + 300_000;
    while (times.byMonitor.size < ids.length && Date.now() < deadline) {
      await sleep(1000);
      await times.readNew();
    }
    await sleep(INTERVAL_S * 1000);
    const pid = w.child.process.pid!;
    const rss = sampleRss(pid, 1000);
    const cpuBefore = cpuSeconds(pid);
    const windowStart = Date.now();
    await sleep(SECONDS * 1000);
    const cpu = cpuSeconds(pid) - cpuBefore;
    const windowEnd = Date.now();
    const { peakKb } = rss.stop();
    // The checks due by the end of the window that start within the lateness target, recorded.
    await sleep(TARGET_P99_MS + 2000);
    await times.readNew();
    await log.close();

    const perMonitor = Math.floor((windowEnd - windowStart) / (INTERVAL_S * 1000));
    const lateness: number[] = [];
    let checks = 0;
    let missed = 0;
    for (const id of ids) {
      const list = (times.byMonitor.get(id) ?? []).sort((a, b) => a - b);
      let inWindow = 0;
      let counted = 0;
      for (let i = 0; i < list.length; i++) {
        if (list[i]! < windowStart || list[i]! > windowEnd + TARGET_P99_MS) continue;
        // A check due in the window that started late but within the target is not a missed one.
        counted += 1;
        if (list[i]! > windowEnd) continue;
        inWindow += 1;
        if (i > 0) lateness.push(Math.max(0, list[i]! - list[i - 1]! - INTERVAL_S * 1000));
      }
      checks += inWindow;
      missed += Math.max(0, perMonitor - counted);
    }
    lateness.sort((a, b) => a - b);
    return {
      monitors: ids.length,
      seconds: SECONDS,
      createSeconds,
      checks,
      expectedChecks: perMonitor * ids.length,
      missed,
      lateness: {
        p50: percentile(lateness, 50),
        p99: percentile(lateness, 99),
        max: lateness[lateness.length - 1] ?? 0,
      },
      cpuShareOfOneCore: cpu / ((windowEnd - windowStart) / 1000),
      peakRssMb: peakKb / 1024,
      targetRequests: kinds.requests(),
      heartbeats: heartbeats.length,
      beats: beating.beats(),
    };
  } finally {
    beating?.stop();
    await w.child.stop();
    await kinds.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

/** SMALL monitors, then LARGE, each on a new data dir and server. */
export const monitorsBenchmark = async (): Promise<MonitorsReport> => {
  const small = await measure(SMALL);
  const large = await measure(LARGE);
  return { small, large };
};

const ratio = (a: number, b: number) => (b === 0 ? '–' : `×${(a / b).toFixed(1)}`);

const runLines = (r: MonitorsRun): string[] => [
  `  ${r.monitors + r.heartbeats} monitors (created in ${r.createSeconds.toFixed(1)} s), ${r.monitors} polled: ` +
    `${r.checks} checks in the window for ${r.expectedChecks} scheduled, ${r.missed} missed; ` +
    `${r.heartbeats} heartbeats, ${r.beats} beats accepted`,
  `    lateness vs schedule: p50 ${r.lateness.p50} ms   p99 ${r.lateness.p99} ms   max ${r.lateness.max} ms`,
  `    watchlog CPU: ${(r.cpuShareOfOneCore * 100).toFixed(1)}% of one core   peak RSS ${r.peakRssMb.toFixed(0)} MB`,
];

export const printMonitors = ({ small, large }: MonitorsReport): string[] => [
  `monitors: every ${INTERVAL_S} s for ${large.seconds} s, of 20: 14 http (body and JSON assertions), 3 tcp, ` +
    `2 dns, 1 heartbeat, against local targets; ${SMALL} then ${LARGE} in the same run`,
  ...runLines(small),
  ...runLines(large),
  `  ${LARGE} vs ${SMALL}: CPU ${ratio(large.cpuShareOfOneCore, small.cpuShareOfOneCore)}   ` +
    `p99 lateness ${ratio(large.lateness.p99, small.lateness.p99)}   RSS ${ratio(large.peakRssMb, small.peakRssMb)}`,
  `  targets at ${LARGE}: no missed check ${verdict(large.missed === 0)}   p99 < 1 s ` +
    `${verdict(large.lateness.p99 < TARGET_P99_MS)}   RSS < ${TARGET_RSS_MB} MB ` +
    `${verdict(large.peakRssMb < TARGET_RSS_MB)}`,
];
