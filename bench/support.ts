import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DEMO_MARKER, fillDemo } from '../src/cli/demo.ts';
import { READ_MODELS } from '../src/compose/read-models.ts';
import { rebuildEmbeddedReadModels } from '../src/compose/rebuild.ts';
import type { StoreConfig } from '../src/compose/stores.ts';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { viewsPath } from '../src/views/store/sqlite-files.ts';
import { loadConfig } from '../src/config.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/helpers/process.ts';
export { freePort };

const root = fileURLToPath(new URL('..', import.meta.url));

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);

export interface Child {
  process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts a Node process (or `command`) and resolves once `ready` answers true (polled). */
export const startProcess = async (
  args: string[],
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  command = process.execPath,
): Promise<Child> => {
  // BENCH_NODE_ARGS: node's own flags for the processes started here (`--cpu-prof` is refused in
  // NODE_OPTIONS), e.g. to profile the server under a section's load.
  const nodeArgs = command === process.execPath ? (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean) : [];
  const child = spawn(command, [...nodeArgs, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 30_000;
  while (!(await ready().catch(() => false))) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not become ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    process: child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
};

export interface LoadResult {
  requestsPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** 2xx answers during the unmeasured warm-up. */
  warmupOk: number;
}

/** autocannon for `duration` seconds after an unmeasured warm-up of WARMUP seconds. */
export const load = async (options: autocannon.Options, duration = DURATION): Promise<LoadResult> => {
  const warmup = WARMUP > 0 ? await autocannon({ connections: CONNECTIONS, ...options, duration: WARMUP }) : null;
  const r = await autocannon({ connections: CONNECTIONS, ...options, duration });
  return {
    requestsPerSec: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    ok: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    warmupOk: warmup ? warmup['2xx'] : 0,
  };
};

export const json = async <T>(url: string, init: RequestInit = {}): Promise<T> => {
  const res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

/** Logs in as soon as the server has created its admin (just after it starts listening). */
export const loginWhenReady = async (
  base: string,
  credentials: { email: string; password: string },
): Promise<string> => {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const res = await fetch(`${base}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(credentials),
    });
    if (res.ok) return ((await res.json()) as { token: string }).token;
    if (Date.now() > deadline) throw new Error(`login failed: ${res.status}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

export const verdict = (pass: boolean) => (pass ? 'PASS' : 'FAIL');

/** This machine's speed drifts by tens of percent within a minute: targets measured one after
 *  the other compare two moments more than two targets. So each of `slices` rounds measures
 *  every target in turn, the order flipped every round (neither always follows the other);
 *  the results per target, in slice order. */
export const alternatingSlices = async <T>(
  targets: number,
  slices: number,
  measure: (target: number, slice: number) => Promise<T>,
): Promise<T[][]> => {
  const results: T[][] = Array.from({ length: targets }, () => []);
  for (let slice = 0; slice < slices; slice += 1) {
    const order = Array.from({ length: targets }, (_, i) => i);
    if (slice % 2 === 1) order.reverse();
    for (const target of order) results[target]!.push(await measure(target, slice));
  }
  return results;
};

export const median = (xs: readonly number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? NaN : sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** A realistic event (~600 bytes) with fields to mask. */
export const EVENT = JSON.stringify({
  path: '/api/orders/123',
  method: 'POST',
  status_code: 201,
  response_time: 37,
  identifier: 'user-42',
  service_name: 'orders',
  environment: 'production',
  user_email: 'jane@example.com',
  user_name: 'Jane',
  user_roles: ['buyer'],
  tenant_id: 'acme',
  ip: '203.0.113.9',
  request_id: 'req-8f14e45f',
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
  query_params: { page: '1' },
  request_body: { item: 'sku-1', qty: 2, card: '4111 1111 1111 1111', password: 'hunter2' },
  response_body: { ok: true, order_id: 'ord-123' },
});

export const ADMIN = { email: 'bench@example.com', password: 'bench-password-1' };

export interface Watchlog {
  child: Child;
  base: string;
  auth: { authorization: string };
}

/** A server on a data dir that later sections (or their raw-SQL baselines) read again keeps its
 *  log as written: no compaction job (the storage section compacts a copy). */
export const KEEP_LOG_AS_WRITTEN = { WATCHLOG_LOG_COMPACTION_SECONDS: '0' } as const;

/** The compiled `watchlog start` (npm run bench builds it) on a free port, signed in as ADMIN
 *  (created by the server when the data dir has no user). `ready`: the path polled before
 *  signing in (/readyz waits for the read models to catch up with a filled log). */
export const startWatchlog = async (
  dataDir: string,
  env: Record<string, string> = {},
  ready = '/healthz',
): Promise<Watchlog> => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    [path.join(root, 'dist/src/main.js'), 'start'],
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      WATCHLOG_DATA_DIR: dataDir,
      WATCHLOG_LOG_LEVEL: 'warn',
      WATCHLOG_ADMIN_EMAIL: ADMIN.email,
      WATCHLOG_ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
    async () => (await fetch(`${base}${ready}`)).ok,
  );
  try {
    return { child, base, auth: { authorization: `Bearer ${await loginWhenReady(base, ADMIN)}` } };
  } catch (err) {
    await child.stop();
    throw err;
  }
};

/** A new project and an API key of it (`restrictions`: the key's rate limit, origins). */
export const projectWithKey = async (
  w: Watchlog,
  name: string,
  restrictions: Record<string, unknown> = {},
): Promise<{ id: string; key: string }> => {
  const { id } = await json<{ id: string }>(`${w.base}/v1/projects`, {
    method: 'POST',
    headers: w.auth,
    body: JSON.stringify({ name }),
  });
  const { key } = await json<{ key: string }>(`${w.base}/v1/projects/${id}/api-keys`, {
    method: 'POST',
    headers: w.auth,
    body: JSON.stringify({ name, ...restrictions }),
  });
  return { id, key };
};

/** autocannon's options for single-event ingest: EVENT posted to POST /v1/audit with `key`. */
export const singleEventIngest = (base: string, key: string): autocannon.Options => ({
  url: `${base}/v1/audit`,
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: EVENT,
});

/** A process's resident memory (VmRSS), kB; 0 once it is gone. */
export const rssKb = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
};

/** Samples a process's VmRSS every `everyMs` from now until `stop`, which gives the first sample
 *  and the largest, kB. */
export const sampleRss = (pid: number, everyMs = 20): { stop(): { beforeKb: number; peakKb: number } } => {
  const beforeKb = rssKb(pid);
  let peakKb = beforeKb;
  const timer = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(pid));
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { beforeKb, peakKb: Math.max(peakKb, rssKb(pid)) };
    },
  };
};

export interface Fill {
  events: number;
  dir: string;
  reused: boolean;
  appendMs: number;
  projectMs: number;
  projectId: string;
}

/** A data dir of `events` demo events (`watchlog demo`'s traffic) under .bench/dashboard-<n>/,
 *  filled once and reused by later runs and sections; with `current`, its read models brought to
 *  this code's schemas (a section that rebuilds them itself does without). */
export const demoDataDir = async (events: number, { current = true }: { current?: boolean } = {}): Promise<Fill> => {
  const dir = path.join(root, '.bench', `dashboard-${events}`);
  const marker = path.join(dir, DEMO_MARKER);
  if (existsSync(marker)) {
    const saved = JSON.parse(readFileSync(marker, 'utf8')) as {
      projects: { shop: string };
      appendMs: number;
      projectMs: number;
    };
    if (current) await currentReadModels(dir);
    return {
      events,
      dir,
      reused: true,
      appendMs: saved.appendMs,
      projectMs: saved.projectMs,
      projectId: saved.projects.shop,
    };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const config = loadConfig({ WATCHLOG_DATA_DIR: dir });
  let last = 0;
  const report = await fillDemo(config, {
    events,
    admin: ADMIN,
    upUrl: 'http://127.0.0.1:9/up',
    downUrl: 'http://127.0.0.1:9/down',
    onProgress: (n, total) => {
      if (Date.now() - last < 10_000 && n < total) return;
      last = Date.now();
      process.stderr.write(`  appended ${n}/${total}\n`);
    },
  });
  writeFileSync(
    marker,
    `${JSON.stringify(
      {
        made_by: 'bench/dashboard.ts',
        events: report.events,
        projects: report.projects,
        appendMs: report.appendMs,
        projectMs: report.projectMs,
      },
      null,
      2,
    )}\n`,
  );
  return {
    events,
    dir,
    reused: false,
    appendMs: report.appendMs,
    projectMs: report.projectMs,
    projectId: report.projects.shop,
  };
};

/** The raw baselines' load: every AuditEventRecorded of the log, parsed and inserted as the
 *  audit-events writer inserts it (its columns, `rest` JSON, project keys), into the
 *  audit_events table the caller made in `db`, `batchSize` rows a transaction. Gives the rows
 *  written. */
export const loadAuditRows = (logFile: string, db: Database.Database, batchSize: number): number => {
  const log = new Database(logFile, { readonly: true });
  try {
    const insert = db.prepare(
      `INSERT INTO audit_events
      (position, id, project, event_type, method, path, status_code, response_time, identifier, ` +
        `user_email, service_name, environment, session_id, ts, rest)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // The least a row's project key costs: kept in memory, written once per project.
    const addKey = db.prepare('INSERT INTO audit_projects (project_id) VALUES (?)');
    const keys = new Map<string, number>();
    const keyOf = (projectId: string) =>
      keys.get(projectId) ?? keys.set(projectId, Number(addKey.run(projectId).lastInsertRowid)).get(projectId)!;
    type Row = { position: number; data: string };
    const write = db.transaction((items: readonly Row[]) => {
      for (const { position, data } of items) {
        const {
          id,
          project_id,
          event_type,
          method,
          path: route,
          status_code,
          response_time,
          identifier,
          user_email,
          service_name,
          environment,
          session_id,
          timestamp,
          ...rest
        } = JSON.parse(data) as Record<string, string | number | null | undefined>;
        insert.run(
          position,
          id,
          keyOf(String(project_id)),
          event_type,
          method,
          route,
          status_code ?? null,
          response_time ?? null,
          identifier,
          user_email ?? null,
          service_name,
          environment,
          session_id ?? null,
          Date.parse(String(timestamp)),
          JSON.stringify(rest),
        );
      }
    });
    let written = 0;
    let batch: Row[] = [];
    for (const row of log
      .prepare("SELECT position, data FROM events WHERE type = 'AuditEventRecorded' ORDER BY position")
      .iterate() as IterableIterator<Row>) {
      batch.push(row);
      if (batch.length === batchSize) {
        write(batch);
        written += batch.length;
        batch = [];
      }
    }
    write(batch);
    return written + batch.length;
  } finally {
    log.close();
  }
};

/** Whether the read models of a data dir filled by an earlier run are of this code's schemas and
 *  at the log's head (not left half-replayed by a run that stopped). */
const readModelsCurrent = (dir: string): boolean => {
  let db: Database.Database | undefined;
  try {
    db = new Database(viewsPath(dir), { readonly: true, fileMustExist: true });
    db.exec(`ATTACH DATABASE '${path.join(dir, 'log.db').replaceAll("'", "''")}' AS log`);
    const { head } = db.prepare('SELECT max(position) AS head FROM log.events').get() as { head: number };
    const built = new Map(
      (
        db
          .prepare(`SELECT v.projection, v.version, c.position FROM read_model_versions AS v
      JOIN checkpoints AS c ON c.projection = v.projection`)
          .all() as Array<{ projection: string; version: number; position: string }>
      ).map((r) => [r.projection, r]),
    );
    return Object.values(READ_MODELS).every((entry) => {
      const row = built.get(entry.name);
      return row?.version === entry.sqlite.schema.version && Number(row.position) === head;
    });
  } catch {
    return false;
  } finally {
    db?.close();
  }
};

/** The embedded log of a data dir, as a rebuild's second lane opens it. */
export const embeddedLog = (dataDir: string): StoreConfig => ({
  dataDir,
  eventStoreUrl: undefined,
  eventStoreNamespace: '',
  mongoUrl: undefined,
});

/** Brings a reused data dir's read models to this code's schemas with `watchlog rebuild`'s bulk
 *  load, so that a server started on it is ready at once instead of replaying in place. */
export const currentReadModels = async (dir: string): Promise<void> => {
  if (readModelsCurrent(dir)) return;
  process.stderr.write('  its read models are of another version: rebuilding them…\n');
  const log = new SqliteEventLog(path.join(dir, 'log.db'));
  try {
    await rebuildEmbeddedReadModels(dir, log, () => undefined, { laneLog: embeddedLog(dir) });
  } finally {
    await log.close();
  }
};
