import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { DEFAULT_ANOMALY_SETTINGS } from '../src/domain/anomaly-settings.ts';
import { bucketOf, minuteOf } from '../src/domain/stats.ts';
import { scanAnomalies, type ScanReport } from '../src/jobs/anomaly-scan.ts';
import type { RecordedEvent } from '../src/log/event-log.ts';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { openSqliteReadModels } from '../src/compose/read-models.ts';
import type { ProjectionStore } from '../src/views/store/port.ts';
import type { ReadModels } from '../src/views/read-models.ts';
import type { WindowContribution } from '../src/views/anomaly-windows/port.ts';
import { anomaliesProjection } from '../projections/anomalies.ts';
import { bindProjection } from '../projections/projector.ts';
import { freePort, json, loginWhenReady, startProcess, verdict } from './support.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const SERVICES_PER_PROJECT = 10;
const SCAN_INTERVAL_MS = 30_000;

/** Synthetic positions for the read models' commits (the scan never reads them). */
let position = 0;
const recorded = (): RecordedEvent => {
  position += 1;
  return {
    id: randomUUID(),
    type: 'AuditEventRecorded',
    stream: 'bench',
    revision: 0,
    position: String(position),
    data: {},
    metadata: { recorded_at: '', actor: 'bench', correlation_id: 'bench', schema_version: 1 },
  };
};

/** Writes `items` through a read model's writer in commits of 20,000, as the projector would. */
const commitAll = async <T, W>(
  store: ProjectionStore<W>,
  items: Iterable<T>,
  write: (w: W, item: T, position: string) => void,
) => {
  let part: Array<[RecordedEvent, T]> = [];
  const flush = async () => {
    const byEvent = new Map(part);
    await store.commit(
      part.map(([r]) => r),
      (r, w) => write(w, byEvent.get(r)!, r.position),
    );
    part = [];
  };
  for (const item of items) {
    part.push([recorded(), item]);
    if (part.length >= 20_000) await flush();
  }
  if (part.length > 0) await flush();
};

const RATE = 400;

/** What the projections would have built from this traffic, written through the read models'
 *  own writers (the scan reads nothing else):
 *  - every service: RATE events a minute for the 90 minutes before now (stats minutes and hours;
 *    the last 6 minutes also as 10-second windows), from its share of `identifiers` distinct
 *    identifiers, 1 in 5 of them a 401 (failed logins, a steady background) and 1 in 100 a 500:
 *    every identifier has 401s in the brute-force window, all under the threshold;
 *  - 1 identifier in 2,000 also with 12 401s in the last 50 s (brute_force);
 *  - 1 service in 100 with 5× its rate in the last minute (volume_spike), 1 in 200 with 60
 *    DELETEs (mass_delete), 1 in 50 silent for the last 20 minutes (silent_service). */
