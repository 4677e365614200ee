import test, { type ExecutionContext } from 'ava';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { erasureJobOf, retentionJobOf } from '../../src/compose/jobs.ts';
import { READ_MODEL_KEYS } from '../../src/compose/read-models.ts';
import { rebuildEmbeddedReadModels } from '../../src/compose/rebuild.ts';
import { verifyDataDir } from '../../src/cli/verify-data-dir.ts';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { auditStream, projectStream, retentionStream } from '../../src/domain/streams.ts';
import type { RetentionApplied } from '../../src/domain/retention.ts';
import { applyRetention } from '../../src/commands/retention.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { runCli } from '../helpers/process.ts';
import { auditRecords, send } from '../helpers/retention.ts';
import {
  api,
  caughtUp,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
  tempDir,
  type TestServer,
} from '../helpers/server.ts';

/** Retention and erasure on the embedded deployment, end to end: what expires leaves the log
 *  (replaced by tombstones that keep its leaf hash) and every read model, exactly; nothing else
 *  does; the project's tree, its checkpoints and a rebuild agree before and after. */

const DAY = 86_400_000;
/** Statistics over all the traffic, fixed once so that snapshots ask the same questions. */
const RANGE =
  `start_date=${new Date(Date.now() - 30 * DAY).toISOString()}` +
  `&end_date=${new Date(Date.now() + 2 * DAY).toISOString()}`;
const idsOf = (rows: ReadonlyArray<{ id: string }>) => rows.map((r) => r.id).sort();
const SILENT = pino({ level: 'silent' });

/** A day of traffic: http events of three users across two services, some with personal fields,
 *  and browser events whose backend never reported (orphans). */
const traffic = (tag: string, users: readonly string[]) =>
  Array.from({ length: 24 }, (_, i) =>
    sampleEvent({
      identifier: users[i % users.length],
      service_name: i % 2 ? 'orders' : 'billing',
      path: `/${tag}/${i % 5}`,
      method: ['GET', 'POST', 'DELETE'][i % 3],
      status_code: [200, 201, 404, 500][i % 4],
      response_time: 10 + i,
      user_email: `${users[i % users.length]}@example.com`,
      ip: '203.0.113.9',
      request_body: { note: `${tag}-${i}` },
      ...(i % 6 === 0 ? { source: 'browser', request_id: `${tag}-req-${i}` } : {}),
    }),
  );

/** Everything a dashboard reads of a project, as the API answers it. */
const snapshot = async (server: TestServer, token: string, projectId: string) => {
  const range = RANGE;
  const out: Record<string, unknown> = {};
  for (const q of [
    `/v1/audit?project_id=${projectId}&limit=100`,
    `/v1/audit/stats?project_id=${projectId}&${range}&interval=day`,
    `/v1/audit/sessions?project_id=${projectId}&limit=100`,
    `/v1/audit/orphans?project_id=${projectId}&limit=100`,
    `/v1/projects/${projectId}/retention`,
  ])
    out[q] = (await api(server.url, 'GET', q, { token })).body;
  const head = await server.runtime.readModels.tree.head(projectId);
  out.tree = head && { size: head.frontier.size, root: head.root.toString('base64') };
  return out;
};

/** Rebuilds the stopped data dir's read models from its log, starts a server on it again and
 *  checks it answers exactly as before. */
const rebuiltAnswersAlike = async (
  t: ExecutionContext,
  dataDir: string,
  token: string,
  projectId: string,
  before: unknown,
): Promise<TestServer> => {
  const log = new SqliteEventLog(path.join(dataDir, 'log.db'));
  await rebuildEmbeddedReadModels(dataDir, log, () => undefined);
  await log.close();
  const again = await startTestServer({ dataDir, checkpoints: true, env: { WATCHLOG_CHECKPOINT_INTERVAL_MS: '200' } });
  t.deepEqual(
    await snapshot(again, token, projectId),
    before,
    'a rebuild from the log answers as the live read models did',
  );
  return again;
};

