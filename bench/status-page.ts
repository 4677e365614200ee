import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { beatEvery, startKindTargets, type KindTargets } from './monitor-kinds.ts';
import { createMonitors, INTERVAL_S } from './monitors.ts';
import { fillPageHistory, PAGE_GROUPS, startPageTargets, type PageFill, type PageTargets } from './status-page-fill.ts';
import { freshness, freshnessUnderLoad, shownState, type Freshness } from './status-page-fresh.ts';
import {
  bodiesDropped,
  cpuMs,
  othersCpu,
  pacedLoadApart,
  rawGet,
  saturate,
  type Paced,
  type Saturated,
} from './status-page-load.ts';
import {
  alternatingSlices,
  DURATION,
  freePort,
  json,
  median,
  startProcess,
  startWatchlog,
  type Child,
  type Watchlog,
} from './support.ts';

/** `npm run bench status-page`: GET /status/:slug of a realistic page (PAGE_GROUPS: 40
 *  monitors in 5 groups, 90 days of history) while the server runs 1,000 monitors every 10 s
 *  against targets on 127.0.0.1 (the monitors section's mix, some flapping), beside bare Koa
 *  serving the exact bytes of that page from memory (bench/static-server.ts), in the same run:
 *  throughput and latency with gzip (as browsers ask) and without, 304 revalidations, latency at
 *  a paced TARGETS.rps (first with only the page's monitors running); then how soon a transition
 *  shows on the page, quiet and under load. docs/benchmarks.md, "Status page", says how. */

const root = fileURLToPath(new URL('..', import.meta.url));
const MONITORS = Number(process.env.BENCH_STATUS_MONITORS ?? 1000);
const FLAPPERS = 6;
/** Alternating slices per server, BENCH_DURATION shared between them (at saturation), or of
 *  PACED_SECONDS each (paced: a stall of a second in a slice of five is its p99). */
const SLICES = Number(process.env.BENCH_STATUS_SLICES ?? 2);
const PACED_SLICES = Number(process.env.BENCH_STATUS_PACED_SLICES ?? 4);
const PACED_SECONDS = 5;
const ROUNDS = Number(process.env.BENCH_STATUS_ROUNDS ?? 2);
const SLUG = 'acme';
export const TARGETS = { rps: Number(process.env.BENCH_STATUS_RATE ?? 5000), p99Ms: 20, shownMs: 2000 } as const;
/** How often an open tab of the page asks again (src/http/public/assets-js.ts). */
export const TAB_POLL_MS = 1500;

export interface Measured extends Saturated {
  /** Each slice's req/s. */
  slices: number[];
  /** The CPU other processes of the machine used meanwhile, share of a core, by slice. */
  others: number[];
}

export type Slice<T> = T & { others: number };

/** Checks started per window of 0.1 s: on average, in the busiest, and the share of windows
 *  that held half of them. */
export interface Bursts {
  perWindow: number;
  busiest: number;
  halfIn: number;
}

const GZIP = { 'accept-encoding': 'gzip' };

export interface Compared<T> {
  watchlog: T;
  baseline: T;
}

export interface StatusPageReport {
  monitors: number;
  flappers: number;
  page: { monitors: number; groups: number; days: number; htmlBytes: number; gzipBytes: number; checks: number };
  /** watchlog's CPU while no request came (its monitors, projections and jobs), share of a core. */
  backgroundCpu: number;
  gzip: Compared<Measured>;
  identity: Compared<Measured>;
  notModified: Compared<Measured>;
  /** At TARGETS.rps with only the page's monitors running, then with all of them. */
  pacedFew: Compared<Slice<Paced>[]>;
  paced: Compared<Slice<Paced>[]>;
  quiet: Freshness;
  loaded: Freshness;
  /** What the monitors did while it was measured. */
  running: { seconds: number; checks: number; transitions: number; bursts: Bursts };
  /** The machine's 1-minute load average when the measures started and when they ended. */
  loadAverage: [number, number];
}