const seed = async (m: ReadModels, services: number, identifiers: number, now: number) => {
  const projects = Array.from({ length: Math.ceil(services / SERVICES_PER_PROJECT) }, () => randomUUID());
  const serviceAt = (i: number) => ({
    project_id: projects[Math.floor(i / SERVICES_PER_PROJECT)]!,
    service_name: `svc-${i % SERVICES_PER_PROJECT}`,
  });
  const silent = (i: number) => i % 50 === 7;
  const spiking = (i: number) => i % 100 === 3;
  const perService = Math.max(1, Math.floor(identifiers / services));
  const minutes = (i: number) => {
    const out: Array<{ minute: number; rate: number }> = [];
    for (let minute = minuteOf(now) - 90 * 60_000; minute <= now; minute += 60_000) {
      if (silent(i) && minute > now - 20 * 60_000) continue;
      out.push({ minute, rate: spiking(i) && minute >= minuteOf(now) - 60_000 ? 5 * RATE : RATE });
    }
    return out;
  };
  function* statsRows() {
    for (let i = 0; i < services; i++) {
      for (const { minute, rate } of minutes(i)) {
        const b = bucketOf({
          ...serviceAt(i),
          environment: 'production',
          method: 'GET',
          status_code: 200,
          timestamp: new Date(minute).toISOString(),
          response_time: 20,
        });
        yield {
          ...b,
          total: rate,
          errors_4xx: rate / 5,
          classes: { '2xx': rate - rate / 5, '4xx': rate / 5 },
          methods: { GET: rate },
          rt_count: rate,
          rt_sum: 20 * rate,
          bins: {},
        };
      }
    }
  }
  function* windowEvents(): Generator<WindowContribution> {
    for (let i = 0; i < services; i++) {
      const s = { ...serviceAt(i), environment: 'production' };
      for (const { minute, rate } of minutes(i)) {
        if (minute < now - 6 * 60_000) continue;
        for (let k = 0; k < rate; k++) {
          const timestamp = minute + Math.floor((k * 60_000) / rate);
          if (timestamp > now) break;
          const status = k % 5 === 0 ? 401 : k % 100 === 1 ? 500 : 200;
          // The failed logins go round the service's identifiers, a little further each minute.
          const n = status === 401 ? (k / 5 + (minute / 60_000) * 13) % perService : k % perService;
          yield { ...s, identifier: `user-${i}-${n}`, method: 'GET', status_code: status, timestamp };
        }
      }
      if (i % 200 === 11) {
        for (let k = 0; k < 60; k++)
          yield { ...s, identifier: 'cleaner', method: 'DELETE', status_code: 204, timestamp: now - 20_000 + k * 100 };
      }
      for (let n = 0; n < perService; n++) {
        if ((i * perService + n) % 2000 !== 5) continue;
        for (let k = 0; k < 12; k++)
          yield {
            ...s,
            identifier: `user-${i}-${n}`,
            method: 'POST',
            status_code: 401,
            timestamp: now - 50_000 + k * 4000,
          };
      }
    }
  }
  await commitAll(m.stores.stats, statsRows(), (w, b, at) => w.add(b, at));
  await commitAll(m.stores.anomalyWindows, windowEvents(), (w, c, at) => w.add(c, at));
};

export interface ScanCost {
  services: number;
  identifiers: number;
  /** The first scan: every finding is new, so it also appends the alerts. */
  firstMs: number;
  /** Later scans, the alerts already open: median and worst of five. */
  steadyMs: { median: number; max: number };
  findings: number;
  raised: number;
}

