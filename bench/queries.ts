import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredAuditEvent } from '../src/domain/audit-event.ts';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { type Cost, SEARCH_WORDS, type SearchProjectorReport, searchFields, searchProjectorCost } from './search.ts';
import { KEEP_LOG_AS_WRITTEN, freePort, json, loginWhenReady, startProcess, verdict, type Child } from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const SERVICES = 10;
const DAY_MS = 86_400_000;

interface Server {
  child: Child;
  base: string;
  token: string;
}

const startServer = async (dataDir: string): Promise<Server> => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    [path.join(root, 'dist/src/main.js'), 'start'],
    {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_LOG_LEVEL: 'warn',
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
      ...KEEP_LOG_AS_WRITTEN,
    },
    async () => (await fetch(`${base}/healthz`)).ok,
  );
  return { child, base, token: await loginWhenReady(base, ADMIN) };
};

/** `count` events of one project spread over the last 24 hours, appended straight to the log
 *  (the projector then builds every read model from it, as after a restore). */
const seedLog = async (dataDir: string, projectId: string, count: number) => {
  const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
  const now = Date.now();
  const batch = 5000;
  for (let start = 0; start < count; start += batch) {
    const events = Array.from({ length: Math.min(batch, count - start) }, (_, k) => {
      const i = start + k;
      const status = [200, 201, 404, 500, 302][i % 5]!;
      const data: StoredAuditEvent = {
        id: randomUUID(),
        project_id: projectId,
        event_type: 'http',
        timestamp: new Date(now - DAY_MS + (i / count) * DAY_MS).toISOString(),
        path: `/api/items/${i % 500}`,
        method: ['GET', 'POST', 'PUT', 'DELETE'][i % 4]!,
        status_code: status,
        response_time: 5 + ((i * 7919) % 400),
        identifier: `user-${i % 5000}`,
        service_name: `svc-${i % SERVICES}`,
        environment: 'production',
        source: 'backend',
        ...searchFields(i, i % 5000, status),
      };
      return {
        id: randomUUID(),
        type: 'AuditEventRecorded',
        data,
        metadata: { recorded_at: data.timestamp, actor: 'bench', correlation_id: 'bench', schema_version: 1 },
      };
    });
    await log.append(`audit-${projectId}`, events, 'any');
    if ((start / batch) % 40 === 0) process.stderr.write(`  seeded ${start + events.length}/${count}\n`);
  }
  await log.close();
};

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