const combine = (slices: Slice<Saturated>[]): Measured => {
  const answers = slices.reduce((n, s) => n + s.answers, 0);
  return {
    requestsPerSec: slices.reduce((n, s) => n + s.requestsPerSec, 0) / slices.length,
    p50: median(slices.map((s) => s.p50)),
    p99: Math.max(...slices.map((s) => s.p99)),
    answers,
    unexpected: slices.reduce((n, s) => n + s.unexpected, 0),
    errors: slices.reduce((n, s) => n + s.errors, 0),
    cpuPerAnswerUs: slices.reduce((n, s) => n + s.cpuPerAnswerUs * s.answers, 0) / Math.max(1, answers),
    slices: slices.map((s) => Math.round(s.requestsPerSec)),
    others: slices.map((s) => s.others),
  };
};

interface Server {
  url: string;
  pid: number;
}

/** `measure`, with the CPU the machine's other processes used meanwhile (less the CPU of the
 *  load's own process, when it says it). */
const sliced = async <T extends object>(servers: readonly Server[], measure: () => Promise<T>): Promise<Slice<T>> => {
  const started = performance.now();
  const others = othersCpu([process.pid, ...servers.map((s) => s.pid)]);
  const result = await measure();
  const clientMs = 'clientCpuMs' in result && typeof result.clientCpuMs === 'number' ? result.clientCpuMs : 0;
  const client = clientMs / (performance.now() - started);
  return { ...result, others: others.stop() - client };
};

/** watchlog and the baseline at saturation, in alternating slices (the order flipped every slice). */
const compare = async (
  servers: readonly [Server, Server],
  headers: Record<string, string>,
  expect: 200 | 304,
): Promise<Compared<Measured>> => {
  const seconds = Math.max(1, Math.round(DURATION / SLICES));
  const [w, b] = await alternatingSlices(2, SLICES, (target) =>
    sliced(servers, () => saturate(servers[target]!.url, headers, expect, seconds, servers[target]!.pid)),
  );
  return { watchlog: combine(w!), baseline: combine(b!) };
};

/** The log's head, and the checks and transitions recorded after `after`. */
const logFigures = (dataDir: string, after = 0): { head: number; checks: number; transitions: number } => {
  const db = new Database(path.join(dataDir, 'log.db'), { readonly: true });
  try {
    const head = (db.prepare('SELECT max(position) AS head FROM events').get() as { head: number }).head;
    const rows = db
      .prepare(
        "SELECT type, count(*) AS n FROM events WHERE position > ? AND type IN ('CheckRecorded', " +
          "'MonitorWentDown', 'MonitorCameUp') GROUP BY type",
      )
      .all(after) as Array<{ type: string; n: number }>;
    const n = (type: string) => rows.find((r) => r.type === type)?.n ?? 0;
    return { head, checks: n('CheckRecorded'), transitions: n('MonitorWentDown') + n('MonitorCameUp') };
  } finally {
    db.close();
  }
};

/** The page, with a resolved incident (under "Past incidents") and a window planned tomorrow. */
const createPage = async (w: Watchlog, fill: PageFill): Promise<void> => {
  const id = (name: string) => fill.ids.get(name)!;
  const post = <T>(url: string, body: unknown) =>
    json<T>(`${w.base}${url}`, { method: 'POST', headers: w.auth, body: JSON.stringify(body) });
  await post('/v1/status-pages', {
    project_id: fill.projectId,
    slug: SLUG,
    title: 'Acme Cloud',
    description: 'The state of Acme Cloud’s services, checked every 10 seconds.',
    groups: PAGE_GROUPS.map((g) => ({ name: g.name, monitor_ids: g.monitors.map(id) })),
    published: true,
  });
  const incident = await post<{ id: string }>('/v1/incidents', {
    project_id: fill.projectId,
    title: 'Card payments failing for some customers',
    status: 'investigating',
    impact: 'major',
    monitor_ids: [id('Card payments'), id('Subscriptions')],
    message: 'Some card payments are declined with a timeout. We are looking into it.',
  });
  for (const [status, message] of [
    ['identified', 'A certificate rotation at our payment provider broke part of the traffic.'],
    ['monitoring', 'The provider rolled the change back; payments are going through again.'],
    ['resolved', 'Every payment since 14:05 UTC went through. We are sorry for the trouble.'],
  ] as const)
    await post(`/v1/incidents/${incident.id}/updates`, { status, message });
  const tomorrow = Math.floor(Date.now() / 86_400_000 + 1) * 86_400_000 + 2 * 3_600_000;
  await post('/v1/maintenances', {
    project_id: fill.projectId,
    title: 'Database upgrade',
    description: 'Writes may pause for up to a minute while the primary is switched over.',
    monitor_ids: [id('Database primary'), id('Read replicas')],
    starts_at: new Date(tomorrow).toISOString(),
    ends_at: new Date(tomorrow + 3_600_000).toISOString(),
  });
};

