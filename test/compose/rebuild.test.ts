import test from 'ava';
import Database from 'better-sqlite3';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import {
  RebuildRunningError,
  progressLine,
  rebuildEmbeddedReadModels,
  rebuildReadModels,
  type RebuildProgress,
  type RebuildStep,
} from '../../src/compose/rebuild.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { SqliteLeases, openViewsDatabase } from '../../src/views/store/sqlite.ts';
import { newLeaseHolder } from '../../projections/projector.ts';
import { openRuntime } from '../../src/compose/runtime.ts';
import { READ_MODELS } from '../../src/compose/read-models.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer, tempDir } from '../helpers/server.ts';
import { recordCheck } from '../../src/commands/monitors.ts';

const QUERIES = [
  '/v1/audit?limit=100',
  '/v1/audit/sessions?limit=100',
  '/v1/audit/stats?start_date=2026-01-01T00:00:00Z&end_date=2027-06-01T00:00:00Z&interval=day',
  '/v1/audit?limit=7&page=3&sort_by=response_time&sort_order=asc',
  '/v1/audit?method=DELETE&limit=100',
  '/v1/audit?identifier=user-1&sort_by=path',
];

const snapshot = async (url: string, token: string, projectId: string) => {
  const out: Record<string, unknown> = {};
  for (const q of [...QUERIES, `/v1/projects/${projectId}/anomaly-settings`, `/v1/projects/${projectId}/masking`])
    out[q] = (await api(url, 'GET', q, { token })).body;
  out.projects = (await api(url, 'GET', '/v1/projects', { token })).body;
  out.keys = (await api(url, 'GET', `/v1/projects/${projectId}/api-keys`, { token })).body;
  const monitors = (await api(url, 'GET', '/v1/monitors', { token })).body as Array<{ id: string }>;
  out.monitors = monitors;
  for (const m of monitors)
    out[`history ${m.id}`] = (await api(url, 'GET', `/v1/monitors/${m.id}/history`, { token })).body;
  out.users = (await api(url, 'GET', '/v1/users', { token })).body;
  out.secondFactorPolicy = (await api(url, 'GET', '/v1/settings/second-factor', { token })).body;
  // A sink's lag in seconds grows with the clock; the rest of its answer must not change.
  out.sinks = ((await api(url, 'GET', `/v1/projects/${projectId}/sinks`, { token })).body as object[]).map(
    ({ lag_seconds: _, ...sink }: { lag_seconds?: number }) => sink,
  );
  return out;
};

