import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from '../config.ts';
import { handle, newEvent, type CommandContext } from '../commands/handle.ts';
import { toStoredAuditEvent } from '../commands/ingest.ts';
import { createMonitor } from '../commands/monitors.ts';
import { DEMO_STATUS_SLUG, demoStatusPage } from './demo-status.ts';
import { generatePassword, Passwords } from '../commands/passwords.ts';
import { createProject, issueApiKey } from '../commands/projects.ts';
import { NO_RESTRICTIONS } from '../domain/api-keys.ts';
import { registerUser } from '../commands/users.ts';
import { MONITORS_PER_PROJECT, monitorDecider, type CheckResult } from '../domain/monitor.ts';
import { auditStream, checksStream, monitorStream } from '../domain/streams.ts';
import { scanAnomalies } from '../jobs/anomaly-scan.ts';
import type { EventLog, NewEvent } from '../log/event-log.ts';
import { demoTraffic, seededRandom, type DemoProjects } from './demo-traffic.ts';
import { rebuildEmbeddedReadModels, rebuildReadModels } from '../compose/rebuild.ts';
import { serve } from '../compose/roles.ts';
import { openLog, openStores, type StoreConfig } from '../compose/stores.ts';
import { StartupError } from '../startup-error.ts';

/** `watchlog demo`: an empty data dir filled with a day of made-up traffic (src/cli/demo-traffic.ts),
 *  two monitors (one of a tiny HTTP server this process runs, one of a closed port), an anomaly
 *  alert, then the service as `watchlog start` runs it.
 *
 *  Events are appended to the log directly, as `watchlog admin` writes, because the ingest API
 *  stamps each event with the time it arrives and a day cannot be sent in the past over HTTP; the
 *  stored form is built by ingest's own `toStoredAuditEvent`, so masking is the one ingest applies.
 *  The read models are then built as `watchlog rebuild` builds them, in one pass over the log. */

export const DEMO_ADMIN_EMAIL = 'demo@watchlog.local';
export const DEFAULT_DEMO_EVENTS = 30_000;
export const DEFAULT_DEMO_DIR = './demo-data';
/** Written into a data dir the demo filled, so that a second `watchlog demo` may empty it again. */
export const DEMO_MARKER = 'watchlog-demo.json';

const DAY_MS = 86_400_000;
const ACTOR = 'system:demo';

/** What a data dir holds, as far as the demo is concerned. */
export type DataDirState = { kind: 'empty' } | { kind: 'demo' } | { kind: 'other'; reason: string };

export const dataDirState = (dir: string): DataDirState => {
  if (!existsSync(dir)) return { kind: 'empty' };
  const entries = readdirSync(dir);
  if (entries.length === 0) return { kind: 'empty' };
  if (entries.includes(DEMO_MARKER)) return { kind: 'demo' };
  if (entries.includes('log.db'))
    return {
      kind: 'other',
      reason: 'already holds a watchlog event log (users, projects, events) that the demo did not make',
    };
  return { kind: 'other', reason: `is not empty (${entries.length} entries) and was not made by the demo` };
};

export interface FillOptions {
  /** How many audit events (about: the count is exact, the split between projects is not). */
  events: number;
  admin: { email: string; password: string };
  /** Monitored: one answers (UP), one does not (DOWN). */
  upUrl: string;
  downUrl: string;
  /** The end of the day of traffic (default: now). */
  now?: number;
  /** Told how many events are appended so far. */
  onProgress?: (appended: number, total: number) => void;
  /** The cost of the admin's password hash (tests and the bench may lower it). */
  passwords?: Passwords;
}

export interface FillReport {
  projects: DemoProjects;
  events: number;
  /** Appending the events to the log. */
  appendMs: number;
  /** Building every read model from the log. */
  projectMs: number;
  alerts: number;
}

/** Checks of a monitor every minute over the last two hours; `downSince` turns them into failures. */
const backfillChecks = async (log: EventLog, monitorId: string, url: string, now: number, downSince: number | null) => {
  const random = seededRandom(monitorId.charCodeAt(0));
  const results: CheckResult[] = [];
  for (let at = now - 2 * 3_600_000; at < now - 30_000; at += 60_000) {
    const checked_at = new Date(at).toISOString();
    if (downSince !== null && at >= downSince) {
      results.push({
        checked_at,
        ok: false,
        response_ms: 1 + Math.floor(random() * 3),
        error: `connect ECONNREFUSED ${new URL(url).host}`,
      });
    } else {
      results.push({ checked_at, ok: true, status_code: 200, response_ms: 3 + Math.floor(random() * 20) });
    }
  }
  const ctx = (at: string): CommandContext => ({
    actor: 'system:monitor',
    correlationId: monitorId,
    now: () => new Date(at),
  });
  const project = (await log.readStream(monitorStream(monitorId)))[0]!.data as { project_id: string };
  await log.append(
    checksStream(monitorId),
    results.map((r) =>
      newEvent(
        { type: 'CheckRecorded', data: { monitor_id: monitorId, project_id: project.project_id, ...r } },
        ctx(r.checked_at),
      ),
    ),
    'any',
  );
  // Only a check that changes the monitor's state records anything in its stream.
  let previous: boolean | null = null;
  for (const r of results) {
    if (r.ok !== previous)
      await handle(
        { log },
        monitorStream(monitorId),
        monitorDecider,
        { type: 'RecordCheck', result: r },
        ctx(r.checked_at),
      );
    previous = r.ok;
  }
};