/** Resolves once every monitor of the page shows a state (no "No data"). */
const settled = async (pageUrl: string): Promise<void> => {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const html = await (await fetch(pageUrl)).text();
    const names = PAGE_GROUPS.flatMap((g) => g.monitors);
    if (names.every((name) => shownState(html, name) === 'operational')) return;
    if (Date.now() > deadline) throw new Error('the page still shows monitors without a state after 2 minutes');
    await new Promise((r) => setTimeout(r, 500));
  }
};

/** When the checks of the window [from, to) started, by windows of 0.1 s: how bunched they are. */
const checkBursts = async (dataDir: string, after: number, from: number, to: number): Promise<Bursts> => {
  const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
  const counts = new Map<number, number>();
  try {
    let position: string | null = String(after);
    for (;;) {
      const batch = await log.readAll(position, 5000);
      if (batch.length === 0) break;
      position = batch[batch.length - 1]!.position;
      for (const e of batch) {
        if (e.type !== 'CheckRecorded') continue;
        const at = Date.parse((e.data as { checked_at: string }).checked_at);
        if (at >= from && at < to) counts.set(Math.floor(at / 100), (counts.get(Math.floor(at / 100)) ?? 0) + 1);
      }
    }
  } finally {
    await log.close();
  }
  const windows = Math.max(1, Math.floor((to - from) / 100));
  const sorted = [...counts.values()].sort((a, b) => b - a);
  const total = sorted.reduce((n, c) => n + c, 0);
  let half = 0;
  for (let sum = 0; sum < total / 2; half += 1) sum += sorted[half]!;
  return { perWindow: total / windows, busiest: sorted[0] ?? 0, halfIn: half / windows };
};

