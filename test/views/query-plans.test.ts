import test from 'ava';
import Database from 'better-sqlite3';
import pino from 'pino';
import { erasureJobOf, retentionJobOf } from '../../src/compose/jobs.ts';
import {
  api,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';
import { GROWING } from '../helpers/query-plans.ts';

/** Every query the API serves from the embedded read models, as the running server prepares it,
 *  through SQLite's `EXPLAIN QUERY PLAN` with the parameters it was run with: none may read a
 *  table that grows with the events (audit events, sessions, statistics, orphans, checks,
 *  deliveries, the Merkle tree) from end to end. Tables that grow with configuration (projects,
 *  users, keys, monitors, channels, settings) and the alerts open now (cleared when their window
 *  passes) are small by nature and may be scanned. */

interface Ran {
  sql: string;
  args: unknown[];
  db: Database.Database;
}
const ran = new Map<string, Ran>();
let recording = false;

// Statements are recorded where better-sqlite3 runs them, so every query of every read model is
// seen as the server really runs it, whichever route or helper it comes from.
const probe = new Database(':memory:');
const statementPrototype = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, unknown>;
probe.close();
for (const method of ['all', 'get', 'iterate', 'run'] as const) {
  const original = statementPrototype[method] as (...args: unknown[]) => unknown;
  statementPrototype[method] = function (this: Database.Statement, ...args: unknown[]) {
    if (recording && /^\s*(SELECT|WITH|DELETE|UPDATE)\b/i.test(this.source)) {
      const key = `${this.source}\n${JSON.stringify(args)}`;
      if (!ran.has(key)) ran.set(key, { sql: this.source, args, db: this.database });
    }
    return original.apply(this, args);
  };
}

let server: TestServer;
let token: string;
let projectId: string;

test.before(async () => {
  server = await startTestServer({ checkpoints: true });
  token = await login(server.url);
  const project = await projectWithKey(server.url, token);
  projectId = project.projectId;
  const events = Array.from({ length: 400 }, (_, i) =>
    sampleEvent({
      service_name: ['orders', 'billing', 'search'][i % 3],
      identifier: `user-${i % 17}`,
      method: ['GET', 'POST', 'PUT', 'DELETE'][i % 4],
      status_code: [200, 201, 404, 500][i % 4],
      environment: ['production', 'staging'][i % 2],
      response_time: i % 97,
      path: `/api/orders/${i % 11}`,
      request_id: `req-${i}`,
      ...(i % 5 === 0 ? { session_id: `sess-${i % 3}` } : {}),
      timestamp: new Date(Date.parse('2026-09-01T10:00:00.000Z') + i * 7_000).toISOString(),
    }),
  );
  for (let i = 0; i < events.length; i += 100) {
    const res = await api(server.url, 'POST', '/v1/audit/batch', {
      apiKey: project.apiKey,
      body: events.slice(i, i + 100),
    });
    if (res.status !== 202) throw new Error(`batch: ${res.status}`);
  }
  await eventually(
    async () =>
      (
        await api<{ pagination: { totalItems: number } }>(
          server.url,
          'GET',
          `/v1/audit?project_id=${projectId}&limit=1`,
          { token },
        )
      ).body.pagination.totalItems === 400
        ? true
        : undefined,
    20_000,
  );
});
test.after.always(async () => {
  await server?.stop();
});

const RANGE = 'start_date=2026-09-01T10:05:00Z&end_date=2026-09-01T10:30:00Z';

test.serial(
  'every query the API serves from the read models uses an index on the tables that grow with the events',
  async (t) => {
    const project = `project_id=${projectId}`;
    const urls = [
      '/v1/audit',
      `/v1/audit?${project}`,
      `/v1/audit?${project}&${RANGE}`,
      `/v1/audit?${RANGE}`,
      ...[
        'service_name=orders',
        'method=GET',
        'status_code=404',
        'environment=staging',
        'identifier=user-3',
        'event_type=http',
      ].flatMap((f) => [`/v1/audit?${project}&${f}`, `/v1/audit?${project}&${f}&${RANGE}`]),
      `/v1/audit?${project}&service_name=orders&method=POST&status_code=201&environment=production&identifier=user-4`,
      ...[
        'timestamp',
        'status_code',
        'response_time',
        'path',
        'method',
        'service_name',
        'identifier',
        'environment',
      ].flatMap((sort) => [
        `/v1/audit?${project}&sort_by=${sort}&sort_order=asc`,
        `/v1/audit?${project}&sort_by=${sort}&sort_order=desc&page=3&limit=10`,
      ]),
      `/v1/audit/stats?${project}`,
      `/v1/audit/stats?${project}&${RANGE}`,
      `/v1/audit/stats?${project}&service_name=billing&interval=minute&${RANGE}`,
      `/v1/audit/stats?${project}&environment=staging&interval=day`,
      `/v1/audit/stats?${RANGE}`,
      `/v1/audit/export?${project}&${RANGE}&format=json`,
      `/v1/audit/export?${project}&service_name=orders&format=csv`,
      `/v1/audit/sessions?${project}`,
      `/v1/audit/sessions?${project}&identifier=user-3&${RANGE}`,
      `/v1/audit/sessions?${project}&service_name=search`,
      '/v1/audit/sessions/sess-1',
      `/v1/audit/orphans?${project}`,
      `/v1/audit/orphans?${project}&service_name=orders&${RANGE}`,
      `/v1/audit/anomalies?${project}`,
      `/v1/audit/anomalies?${project}&rule=error_rate&${RANGE}`,
      `/v1/stream?${project}&limit=50`,
      `/v1/stream?${project}&from=100&limit=50`,
    ];
    const detail = await api<{ data: Array<{ id: string }> }>(server.url, 'GET', `/v1/audit?${project}&limit=1`, {
      token,
    });
    urls.push(`/v1/audit/${detail.body.data[0]!.id}`);
    const checkpoint = await eventually(async () => {
      const res = await api<{ size: number }>(server.url, 'GET', `/v1/checkpoints/latest?${project}`, { token });
      return res.status === 200 && res.body.size >= 400 ? res.body : undefined;
    }, 20_000);
    urls.push(
      `/v1/proofs/inclusion?${project}&index=17&size=${checkpoint.size}`,
      `/v1/proofs/consistency?${project}&from=9&to=${checkpoint.size}`,
    );

    recording = true;
    try {
      for (const url of urls) {
        const res = await api(server.url, 'GET', url, { token });
        t.is(res.status, 200, url);
      }
    } finally {
      recording = false;
    }

    const { scans, growingQueries } = plansOf(ran.values());
    t.true(growingQueries >= 20, `queries of the growing tables seen: ${growingQueries}`);
    t.deepEqual(scans, [], 'full scans of a table that grows with the events');
  },
);

test.serial('retention and erasure find and remove rows through indexes too', async (t) => {
  ran.clear();
  recording = true;
  try {
    const asked = await api(server.url, 'POST', `/v1/projects/${projectId}/erasures`, {
      token,
      body: { identifier: 'user-3' },
    });
    t.is(asked.status, 202);
    await erasureJobOf(server.runtime, 60_000, pino({ level: 'silent' })).run();
    const erased = await api(server.url, 'GET', `/v1/projects/${projectId}/erasures/${asked.body.id as string}`, {
      token,
    });
    t.like(erased.body, { status: 'done' });
    t.true(erased.body.erased > 0);
    t.is(
      (await api(server.url, 'PUT', `/v1/projects/${projectId}/retention`, { token, body: { retention_days: 1 } }))
        .status,
      200,
    );
    await retentionJobOf(
      server.runtime,
      60_000,
      pino({ level: 'silent' }),
      () => new Date(Date.now() + 3 * 86_400_000),
    ).run();
    await eventually(
      async () =>
        (await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&limit=1`, { token })).body.pagination
          .totalItems === 0
          ? true
          : undefined,
      20_000,
    );
  } finally {
    recording = false;
  }
  const { scans } = plansOf(ran.values());
  const seen = [...ran.values()].map((r) => r.sql);
  for (const table of ['audit_events', 'derived_sessions', 'stats_minute', 'browser_requests']) {
    t.true(
      seen.some((sql) => new RegExp(`^\\s*DELETE FROM ${table}`).test(sql)),
      `a delete from ${table} was seen`,
    );
  }
  t.deepEqual(scans, [], 'full scans of a table that grows with the events');
});

/** The steps of each statement's plan that read a growing table from end to end, and how many
 *  statements read one at all. */
const plansOf = (statements: Iterable<Ran>) => {
  const scans: string[] = [];
  let growingQueries = 0;
  for (const { sql, args, db } of statements) {
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(args as unknown[])) as Array<{ detail: string }>;
    const tables = plan
      .map((row) => /^(?:SCAN|SEARCH) (\w+)/.exec(row.detail)?.[1])
      .filter((name) => name !== undefined && GROWING.has(name));
    if (tables.length > 0) growingQueries += 1;
    for (const { detail: step } of plan) {
      const scanned = /^SCAN (\w+)(.*)$/.exec(step);
      if (
        scanned &&
        GROWING.has(scanned[1]!) &&
        !/USING (COVERING )?INDEX|USING INTEGER PRIMARY KEY/.test(scanned[2]!)
      ) {
        scans.push(`${step}\n  in: ${sql.replace(/\s+/g, ' ').trim()}`);
      }
    }
  }
  return { scans, growingQueries };
};