/** Fills an empty data dir (the log, then every read model from it). */
export const fillDemo = async (
  config: StoreConfig & Pick<Config, 'anomalyDefaults' | 'anomalyScanMs'>,
  options: FillOptions,
): Promise<FillReport> => {
  const now = options.now ?? Date.now();
  const stores = await openStores(config, { writerThread: false });
  try {
    const log = stores.log;
    const yesterday = (minutes: number): CommandContext => ({
      actor: ACTOR,
      correlationId: randomUUID(),
      now: () => new Date(now - DAY_MS - 3_600_000 + minutes * 60_000),
    });
    const shop = await createProject({ log }, 'Acme Shop', yesterday(0));
    const backoffice = await createProject({ log }, 'Acme Back Office', yesterday(1));
    for (const [id, name] of [
      [shop.id, 'storefront'],
      [shop.id, 'backend services'],
      [backoffice.id, 'back office'],
    ] as const) {
      await issueApiKey({ log }, id, name, NO_RESTRICTIONS, yesterday(2));
    }
    await registerUser(
      { log, passwords: options.passwords ?? new Passwords() },
      { ...options.admin, role: 'admin', project_ids: [] },
      yesterday(3),
    );
    const monitorDeps = { log, monitorsInProject: async () => 0, monitorsPerProject: MONITORS_PER_PROJECT };
    const up = await createMonitor(
      monitorDeps,
      { project_id: shop.id, name: 'checkout-api', url: options.upUrl, interval_seconds: 30, timeout_seconds: 5 },
      yesterday(4),
    );
    const down = await createMonitor(
      monitorDeps,
      { project_id: shop.id, name: 'catalog', url: options.downUrl, interval_seconds: 30, timeout_seconds: 5 },
      yesterday(5),
    );
    await backfillChecks(log, up.id, options.upUrl, now, null);
    await backfillChecks(log, down.id, options.downUrl, now, now - 40 * 60_000);
    await demoStatusPage(log, shop.id, [up.id, down.id], now);

    const projects = { shop: shop.id, backoffice: backoffice.id };
    const started = performance.now();
    let appended = 0;
    for (const batch of demoTraffic({ now, total: options.events, projects })) {
      const byProject = new Map<string, NewEvent[]>();
      for (const e of batch) {
        const at = new Date(e.at);
        const stored = toStoredAuditEvent(e.projectId, e.input, at);
        const event = newEvent(
          { type: 'AuditEventRecorded', data: stored },
          { actor: ACTOR, correlationId: stored.id, now: () => at },
        );
        const list = byProject.get(e.projectId);
        if (list) list.push(event);
        else byProject.set(e.projectId, [event]);
      }
      // One append per project per batch: one transaction (and one fsync) for thousands of events.
      await Promise.all([...byProject].map(([projectId, events]) => log.append(auditStream(projectId), events, 'any')));
      appended += batch.length;
      options.onProgress?.(appended, options.events);
    }
    const appendMs = performance.now() - started;

    const projecting = performance.now();
    if (stores.switchViews) {
      await rebuildEmbeddedReadModels(config.dataDir, log, () => undefined, { laneLog: config });
      await stores.switchViews();
    } else await rebuildReadModels(stores, () => undefined);
    const projectMs = performance.now() - projecting;

    // The anomaly scan the service runs every WATCHLOG_ANOMALY_SCAN_SECONDS, once now: the brute
    // force of the last 90 seconds is an alert when the dashboard first opens.
    const scan = await scanAnomalies(
      {
        log,
        readModels: stores.readModels,
        caughtUp: async () => true,
        defaults: config.anomalyDefaults,
        intervalMs: config.anomalyScanMs,
        logger: pino({ level: 'silent' }),
      },
      new Date(),
    );
    return { projects, events: appended, appendMs, projectMs, alerts: scan.raised.length };
  } finally {
    await stores.close();
  }
};