/** The page's exact bytes (and gzip), served by bare Koa. */
const startBaseline = async (pageUrl: string, files: string) => {
  const plain = await rawGet(pageUrl);
  const packed = await rawGet(pageUrl, { 'accept-encoding': 'gzip' });
  const etag = String(plain.headers.etag);
  if (plain.status !== 200 || packed.headers['content-encoding'] !== 'gzip' || packed.headers.etag !== etag)
    throw new Error(`unexpected page answers: ${plain.status}, ${packed.headers['content-encoding']}`);
  writeFileSync(path.join(files, 'page.html'), plain.body);
  writeFileSync(path.join(files, 'page.html.gz'), packed.body);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/status/${SLUG}`;
  const child = await startProcess(
    ['--import', 'tsx', path.join(root, 'bench/static-server.ts')],
    {
      PORT: String(port),
      STATIC_FILE: path.join(files, 'page.html'),
      STATIC_GZIP: path.join(files, 'page.html.gz'),
      STATIC_ETAG: etag,
    },
    async () => (await fetch(url)).ok,
  );
  const same = await rawGet(url, { 'accept-encoding': 'gzip' });
  if (!same.body.equals(packed.body)) throw new Error('the baseline does not serve the page’s bytes');
  return { child, url, etag, htmlBytes: plain.body.length, gzipBytes: packed.body.length };
};

/** The monitors beside the page's: the monitors section's mix, and FLAPPERS flapping ones. */
const startOthers = async (w: Watchlog, count: number, kinds: KindTargets, targets: PageTargets) => {
  const others = await createMonitors(w, count - FLAPPERS, kinds);
  const flapping = await json<{ id: string }>(`${w.base}/v1/projects`, {
    method: 'POST',
    headers: w.auth,
    body: JSON.stringify({ name: 'flapping' }),
  });
  for (let k = 0; k < FLAPPERS; k += 1)
    await json(`${w.base}/v1/monitors`, {
      method: 'POST',
      headers: w.auth,
      body: JSON.stringify({
        project_id: flapping.id,
        name: `flap-${k}`,
        url: targets.flapUrl(k),
        interval_seconds: 10,
      }),
    });
  return beatEvery(others.heartbeats, INTERVAL_S * 1000);
};

const paced = async (servers: readonly [Server, Server]): Promise<Compared<Slice<Paced>[]>> => {
  const [w, b] = await alternatingSlices(2, PACED_SLICES, (target) =>
    sliced(servers, () => pacedLoadApart(servers[target]!.url, GZIP, TARGETS.rps, { seconds: PACED_SECONDS })),
  );
  return { watchlog: w!, baseline: b! };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const statusPageBenchmark = async (): Promise<StatusPageReport> => {
  const kinds = await startKindTargets();
  const targets = await startPageTargets();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-status-'));
  const files = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-static-'));
  let w: Watchlog | undefined;
  let baseline: Child | undefined;
  let beating: { stop(): void } | undefined;
  try {
    const fill = await fillPageHistory(dataDir, targets);
    process.stderr.write(`  ${fill.checks} checks of history written; starting watchlog…\n`);
    w = await startWatchlog(dataDir, {}, '/readyz');
    await createPage(w, fill);
    const pageUrl = `${w.base}/status/${SLUG}`;
    await settled(pageUrl);
    const base = await startBaseline(pageUrl, files);
    baseline = base.child;
    const servers = [
      { url: pageUrl, pid: w.child.process.pid! },
      { url: base.url, pid: baseline.process.pid! },
    ] as const;
    // The same pace with only the page's monitors running, for what the others' checks add.
    await sleep(INTERVAL_S * 1000);
    const pacedFew = await paced(servers);

    process.stderr.write(`  ${fill.ids.size} monitors running; adding ${MONITORS - fill.ids.size}…\n`);
    beating = await startOthers(w, MONITORS - fill.ids.size, kinds, targets);
    // Every monitor checked at least once, and the schedule steady.
    await sleep(2 * INTERVAL_S * 1000);
    process.stderr.write(`  ${MONITORS} monitors running; measuring…\n`);
    // What watchlog spends with no request: its monitors, projections and jobs.
    const idleCpu = cpuMs(w.child.process.pid!);
    await sleep(5000);
    const backgroundCpu = (cpuMs(w.child.process.pid!) - idleCpu) / 5000;

    const start = logFigures(dataDir);
    const startedAt = Date.now();
    const loadAtStart = loadavg()[0]!;
    const measured = await bodiesDropped(async () => ({
      gzip: await compare(servers, GZIP, 200),
      identity: await compare(servers, {}, 200),
      notModified: await compare(servers, { ...GZIP, 'if-none-match': base.etag }, 304),
    }));
    const pacedAll = await paced(servers);
    const measuredAt = Date.now();
    const quiet = await freshness(w, pageUrl, fill.ids, targets, ROUNDS);
    const loaded = await freshnessUnderLoad(w, pageUrl, fill.ids, targets, ROUNDS, TARGETS.rps);
    const end = logFigures(dataDir, start.head);
    return {
      monitors: MONITORS,
      flappers: FLAPPERS,
      page: {
        monitors: fill.ids.size,
        groups: PAGE_GROUPS.length,
        days: 90,
        htmlBytes: base.htmlBytes,
        gzipBytes: base.gzipBytes,
        checks: fill.checks,
      },
      backgroundCpu,
      ...measured,
      pacedFew,
      paced: pacedAll,
      quiet,
      loaded,
      running: {
        seconds: (Date.now() - startedAt) / 1000,
        checks: end.checks,
        transitions: end.transitions,
        bursts: await checkBursts(dataDir, start.head, startedAt, measuredAt),
      },
      loadAverage: [loadAtStart, loadavg()[0]!],
    };
  } finally {
    beating?.stop();
    await baseline?.stop();
    await w?.child.stop();
    await kinds.close();
    await targets.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  }
};