const selfCheck = async (dataDir: string) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verifyDataDir(dataDir, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
};

test.serial(
  'retention removes exactly the expired events from the log and every read model; ' +
    'erasure removes personal fields; the tree is unchanged',
  async (t) => {
    const dataDir = tempDir();
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    let clock = Date.now();
    const env = { WATCHLOG_CHECKPOINT_INTERVAL_MS: '200' };
    let server = await startTestServer({ dataDir, now: () => new Date(clock), checkpoints: true, env });
    t.teardown(() => server.stop({ remove: false }));
    const token = await login(server.url);
    const kept = await projectWithKey(server.url, token, 'kept');
    const other = await projectWithKey(server.url, token, 'other');

    // Ten days ago, then now: only the older traffic is past a 3-day retention.
    clock = Date.now() - 10 * DAY;
    const old = await send(server.url, kept.apiKey, traffic('old', ['alice', 'bob']));
    const otherOld = await send(server.url, other.apiKey, traffic('other', ['alice']));
    // A day ago: old enough for browser events to count as orphans, young enough to be kept.
    clock = Date.now() - DAY;
    const fresh = await send(server.url, kept.apiKey, traffic('new', ['alice', 'bob', 'carol']));
    clock = Date.now();

    const set = await api(server.url, 'PUT', `/v1/projects/${kept.projectId}/retention`, {
      token,
      body: { retention_days: 3 },
    });
    t.is(set.status, 200, JSON.stringify(set.body));
    t.like(set.body, { project_id: kept.projectId, retention_days: 3, removed_total: 0, last_applied_at: null });
    const checkpointBefore = await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/checkpoints/latest?project_id=${kept.projectId}`, { token });
      const head = await server.runtime.readModels.tree.head(kept.projectId);
      return res.status === 200 && res.body.size === head?.frontier.size
        ? (res.body as { note: string; size: number; root: string })
        : undefined;
    }, 15_000);

    // The job as the worker runs it; projects without retention are left alone.
    await retentionJobOf(server.runtime, 60_000, SILENT).run();
    await caughtUp(server, READ_MODEL_KEYS, 15_000);

    const records = await auditRecords(server, kept.projectId);
    const byId = new Map(records.map((r) => [r.id, r]));
    t.is(records.length, old.length + fresh.length, 'every record keeps its place in the log');
    t.deepEqual(idsOf(records.filter((r) => r.type === 'AuditEventRecorded')), idsOf(fresh));
    const tombstones = records.filter((r) => r.type === 'RecordRedacted');
    t.is(tombstones.length, old.length);
    for (const r of tombstones) {
      t.deepEqual(
        Object.keys(r.data as object).sort(),
        ['leaf_hash', 'project_id', 'reason'],
        'a retention tombstone keeps nothing of the event',
      );
      t.is((r.data as { reason: string }).reason, 'retention');
    }
    t.true(
      [...byId.values()].every((r) => !JSON.stringify(r.data).includes('old-')),
      'no expired body is left in the log',
    );
    t.is(
      (await auditRecords(server, other.projectId)).filter((r) => r.type === 'AuditEventRecorded').length,
      otherOld.length,
      'another project keeps its events',
    );

    const list = await api(server.url, 'GET', `/v1/audit?project_id=${kept.projectId}&limit=100`, { token });
    t.deepEqual(idsOf(list.body.data), idsOf(fresh));
    const range = RANGE;
    const stats = await api(server.url, 'GET', `/v1/audit/stats?project_id=${kept.projectId}&${range}&interval=day`, {
      token,
    });
    t.is(stats.body.total, fresh.length, 'statistics count only the kept events');
    const sessions = await api(server.url, 'GET', `/v1/audit/sessions?project_id=${kept.projectId}&limit=100`, {
      token,
    });
    t.true(sessions.body.length > 0);
    t.true(
      sessions.body.every((s: { session_start: string }) => Date.parse(s.session_start) > Date.now() - 2 * DAY),
      'no session of the expired traffic is left',
    );
    const orphans = await api(server.url, 'GET', `/v1/audit/orphans?project_id=${kept.projectId}&limit=100`, { token });
    t.deepEqual(idsOf(orphans.body.data), idsOf(fresh.filter((e) => e.browser)));
    t.is(
      (await api(server.url, 'GET', `/v1/audit?project_id=${other.projectId}&limit=100`, { token })).body.pagination
        .totalItems,
      otherOld.length,
    );
    const retention = await api(server.url, 'GET', `/v1/projects/${kept.projectId}/retention`, { token });
    t.like(retention.body, { retention_days: 3, removed_total: old.length });
    t.truthy(retention.body.last_applied_at);

    // A second run finds nothing more and records nothing.
    const head = await server.runtime.log.headPosition();
    await retentionJobOf(server.runtime, 60_000, SILENT).run();
    t.is(await server.runtime.log.headPosition(), head);

    // The stream marks the gaps; the offline verifier accepts them only when told to, by their hashes.
    const stream = await fetch(`${server.url}/v1/stream?project_id=${kept.projectId}&limit=100000`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const lines = (await stream.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { missing?: boolean; reason?: string });
    t.is(lines.filter((l) => l.missing && l.reason === 'retention').length, old.length);
    const files = tempDir();
    t.teardown(() => rmSync(files, { recursive: true, force: true }));
    writeFileSync(
      path.join(files, 'key.json'),
      JSON.stringify((await api(server.url, 'GET', '/v1/checkpoints/key', { token })).body),
    );
    writeFileSync(path.join(files, 'before.txt'), checkpointBefore.note);
    writeFileSync(path.join(files, 'stream.ndjson'), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
    const verify = (extra: string[]) =>
      runCli(
        [
          'verify',
          '--key',
          path.join(files, 'key.json'),
          '--checkpoint',
          path.join(files, 'before.txt'),
          '--stream',
          path.join(files, 'stream.ndjson'),
          ...extra,
        ],
        {},
      );
    const strict = verify([]);
    t.is(await strict.exited, 1, 'without --allow-missing a gap is a failure');
    t.regex(strict.stderr(), /missing/);
    const lenient = verify(['--allow-missing']);
    t.is(await lenient.exited, 0, lenient.stderr());
    t.regex(
      lenient.stdout(),
      new RegExp(`verified size ${checkpointBefore.size} `),
      'the checkpoint signed before retention still verifies',
    );

    // Erasure: bob's events keep what statistics need and lose who he is.
    const bob = fresh.filter((e) => e.identifier === 'bob');
    const bobBefore = (await api(server.url, 'GET', `/v1/audit/${bob[0]!.id}`, { token })).body as Record<
      string,
      unknown
    >;
    const erasures = `/v1/projects/${kept.projectId}/erasures`;
    const asked = await api(server.url, 'POST', erasures, { token, body: { identifier: 'bob' } });
    t.is(asked.status, 202, JSON.stringify(asked.body));
    const bobDigest = createHash('sha256').update('bob').digest('hex');
    t.like(asked.body, {
      project_id: kept.projectId,
      identifier: 'bob',
      identifier_sha256: bobDigest,
      status: 'pending',
      erased: null,
      erased_at: null,
    });
    t.is(asked.headers.get('location'), `${erasures}/${asked.body.id as string}`);
    const again = await api(server.url, 'POST', erasures, { token, body: { identifier: 'bob' } });
    t.is(again.body.id, asked.body.id, 'asking again while the request is pending answers that request');
    t.is(
      (await api(server.url, 'GET', `/v1/audit?project_id=${kept.projectId}&identifier=bob`, { token })).body.pagination
        .totalItems,
      bob.length,
      'nothing is erased before the job runs',
    );
    await erasureJobOf(server.runtime, 60_000, SILENT, () => new Date(clock)).run();
    const done = await api(server.url, 'GET', `${erasures}/${asked.body.id as string}`, { token });
    t.like(done.body, { id: asked.body.id, status: 'done', erased: bob.length, identifier_sha256: bobDigest });
    t.false('identifier' in done.body, 'the status resource names the identifier by its digest only');
    const listed = await api(server.url, 'GET', erasures, { token });
    t.deepEqual(
      listed.body.data.map((e: { id: string }) => e.id),
      [asked.body.id],
    );
    t.is(
      (await api(server.url, 'GET', `/v1/audit?project_id=${kept.projectId}&identifier=bob`, { token })).body.pagination
        .totalItems,
      0,
    );
    const one = await api(server.url, 'GET', `/v1/audit/${bob[0]!.id}`, { token });
    t.is(one.body.identifier, '[erased]');
    for (const field of ['user_email', 'ip', 'request_body']) t.false(field in one.body, `${field} is erased`);
    const { identifier: _, user_email: __, ip: ___, request_body: ____, ...rest } = bobBefore;
    t.deepEqual(
      { ...one.body, identifier: undefined },
      { ...rest, identifier: undefined },
      'what is not personal is kept as it was',
    );
    t.is(
      (await api(server.url, 'GET', `/v1/audit/sessions?project_id=${kept.projectId}&identifier=bob`, { token })).body
        .length,
      0,
      'bob has no session left',
    );
    t.is(
      (await api(server.url, 'GET', `/v1/audit/stats?project_id=${kept.projectId}&${range}&interval=day`, { token }))
        .body.total,
      fresh.length,
      'erased events still count',
    );
    const alice = await api(server.url, 'GET', `/v1/audit?project_id=${kept.projectId}&identifier=alice`, { token });
    t.is(
      alice.body.pagination.totalItems,
      fresh.filter((e) => e.identifier === 'alice').length,
      'nobody else is touched',
    );
    const bobRecords = (await auditRecords(server, kept.projectId)).filter((r) => bob.some((e) => e.id === r.id));
    t.true(bobRecords.every((r) => r.type === 'RecordRedacted' && (r.data as { reason: string }).reason === 'erasure'));
    t.false(
      bobRecords.some((r) => JSON.stringify(r.data).includes('bob')),
      'the log keeps nothing of bob in his events',
    );
    // Recorded in the built-in project, naming bob by a digest only.
    const recorded = await eventually(async () => {
      const res = await api(
        server.url,
        'GET',
        `/v1/audit?project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access&limit=100`,
        { token },
      );
      const rows = await Promise.all(
        res.body.data.map((r: { id: string }) => api(server.url, 'GET', `/v1/audit/${r.id}`, { token })),
      );
      const actions = rows.map((r) => r.body);
      const requested = actions.find((r) => r.request_body?.action === 'erasure.requested');
      const erasedRow = actions.find((r) => r.request_body?.action === 'identifier.erased');
      return requested && erasedRow ? { requested, erasedRow } : undefined;
    });
    t.like(recorded.requested.request_body, { erasure_id: asked.body.id, identifier_sha256: bobDigest });
    t.not(
      recorded.requested.identifier,
      recorded.erasedRow.identifier,
      "the request is the admin's, the erasure the job's",
    );
    t.like(recorded.erasedRow.request_body, {
      erasure_id: asked.body.id,
      identifier_sha256: bobDigest,
      erased: bob.length,
    });
    t.false(JSON.stringify(recorded).includes('"bob"'));

    await caughtUp(server, READ_MODEL_KEYS, 15_000);
    const before = await snapshot(server, token, kept.projectId);
    const self = await selfCheck(dataDir);
    t.is(self.code, 0, self.err);
    t.regex(
      self.out,
      new RegExp(
        `project ${kept.projectId}: verified \\d+ leaves .*` +
          `\\(${old.length + bob.length} removed by retention or erasure`,
      ),
    );
    await server.stop({ remove: false });

    server = await rebuiltAnswersAlike(t, dataDir, token, kept.projectId, before);
    await server.stop({ remove: false });
  },
);

test.serial(
  'a long removal goes a page at a time, each page exact; ' +
    'a record deleted outright, or a tombstone with another leaf hash, fails the self-check',
  async (t) => {
    const dataDir = tempDir();
    t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
    let clock = Date.now() - 10 * DAY;
    const server = await startTestServer({
      dataDir,
      now: () => new Date(clock),
      checkpoints: true,
      env: { WATCHLOG_CHECKPOINT_INTERVAL_MS: '200' },
    });
    let token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    await send(server.url, apiKey, traffic('old', ['alice']).slice(0, 6));
    clock = Date.now();
    // A sign-in's session ends on the service clock, which has just moved ten days on.
    token = await login(server.url);
    await send(server.url, apiKey, traffic('new', ['alice']).slice(0, 6));
    const deps = {
      log: server.runtime.log,
      pageSize: 4,
      redactable: server.runtime.readModels.auditEvents.redactable.bind(server.runtime.readModels.auditEvents),
      caughtUp: async (position: string) => {
        await server.runtime.caughtUp(['auditEvents'], position);
      },
    };
    t.is(
      await applyRetention(deps, projectId, 1, { actor: 'test', correlationId: 'c', now: () => new Date(clock) }),
      6,
    );
    await caughtUp(server, READ_MODEL_KEYS, 15_000);
    const pages = (await server.runtime.log.readStream(retentionStream(projectId))).map(
      (r) => r.data as RetentionApplied,
    );
    t.deepEqual(
      pages.map((p) => [p.removed, p.until !== undefined]),
      [
        [4, true],
        [2, false],
      ],
    );
    t.false(
      (await server.runtime.log.readStream(projectStream(projectId))).some((r) => r.type === 'RetentionApplied'),
      'the project stream, read by every project command, does not grow by pages',
    );
    t.is((await api(server.url, 'GET', `/v1/audit?project_id=${projectId}`, { token })).body.pagination.totalItems, 6);
    t.is((await api(server.url, 'GET', `/v1/projects/${projectId}/retention`, { token })).body.removed_total, 6);
    await eventually(async () => {
      const res = await api(server.url, 'GET', `/v1/checkpoints/latest?project_id=${projectId}`, { token });
      return res.status === 200 &&
        res.body.size === (await server.runtime.readModels.tree.head(projectId))?.frontier.size
        ? true
        : undefined;
    }, 15_000);
    await server.stop({ remove: false });
    const clean = await selfCheck(dataDir);
    t.is(clean.code, 0, clean.err);

    const { default: Database } = await import('better-sqlite3');
    const db = new Database(path.join(dataDir, 'log.db'));
    const tombstone = db
      .prepare<[string], { position: number; data: string }>(
        "SELECT position, data FROM events WHERE stream = ? AND type = 'RecordRedacted' ORDER BY position LIMIT 1",
      )
      .get(auditStream(projectId))!;
    const forged = { ...(JSON.parse(tombstone.data) as object), leaf_hash: Buffer.alloc(32, 7).toString('base64') };
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(forged), tombstone.position);
    db.close();
    const wrongHash = await selfCheck(dataDir);
    t.is(wrongHash.code, 1);
    t.regex(wrongHash.err, /FAILED/);

    const again = new Database(path.join(dataDir, 'log.db'));
    again.prepare('UPDATE events SET data = ? WHERE position = ?').run(tombstone.data, tombstone.position);
    again.prepare('DELETE FROM events WHERE position = ?').run(tombstone.position);
    again.close();
    const deleted = await selfCheck(dataDir);
    t.is(deleted.code, 1);
    t.regex(deleted.err, /FAILED \(missing\).*neither the record nor a retention or erasure tombstone/);
  },
);