test('a rebuild from the log gives identical query results, even from a deleted read-model file', async (t) => {
  const dataDir = tempDir();
  const first = await startTestServer({ dataDir });
  const token = await login(first.url);
  const { apiKey, projectId } = await projectWithKey(first.url, token, 'a');
  const tuned = await api(first.url, 'PUT', `/v1/projects/${projectId}/anomaly-settings`, {
    token,
    body: { brute_force: { threshold: 4 } },
  });
  t.is(tuned.status, 200);
  const masked = await api(first.url, 'PUT', `/v1/projects/${projectId}/masking`, {
    token,
    body: { keys: ['session_id'], patterns: ['sk_live_[0-9]+'] },
  });
  t.is(masked.status, 200);
  const sink = await api(first.url, 'POST', `/v1/projects/${projectId}/sinks`, {
    token,
    body: { type: 'splunk_hec', url: 'https://splunk.example.com/services/collector/event', token: 'hec' },
  });
  t.is(sink.status, 201);
  const paused = await api(first.url, 'PUT', `/v1/projects/${projectId}/sinks/${sink.body.id}`, {
    token,
    body: { active: false, filter: { service_name: ['orders'] } },
  });
  t.is(paused.status, 200);
  const policy = await api(first.url, 'PUT', '/v1/settings/second-factor', { token, body: { require: 'admins' } });
  t.is(policy.status, 200);
  const b = await projectWithKey(first.url, token, 'b');
  for (let i = 0; i < 120; i += 1) {
    const body = sampleEvent({
      method: ['GET', 'POST', 'DELETE'][i % 3],
      identifier: `user-${i % 4}`,
      response_time: (i * 13) % 50,
      path: `/x/${i % 9}`,
    });
    await api(first.url, 'POST', '/v1/audit', { apiKey: i % 2 ? apiKey : b.apiKey, body });
  }
  // Monitors of every kind with their options, confirmations, a certificate warning and beats.
  const http = await api(first.url, 'POST', '/v1/monitors', {
    token,
    body: {
      project_id: projectId,
      name: 'orders',
      url: 'https://127.0.0.1:9/health',
      headers: { 'X-Key': 'k1' },
      down_after: 2,
      assertions: [{ source: 'json', path: '$.ok', op: 'equals', value: true }],
    },
  });
  const beats = await api(first.url, 'POST', '/v1/monitors', {
    token,
    body: { project_id: projectId, name: 'cron', type: 'heartbeat', interval_seconds: 60 },
  });
  const certificate = {
    valid_from: new Date(Date.now() - 86_400_000).toISOString(),
    valid_to: new Date(Date.now() + 5 * 86_400_000).toISOString(),
    issuer: 'CN=test',
    subject: 'CN=localhost',
    names: ['localhost'],
  };
  const ctx = { actor: 'test', correlationId: 'rebuild', now: () => new Date() };
  for (const [i, ok] of [true, false, false].entries()) {
    const checked_at = new Date(Date.now() + i).toISOString();
    await recordCheck(first.runtime.commands, http.body.id, { checked_at, ok, response_ms: 5 + i, certificate }, ctx);
  }
  await fetch(beats.body.heartbeat_url);
  await fetch(`${beats.body.heartbeat_url}?status=down&msg=oops`);
  // Every projection has caught up with the log before the snapshot.
  const head = await first.runtime.log.headPosition();
  await eventually(async () => {
    const checkpoints = await Promise.all(first.runtime.runners.map((r) => r.checkpoint()));
    return checkpoints.every((c) => c === head) ? true : undefined;
  });
  const STATS = '/v1/audit/stats?start_date=2026-01-01T00:00:00Z&end_date=2027-06-01T00:00:00Z&interval=day';
  const before = await snapshot(first.url, token, projectId);
  t.is((before[STATS] as { total: number }).total, 120);
  t.truthy((before.keys as Array<{ last_used_at: string | null }>)[0]?.last_used_at, 'a key in use');
  t.like((before.monitors as Array<Record<string, unknown>>)[0], { status: 'DOWN', headers: { 'X-Key': '********' } });
  t.like((before.monitors as Array<Record<string, unknown>>)[1], { status: 'DOWN', type: 'heartbeat' });
  await first.stop({ remove: false });

  for (const variant of ['a new generation', 'again, with views.db deleted', "in place (MongoDB's way)"]) {
    if (variant.includes('deleted')) rmSync(path.join(dataDir, 'views.db'), { force: true });
    const progress: RebuildProgress[] = [];
    const steps: RebuildStep[] = [];
    let head: string | null;
    if (variant.startsWith('in place')) {
      const runtime = await openRuntime({ ...first.config });
      ({ head } = await rebuildReadModels(runtime, (p) => progress.push(p)));
      await runtime.close();
    } else {
      const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
      ({ head } = await rebuildEmbeddedReadModels(dataDir, log, (p) => progress.push(p), {
        onStep: (step) => steps.push(step),
        laneLog: { dataDir, eventStoreUrl: undefined, eventStoreNamespace: '', mongoUrl: undefined },
      }));
      await log.close();
      t.deepEqual(steps, ['replay', 'indexes', 'catch-up', 'published']);
      // Every index the schemas declare, made one statement at a time, and the lane's file gone.
      const views = new Database(path.join(dataDir, 'views.db'), { readonly: true });
      const made = views
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        .all()
        .map((r) => r.name)
        .sort();
      views.close();
      const declared = Object.values(READ_MODELS).flatMap((entry) =>
        entry.projection === null
          ? []
          : [
              ...`${entry.sqlite.schema.create}${entry.sqlite.schema.queryIndexes ?? ''}`.matchAll(
                /CREATE (?:UNIQUE )?INDEX IF NOT EXISTS (\w+)/g,
              ),
            ].map((m) => m[1]!),
      );
      t.deepEqual(made, [...new Set(declared)].sort(), variant);
      t.deepEqual(
        readdirSync(dataDir).filter((f) => f.includes('-lane')),
        [],
        variant,
      );
    }
    t.truthy(head);
    // Two lanes (the CLI's way) report in either order.
    t.deepEqual(
      [...new Set(progress.flatMap((p) => p.projections))].sort(),
      [
        'access',
        'anomalies',
        'anomaly-windows',
        'audit-events',
        'channels',
        'deliveries',
        'derived-sessions',
        'factors',
        'incidents',
        'maintenances',
        'masking',
        'monitors',
        'orphans',
        'otlp',
        'retention',
        'sessions',
        'sinks',
        'sso-providers',
        'stats-buckets',
        'status-pages',
        'subscribers',
        'tree',
      ],
      variant,
    );
    t.true(progress.every((p) => p.head === head));
    const again = await startTestServer({ dataDir });
    // The first server's token: a login would add its own system.access event.
    t.deepEqual(await snapshot(again.url, token, projectId), before, variant);
    await again.stop({ remove: variant.startsWith('in place') });
  }
});

test('one rebuild at a time on a data dir', async (t) => {
  const dataDir = tempDir();
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
  t.teardown(() => log.close());
  const state = openViewsDatabase(path.join(dataDir, 'state.db'));
  t.teardown(() => state.close());
  await new SqliteLeases(state).acquire('rebuild', newLeaseHolder(), 60_000);
  await t.throwsAsync(
    rebuildEmbeddedReadModels(dataDir, log, () => undefined),
    { instanceOf: RebuildRunningError },
  );
});

test('progress lines: a bar, the percentage, position of head, rate and time left, and what moved', (t) => {
  const at = (position: string, head: string | null) => ({ projections: ['access', 'stats-buckets'], position, head });
  t.is(
    progressLine(at('250000', '1000000'), 5000),
    'rebuild [#####...............]  25% 250000/1000000 (50000 ev/s, ETA 15 s): access, stats-buckets',
  );
  t.is(
    progressLine(at('1000000', '1000000'), 20_000),
    'rebuild [####################] 100% 1000000/1000000 (50000 ev/s, ETA 0 s): access, stats-buckets',
  );
  t.is(progressLine(at('0', '10'), 0, 4), 'rebuild [....]   0% 0/10 (0 ev/s, ETA 0 s): access, stats-buckets');
});
