import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Projector } from '../projections/projector.ts';
import { openSqliteReadModels, projectionRunners } from '../src/compose/read-models.ts';
import type { StoredAuditEvent } from '../src/domain/audit-event.ts';
import type { RecordedEvent } from '../src/log/event-log.ts';
import { SqliteEventLog } from '../src/log/sqlite/event-log.ts';
import { sqliteAuditEventsModel } from '../src/views/audit-events/sqlite.ts';
import { SqliteProjectionStore, openViewsDatabase } from '../src/views/store/sqlite.ts';

/** The search part of `npm run bench queries` (issue 34): the words its events are found by, and
 *  what the search index adds to the projector's cost per event. */

/** What a seeded event carries for search: an e-mail whose local part is a word of its own
 *  (`u1234`: one event in 5,000 of a user), a browser's User-Agent, a small request body, a
 *  tenant, and on one 500 in two the error `upstream timeout` (one event in ten). */
export const searchFields = (i: number, user: number, status: number): Partial<StoredAuditEvent> => ({
  user_email: `u${user}@example.com`,
  user_name: `User ${user}`,
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
  tenant_id: `tenant-${user % 50}`,
  request_body: { order_id: i, sku: `sku-${i % 1000}`, quantity: 1 + (i % 5), card: '************4242' },
  ...(status === 500 ? { error_message: i % 2 === 0 ? 'upstream timeout' : 'payment declined' } : {}),
});

/** The one-word queries timed: a common word and a rare one. */
export const SEARCH_WORDS = { common: 'timeout', rare: 'u4321' } as const;

const EVENTS = Number(process.env.BENCH_SEARCH_PROJECTOR_EVENTS ?? 50_000);
const BATCH = 1000;
const ROUNDS = 3;

const eventOf = (projectId: string, i: number): StoredAuditEvent => {
  const user = (i * 7919) % 5000;
  const status = [200, 201, 404, 500, 302][i % 5]!;
  return {
    id: randomUUID(),
    project_id: projectId,
    event_type: 'http',
    timestamp: new Date(Date.parse('2026-11-30T00:00:00Z') + i * 2).toISOString(),
    path: `/api/items/${i % 500}`,
    method: ['GET', 'POST', 'PUT', 'DELETE'][i % 4]!,
    status_code: status,
    response_time: 5 + ((i * 7919) % 400),
    identifier: `user-${user}`,
    service_name: `svc-${i % 10}`,
    environment: 'production',
    source: 'backend',
    ...searchFields(i, user, status),
  };
};

export interface Cost {
  /** µs per event, elapsed. */
  wallUs: number;
  /** µs of the process's CPU per event: less disturbed by whatever else the machine runs. */
  cpuUs: number;
}

/** The audit-events projection's cost into a live-style store (WAL, every query index), batches of
 *  the live projector's size. */
const projectOnce = async (search: boolean): Promise<Cost> => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'watchlog-bench-search-'));
  const db = openViewsDatabase(path.join(dir, 'views.db'));
  try {
    const store = new SqliteProjectionStore(db, 'audit-events', sqliteAuditEventsModel({ search }));
    const projectId = randomUUID();
    const events = Array.from({ length: EVENTS }, (_, i) => eventOf(projectId, i));
    const records: RecordedEvent[] = events.map((event, i) => ({
      id: randomUUID(),
      type: 'AuditEventRecorded',
      stream: `audit-${projectId}`,
      revision: i,
      position: String(i + 1),
      data: event,
      metadata: { recorded_at: '', actor: 'bench', correlation_id: 'bench', schema_version: 1 },
    }));
    const cpu = process.cpuUsage();
    const started = performance.now();
    // What the audit-events projection does with an AuditEventRecorded (projections/audit-events.ts).
    for (let n = 0; n < records.length; n += BATCH) {
      await store.commit(records.slice(n, n + BATCH), (r, writer) => writer.record(events[r.revision]!, r.position));
    }
    const used = process.cpuUsage(cpu);
    return { wallUs: ((performance.now() - started) * 1000) / EVENTS, cpuUs: (used.user + used.system) / EVENTS };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
};

/** A log of EVENTS seeded events of one project, as `npm run bench queries` seeds its own. */
const seedLog = async (file: string): Promise<void> => {
  const log = new SqliteEventLog(file);
  try {
    const projectId = randomUUID();
    for (let n = 0; n < EVENTS; n += BATCH) {
      const events = Array.from({ length: Math.min(BATCH, EVENTS - n) }, (_, k) => eventOf(projectId, n + k));
      await log.append(
        `audit-${projectId}`,
        events.map((data) => ({
          id: randomUUID(),
          type: 'AuditEventRecorded',
          data,
          metadata: { recorded_at: data.timestamp, actor: 'bench', correlation_id: 'bench', schema_version: 1 },
        })),
        'any',
      );
    }
  } finally {
    await log.close();
  }
};

/** Every projection through the projector's own catch-up (as `npm run bench projector`), the
 *  audit-events one with or without the search index: the projector's whole cost per event. */
const projectAll = async (logFile: string, search: boolean): Promise<Cost> => {
  const viewsFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'watchlog-bench-search-')), 'views.db');
  const readModels = await openSqliteReadModels(viewsFile);
  const log = new SqliteEventLog(logFile);
  // The variant store writes the same tables through a connection of its own.
  const db = openViewsDatabase(viewsFile);
  try {
    const models = search
      ? readModels
      : {
          ...readModels,
          stores: {
            ...readModels.stores,
            auditEvents: new SqliteProjectionStore(db, 'audit-events', sqliteAuditEventsModel({ search: false })),
          },
        };
    const projector = new Projector(log, projectionRunners(models), readModels.leases, pino({ level: 'silent' }));
    const cpu = process.cpuUsage();
    const started = performance.now();
    await projector.catchUp(undefined, { batchSize: BATCH });
    const used = process.cpuUsage(cpu);
    return { wallUs: ((performance.now() - started) * 1000) / EVENTS, cpuUs: (used.user + used.system) / EVENTS };
  } finally {
    db.close();
    await readModels.close();
    await log.close();
    rmSync(path.dirname(viewsFile), { recursive: true, force: true });
  }
};

export interface SearchProjectorReport {
  events: number;
  /** The audit-events projection alone. */
  withIndex: Cost;
  withoutIndex: Cost;
  /** Every projection. */
  projector: { withIndex: Cost; withoutIndex: Cost };
}

/** With and without the search index, alternated ROUNDS times; the median of each. */
export const searchProjectorCost = async (): Promise<SearchProjectorReport> => {
  const withIndex: Cost[] = [];
  const withoutIndex: Cost[] = [];
  const allWith: Cost[] = [];
  const allWithout: Cost[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'watchlog-bench-search-log-'));
  try {
    const logFile = path.join(dir, 'log.db');
    await seedLog(logFile);
    for (let round = 0; round < ROUNDS; round += 1) {
      withoutIndex.push(await projectOnce(false));
      withIndex.push(await projectOnce(true));
      allWithout.push(await projectAll(logFile, false));
      allWith.push(await projectAll(logFile, true));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs: Cost[], key: keyof Cost) =>
    xs.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const of = (xs: Cost[]) => ({ wallUs: median(xs, 'wallUs'), cpuUs: median(xs, 'cpuUs') });
  return {
    events: EVENTS,
    withIndex: of(withIndex),
    withoutIndex: of(withoutIndex),
    projector: { withIndex: of(allWith), withoutIndex: of(allWithout) },
  };
};
