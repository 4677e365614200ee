import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { freePort, json, loginWhenReady, startProcess, verdict } from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };
const MONITORS = Number(process.env.BENCH_MONITORS ?? 1000);
const SECONDS = Number(process.env.BENCH_MONITOR_SECONDS ?? 60);
const INTERVAL_S = 10;

export interface MonitorsReport {
  monitors: number;
  seconds: number;
  checks: number;
  expectedChecks: number;
  /** How far each check started after its schedule (the previous check plus the interval), ms. */
  lateness: { p50: number; p99: number; max: number };
  /** CPU time of the watchlog process over the measured window, as a share of one core. */
  cpuShareOfOneCore: number;
  targetRequests: number;
}

/** Process CPU time (user + system), in seconds, from /proc. */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** 1,000 monitors at a 10 s interval against a local target: every check should start on time. */
export const monitorsBenchmark = async (): Promise<MonitorsReport> => {
  let targetRequests = 0;
  const target = http.createServer((_req, res) => {
    targetRequests += 1;
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-monitors-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startProcess(
    [path.join(root, 'dist/src/main.js'), 'start'],
    {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_LOG_LEVEL: 'warn',
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
    },
    async () => (await fetch(`${base}/healthz`)).ok,
  );
  try {
    const token = await loginWhenReady(base, ADMIN);
    const auth = { authorization: `Bearer ${token}` };
    for (let p = 0; p < Math.ceil(MONITORS / 10); p++) {
      const project = await json<{ id: string }>(`${base}/v1/projects`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ name: `p${p}` }),
      });
      await Promise.all(
        Array.from({ length: Math.min(10, MONITORS - p * 10) }, (_, i) =>
          json(`${base}/v1/monitors`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({
              project_id: project.id,
              name: `m${p}-${i}`,
              url: targetUrl,
              interval_seconds: INTERVAL_S,
              timeout_seconds: 5,
            }),
          }),
        ),
      );
    }
    // Measure after every job has run once: the window starts on a steady schedule.
    await new Promise((r) => setTimeout(r, INTERVAL_S * 1000));
    const pid = server.process.pid!;
    const cpuBefore = cpuSeconds(pid);
    const windowStart = Date.now();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const cpu = cpuSeconds(pid) - cpuBefore;
    const windowEnd = Date.now();

    const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
    const byMonitor = new Map<string, number[]>();
    let after: string | null = null;
    for (;;) {
      const batch = await log.readAll(after, 5000);
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.position;
      for (const e of batch) {
        if (e.type !== 'CheckRecorded') continue;
        const data = e.data as { monitor_id: string; checked_at: string };
        const list = byMonitor.get(data.monitor_id) ?? [];
        list.push(Date.parse(data.checked_at));
        byMonitor.set(data.monitor_id, list);
      }
    }
    await log.close();
    const lateness: number[] = [];
    let checks = 0;
    for (const times of byMonitor.values()) {
      times.sort((a, b) => a - b);
      for (let i = 1; i < times.length; i++) {
        if (times[i]! < windowStart || times[i]! > windowEnd) continue;
        checks += 1;
        lateness.push(Math.max(0, times[i]! - times[i - 1]! - INTERVAL_S * 1000));
      }
    }
    lateness.sort((a, b) => a - b);
    return {
      monitors: byMonitor.size,
      seconds: SECONDS,
      checks,
      expectedChecks: Math.floor((MONITORS * SECONDS) / INTERVAL_S),
      lateness: {
        p50: percentile(lateness, 50),
        p99: percentile(lateness, 99),
        max: lateness[lateness.length - 1] ?? 0,
      },
      cpuShareOfOneCore: cpu / ((windowEnd - windowStart) / 1000),
      targetRequests,
    };
  } finally {
    await server.stop();
    target.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const printMonitors = (r: MonitorsReport): string[] => [
  `monitors: ${r.monitors} monitors every ${INTERVAL_S} s for ${r.seconds} s against a local target`,
  `checks recorded in the window: ${r.checks} (schedule: ${r.expectedChecks}, ratio ` +
    `${(r.checks / Math.max(1, r.expectedChecks)).toFixed(3)})`,
  `lateness vs schedule: p50 ${r.lateness.p50} ms   p99 ${r.lateness.p99} ms   max ` +
    `${r.lateness.max} ms   ${verdict(r.lateness.p99 < 1000)} (target p99 < 1 s)`,
  `watchlog CPU: ${(r.cpuShareOfOneCore * 100).toFixed(1)}% of one core`,
];