const measureScan = async (services: number, identifiers: number): Promise<ScanCost> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-scan-'));
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  const readModels = await openSqliteReadModels(path.join(dir, 'views.db'));
  try {
    const now = Date.now();
    await seed(readModels, services, identifiers, now);
    const deps = {
      log,
      readModels,
      defaults: DEFAULT_ANOMALY_SETTINGS,
      intervalMs: SCAN_INTERVAL_MS,
      logger: pino({ level: 'silent' }),
      caughtUp: async () => true,
    };
    const first = await scanAnomalies(deps, new Date(now));
    // The alerts it raised reach the open-alerts read model, as the projector would carry them.
    const anomalies = bindProjection(anomaliesProjection, readModels.stores.anomalies);
    await anomalies.process(await log.readAll(null, 100_000));
    const steady: ScanReport[] = [];
    for (let i = 0; i < 5; i++) steady.push(await scanAnomalies(deps, new Date(now + i * 1000)));
    const ms = steady.map((s) => s.ms).sort((a, b) => a - b);
    if (steady.some((s) => s.raised.length > 0)) throw new Error('a later scan raised an alert again');
    return {
      services,
      identifiers,
      firstMs: first.ms,
      steadyMs: { median: ms[2]!, max: ms[4]! },
      findings: first.findings,
      raised: first.raised.length,
    };
  } finally {
    await readModels.close();
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

export interface DetectionLatency {
  intervalSeconds: number;
  trials: number[];
}

/** End to end through `watchlog start`: 12 × 401 for one identifier, then the time until the
 *  alert is listed. The target is one scan interval plus 10 s. */
const measureDetection = async (intervalSeconds: number, trials: number): Promise<DetectionLatency> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'watchlog-bench-detect-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const admin = { email: 'bench@example.com', password: 'bench-password-1' };
  const child = await startProcess(
    [path.join(root, 'dist/src/main.js'), 'start'],
    {
      PORT: String(port),
      WATCHLOG_DATA_DIR: dir,
      WATCHLOG_LOG_LEVEL: 'warn',
      WATCHLOG_ADMIN_EMAIL: admin.email,
      WATCHLOG_ADMIN_PASSWORD: admin.password,
      WATCHLOG_ANOMALY_SCAN_SECONDS: String(intervalSeconds),
    },
    async () => (await fetch(`${base}/healthz`)).ok,
  );
  try {
    const token = await loginWhenReady(base, admin);
    const auth = { authorization: `Bearer ${token}` };
    const project = await json<{ id: string }>(`${base}/v1/projects`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'detect' }),
    });
    const { key } = await json<{ key: string }>(`${base}/v1/projects/${project.id}/api-keys`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'sdk' }),
    });
    const results: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      for (let i = 0; i < 12; i++) {
        await json(`${base}/v1/audit`, {
          method: 'POST',
          headers: { 'x-api-key': key },
          body: JSON.stringify({
            path: '/login',
            method: 'POST',
            status_code: 401,
            identifier: `attacker-${trial}`,
            service_name: 'auth',
            environment: 'production',
          }),
        });
      }
      const arisen = Date.now();
      for (;;) {
        const alerts = await json<{ data: Array<{ request_body: { identifier?: string } }> }>(
          `${base}/v1/audit/anomalies?project_id=${project.id}&rule=brute_force`,
          { headers: auth },
        );
        if (alerts.data.some((a) => a.request_body.identifier === `attacker-${trial}`)) break;
        if (Date.now() - arisen > (intervalSeconds + 30) * 1000) throw new Error('no alert');
        await new Promise((r) => setTimeout(r, 100));
      }
      results.push(Date.now() - arisen);
    }
    return { intervalSeconds, trials: results };
  } finally {
    await child.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

export interface AnomaliesReport {
  baseline: ScanCost;
  large: ScanCost;
  detection: DetectionLatency;
}

export const anomaliesBenchmark = async (): Promise<AnomaliesReport> => {
  const services = Number(process.env.BENCH_SCAN_SERVICES ?? 1000);
  const identifiers = Number(process.env.BENCH_SCAN_IDENTIFIERS ?? 100_000);
  const baseline = await measureScan(Math.max(10, services / 100), Math.max(100, identifiers / 100));
  const large = await measureScan(services, identifiers);
  const detection = await measureDetection(Number(process.env.BENCH_SCAN_INTERVAL ?? 5), 3);
  return { baseline, large, detection };
};

export const printAnomalies = (r: AnomaliesReport): string[] => {
  const row = (c: ScanCost) =>
    `${`${c.services} services, ${c.identifiers} identifiers`.padEnd(36)} first scan ` +
    `${String(c.firstMs).padStart(5)} ms (${c.raised} alerts raised of ${c.findings} findings)   ` +
    `later scans median ${String(c.steadyMs.median).padStart(5)} ms  max ${String(c.steadyMs.max).padStart(5)} ms`;
  const worst = Math.max(r.large.firstMs, r.large.steadyMs.max);
  const slowest = Math.max(...r.detection.trials);
  return [
    'anomaly scan: one scan over the read models (10-second windows, stats minutes and hours), in process',
    row(r.baseline),
    row(r.large),
    `scan at ${r.large.services} services and ${r.large.identifiers} identifiers: worst ${worst} ms ` +
      `${verdict(worst < 1000)} (< 1 s); ` +
      `x${(r.large.steadyMs.median / Math.max(1, r.baseline.steadyMs.median)).toFixed(1)} the ` +
      `baseline's median for 100x the data`,
    `detection latency through watchlog start (scan every ${r.detection.intervalSeconds} s), 12 × ` +
      `401 to alert listed: ` +
      `${r.detection.trials.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')} ` +
      `${verdict(slowest <= (r.detection.intervalSeconds + 10) * 1000)} (<= interval + 10 s)`,
  ];
};