/** A tiny HTTP target for the UP monitor, on 127.0.0.1. */
const startTarget = async (): Promise<{ url: string; close(): void }> => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', service: 'storefront' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.unref();
  return { url: `http://127.0.0.1:${port}/healthz`, close: () => server.close() };
};

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
const closedPort = async (): Promise<number> => {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

/** How many events the demo writes: WATCHLOG_DEMO_EVENTS, else 30,000. */
export const demoEventCount = (env: NodeJS.ProcessEnv): number => {
  const raw = env.WATCHLOG_DEMO_EVENTS;
  if (raw === undefined || raw === '') return DEFAULT_DEMO_EVENTS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 100 || n > 5_000_000)
    throw new StartupError('WATCHLOG_DEMO_EVENTS must be an integer from 100 to 5000000');
  return n;
};

/** A few live events every few seconds after start-up, so the day goes on: lists and charts move,
 *  and no service looks silent. Through a handle of its own on the log, as a second process would. */
const startLiveTraffic = async (config: StoreConfig, projects: DemoProjects): Promise<void> => {
  const log = await openLog(config, false);
  let round = 0;
  const timer = setInterval(() => {
    round += 1;
    const now = Date.now();
    const random = seededRandom(round);
    for (const batch of demoTraffic({
      now,
      spanMs: 10 * 60_000,
      total: 2 + Math.floor(random() * 6),
      projects,
      seed: 1000 + round,
      bruteForce: false,
    })) {
      const events = batch.map((e) => {
        const at = new Date(now - Math.floor(random() * 3000));
        return {
          projectId: e.projectId,
          event: newEvent(
            { type: 'AuditEventRecorded', data: toStoredAuditEvent(e.projectId, e.input, at) },
            { actor: ACTOR, correlationId: randomUUID(), now: () => at },
          ),
        };
      });
      for (const projectId of new Set(events.map((e) => e.projectId))) {
        void log
          .append(
            auditStream(projectId),
            events.filter((e) => e.projectId === projectId).map((e) => e.event),
            'any',
          )
          .catch(() => undefined);
      }
    }
  }, 4000);
  timer.unref();
};

/** `watchlog demo`. */
export const runDemo = async (config: Config, env: NodeJS.ProcessEnv, version: string): Promise<void> => {
  if (config.eventStoreUrl !== undefined || config.mongoUrl !== undefined) {
    throw new StartupError(
      'the demo runs on the embedded stores only: unset WATCHLOG_EVENTSTORE_URL and WATCHLOG_MONGO_URL',
    );
  }
  const events = demoEventCount(env);
  const dir = config.dataDir;
  const state = dataDirState(dir);
  if (state.kind === 'other')
    throw new StartupError(`demo: ${dir} ${state.reason}; run the demo on another directory (WATCHLOG_DATA_DIR)`);
  if (state.kind === 'demo') {
    // A day of traffic ending now, not at the last run: the demo's own directory is filled afresh.
    for (const entry of readdirSync(dir)) rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  // Marked before the fill, so that a fill cut short (Ctrl-C) leaves a directory the next run may empty.
  mkdirSync(dir, { recursive: true });
  const mark = (details: object) =>
    writeFileSync(
      path.join(dir, DEMO_MARKER),
      `${JSON.stringify({ made_by: 'watchlog demo', at: new Date().toISOString(), ...details }, null, 2)}\n`,
    );
  mark({});
  const admin = config.admin ?? { email: DEMO_ADMIN_EMAIL, password: generatePassword() };
  const target = await startTarget();
  const downUrl = `http://127.0.0.1:${await closedPort()}/health`;
  process.stderr.write(`demo: filling ${dir} with ${events.toLocaleString('en')} events over the last 24 h…\n`);
  const report = await fillDemo(config, { events, admin, upUrl: target.url, downUrl });
  mark({ events: report.events, projects: report.projects });
  const rate = Math.round(report.events / (report.appendMs / 1000));
  process.stderr.write(
    `demo: appended ${report.events.toLocaleString('en')} events in ` +
      `${(report.appendMs / 1000).toFixed(1)} s (${rate.toLocaleString('en')} events/s), ` +
      `built the read models in ${(report.projectMs / 1000).toFixed(1)} s, ${report.alerts} anomaly alert(s) raised\n`,
  );

  const logger: Logger = pino({ level: config.logLevel, base: { service: 'watchlog', mode: 'demo' } });
  const { port } = await serve('start', { ...config, admin }, logger, version);
  const url = `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`;
  // No wait for /readyz: the read models were built before the service started, so sign-in and
  // every list answer at once; the projectors only have the scan's alerts to add.
  await startLiveTraffic(config, report.projects);
  // A password the user chose is not echoed into terminals and logs; a generated one is shown once.
  const password = config.admin ? 'the password in WATCHLOG_ADMIN_PASSWORD' : `password ${admin.password}`;
  process.stdout.write(`watchlog demo ready: open ${url} and sign in as ${admin.email} with ${password}\n`);
  process.stdout.write(`the shop's public status page: ${url}/status/${DEMO_STATUS_SLUG}\n`);
};