const latency = async (server: Server, url: string, runs = 60) => {
  const times: number[] = [];
  for (let i = 0; i < runs + 5; i += 1) {
    const started = performance.now();
    const res = await fetch(server.base + url, { headers: { authorization: `Bearer ${server.token}` } });
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: ${res.status}`);
    if (i >= 5) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: Math.round(percentile(times, 0.5) * 10) / 10, p95: Math.round(percentile(times, 0.95) * 10) / 10 };
};

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

/** Downloads the export while sampling the server's resident memory. */
const exportRun = async (server: Server, projectId: string) => {
  const pid = server.child.process.pid!;
  const before = rssKb(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssKb(pid));
  }, 20);
  const started = performance.now();
  const res = await fetch(`${server.base}/v1/audit/export?project_id=${projectId}`, {
    headers: { authorization: `Bearer ${server.token}` },
  });
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const ms = performance.now() - started;
  clearInterval(sampler);
  return {
    ms: Math.round(ms),
    bytes,
    rssGrowthMb: Math.round((peak - before) / 102.4) / 10,
    truncated: res.headers.get('x-export-truncated') === 'true',
  };
};

export interface QueryReport {
  events: number;
  projectionMs: number;
  stats: { p50: number; p95: number };
  list: { p50: number; p95: number };
  /** `q` of one word, on a project's list: a word of one event in ten, and one of one in 5,000. */
  search: { common: { p50: number; p95: number }; rare: { p50: number; p95: number } };
  export?: { ms: number; bytes: number; rssGrowthMb: number; truncated: boolean };
}

const measure = async (events: number, withExport: boolean): Promise<QueryReport> => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-q-'));
  try {
    let server = await startServer(dataDir);
    const project = await json<{ id: string }>(`${server.base}/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: JSON.stringify({ name: 'bench' }),
    });
    await server.child.stop();
    await seedLog(dataDir, project.id, events);
    const started = Date.now();
    server = await startServer(dataDir);
    const statsUrl = `/v1/audit/stats?project_id=${project.id}`;
    // Caught up when the last read models count every event (a fixed range: the default 24 h moves).
    const everything =
      `${statsUrl}&start_date=${new Date(Date.now() - 2 * DAY_MS).toISOString()}` +
      `&end_date=${new Date(Date.now() + DAY_MS).toISOString()}&interval=day`;
    for (let last = 0; ; ) {
      const stats = await json<{ total: number }>(server.base + everything, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      const list = await json<{ pagination: { totalItems: number } }>(
        `${server.base}/v1/audit?limit=1&project_id=${project.id}`,
        { headers: { authorization: `Bearer ${server.token}` } },
      );
      if (stats.total >= events && list.pagination.totalItems >= events) break;
      if (Date.now() - last > 10_000) {
        process.stderr.write(
          `  projecting: audit events ${list.pagination.totalItems}/${events}, stats ${stats.total}/${events}\n`,
        );
        last = Date.now();
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    const projectionMs = Date.now() - started;
    // A fresh process for the measurements, so memory figures are not the catch-up's.
    await server.child.stop();
    server = await startServer(dataDir);
    const report: QueryReport = {
      events,
      projectionMs,
      stats: await latency(server, statsUrl),
      list: await latency(server, `/v1/audit?project_id=${project.id}&service_name=svc-3&method=DELETE&limit=20`),
      search: {
        common: await latency(server, `/v1/audit?project_id=${project.id}&q=${SEARCH_WORDS.common}&limit=20`),
        rare: await latency(server, `/v1/audit?project_id=${project.id}&q=${SEARCH_WORDS.rare}&limit=20`),
      },
    };
    if (withExport) report.export = await exportRun(server, project.id);
    await server.child.stop();
    return report;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export interface QueriesReport {
  small: QueryReport;
  large: QueryReport;
  searchProjector: SearchProjectorReport;
}

export const queriesBenchmark = async (): Promise<QueriesReport> => {
  const largeCount = Number(process.env.BENCH_LARGE_EVENTS ?? 1_000_000);
  const small = await measure(10_000, false);
  const large = await measure(largeCount, true);
  process.stderr.write('  the audit-events projection with and without the search index…\n');
  return { small, large, searchProjector: await searchProjectorCost() };
};

export const printQueries = (r: QueriesReport): string[] => {
  const row = (name: string, q: QueryReport) =>
    `${name.padEnd(16)} stats p50 ${String(q.stats.p50).padStart(6)} ms  p95 ${String(q.stats.p95).padStart(6)} ms   ` +
    `filtered list p50 ${String(q.list.p50).padStart(6)} ms  p95 ${String(q.list.p95).padStart(6)} ` +
    `ms   (projected in ${(q.projectionMs / 1000).toFixed(1)} s)`;
  const e = r.large.export!;
  return [
    `queries: one project, ${SERVICES} services, events over the last 24 h (sequential requests)`,
    row(`${r.small.events} events`, r.small),
    row(`${r.large.events} events`, r.large),
    `stats p95 at ${r.large.events}: ${r.large.stats.p95} ms ${verdict(r.large.stats.p95 < 50)} (< 50 ms); ` +
      `x${(r.large.stats.p95 / r.small.stats.p95).toFixed(2)} of the 10k figure ` +
      `${verdict(r.large.stats.p95 < 2 * r.small.stats.p95)} (< 2x)`,
    `filtered list p95 at ${r.large.events}: ${r.large.list.p95} ms ${verdict(r.large.list.p95 < 50)} (< 50 ms)`,
    `export of ${Math.min(100_000, r.large.events)} rows as CSV: ${e.ms} ms ${verdict(e.ms < 3000)} ` +
      `(< 3 s), ${(e.bytes / 1e6).toFixed(1)} MB, ` +
      `server RSS growth ${e.rssGrowthMb} MB ${verdict(e.rssGrowthMb < 100)} (< 100 MB)` +
      `${e.truncated ? ', truncated as documented' : ''}`,
    ...printSearch(r),
  ];
};

const printSearch = ({ large, searchProjector: p }: QueriesReport): string[] => {
  const ms = ({ p50, p95 }: { p50: number; p95: number }) => `p50 ${p50} ms, p95 ${p95} ms`;
  const cost = (x: { wallUs: number; cpuUs: number }) =>
    `${x.wallUs.toFixed(1)} µs elapsed, ${x.cpuUs.toFixed(1)} µs CPU`;
  const above = (x: { withIndex: Cost; withoutIndex: Cost }, key: keyof Cost) =>
    (x.withIndex[key] / x.withoutIndex[key] - 1) * 100;
  const line = (what: string, x: { withIndex: Cost; withoutIndex: Cost }, judged: boolean) =>
    `${what}: with the search index ${cost(x.withIndex)}; without ${cost(x.withoutIndex)}; ` +
    `+${above(x, 'wallUs').toFixed(0)} % elapsed, +${above(x, 'cpuUs').toFixed(0)} % CPU` +
    (judged ? ` ${verdict(above(x, 'wallUs') <= 20)} (at most 20 % above)` : '');
  return [
    `search, one word, a page of 20 and its total, at ${large.events}: "${SEARCH_WORDS.common}" (1 event in 10) ` +
      `${ms(large.search.common)} ${verdict(large.search.common.p95 < 100)} (p95 < 100 ms); ` +
      `"${SEARCH_WORDS.rare}" (1 in 5,000) ${ms(large.search.rare)} ${verdict(large.search.rare.p95 < 100)}`,
    line(
      `projector, every projection, per event (${p.events} events, batches of 1,000, median of 3)`,
      p.projector,
      true,
    ),
    line('  of which the audit-events projection alone', p, false),
  ];
};
