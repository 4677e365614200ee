import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { StoredAuditEvent } from '../../src/domain/audit-event.ts';
import { bucketOf } from '../../src/domain/stats.ts';
import type { RecordedEvent } from '../../src/log/event-log.ts';
import { SORT_FIELDS, type AuditListItem, type AuditListQuery } from '../../src/views/audit-events/port.ts';
import type { OrphansWriter } from '../../src/views/orphans/port.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import type { Scope } from '../../src/domain/scope.ts';
import type { WindowContribution } from '../../src/views/anomaly-windows/port.ts';
import { WINDOW_RETENTION_MS } from '../../src/domain/anomaly.ts';
import { createHash } from 'node:crypto';
import { EMPTY_FRONTIER, appendLeaf, frontierRoot, subtreeRoot } from '../../src/domain/merkle.ts';
import type { TreeWriter } from '../../src/views/tree/port.ts';
import { addEvent, sessionTimes, type SessionSpan } from '../../src/domain/sessions.ts';
import type { QueryPlan } from '../helpers/query-plans.ts';

/** What an adapter's test opens for each test of the contract: empty read models, and what only
 *  some adapters can tell or do. */
export interface OpenedReadModels {
  readModels: ReadModels;
  cleanup: () => Promise<void>;
  /** The plan of the audit-events list's query for `q` (not run). */
  auditListPlan?: (q: AuditListQuery, scope: Scope) => Promise<QueryPlan>;
  /** Moves a projection's checkpoint back (null: before the first event) and leaves what it
   *  wrote: the state a crash between a batch's writes and its checkpoint leaves. Absent where
   *  that state cannot happen (SQLite commits both in one transaction). */
  rewindCheckpoint?: (projection: string, position: string | null) => Promise<void>;
}

export interface ReadModelsContractOptions {
  /** Audit list shapes (by their names in the plan test) that this adapter's indexes do not
   *  serve yet: their plans must still sort in memory, so that serving them shows there. */
  auditShapesSortedInMemory?: readonly string[];
}

/** The read-model contract (audit events, access), for every read-store adapter. */
export const readModelsContract = (
  adapter: string,
  open: () => Promise<OpenedReadModels>,
  options: ReadModelsContractOptions = {},
): void => {
  const withModels = (
    title: string,
    body: (t: import('ava').ExecutionContext, m: ReadModels, opened: OpenedReadModels) => Promise<void>,
  ) =>
    test(`${adapter} read models: ${title}`, async (t) => {
      const opened = await open();
      try {
        await body(t, opened.readModels, opened);
      } finally {
        await opened.cleanup();
      }
    });

  let position = 0;
  const recorded = (): RecordedEvent => ({
    id: randomUUID(),
    type: 'AuditEventRecorded',
    stream: 's',
    revision: 0,
    position: String((position += 1)),
    data: {},
    metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
  });
  const auditEvent = (i: number, projectId: string): StoredAuditEvent => ({
    id: randomUUID(),
    project_id: projectId,
    event_type: i % 5 === 0 ? 'system.alert' : 'http',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    path: `/p/${i % 7}`,
    method: ['GET', 'POST', 'DELETE'][i % 3]!,
    identifier: `user-${i % 4}`,
    service_name: `svc-${i % 2}`,
    environment: 'production',
    source: 'backend',
    ...(i % 6 === 0 ? {} : { status_code: [200, 404, 500][i % 3]!, response_time: (i * 17) % 90 }),
    request_body: { i, nested: { $key: 'kept', 'dotted.key': true } },
  });
  const query = (q: Partial<AuditListQuery> = {}): AuditListQuery => ({
    page: 1,
    limit: 100,
    sort_by: 'timestamp',
    sort_order: 'desc',
    ...q,
  });

  /** 30 events of project A and 5 of project B, projected in two batches. */
  const seed = async (m: ReadModels) => {
    const a = randomUUID();
    const b = randomUUID();
    const events = [
      ...Array.from({ length: 30 }, (_, i) => auditEvent(i, a)),
      ...Array.from({ length: 5 }, (_, i) => auditEvent(100 + i, b)),
    ];
    const batches = [events.slice(0, 20), events.slice(20)];
    let last = '';
    for (const batch of batches) {
      const withPositions = batch.map((e) => ({ e, r: recorded() }));
      last = withPositions.at(-1)!.r.position;
      await m.stores.auditEvents.commit(
        withPositions.map((x) => x.r),
        (r, w) => {
          const found = withPositions.find((x) => x.r === r)!;
          w.record(found.e, r.position);
        },
      );
    }
    return { a, b, events, last };
  };

  withModels('audit events: commit moves the checkpoint with the rows; a replayed batch adds nothing', async (t, m) => {
    t.is(await m.stores.auditEvents.checkpoint(), null);
    const { a, events, last } = await seed(m);
    t.is(await m.stores.auditEvents.checkpoint(), last);
    const e = events[0]!;
    const r = recorded();
    await m.stores.auditEvents.commit([r], (_r, w) => w.record(e, r.position));
    await m.stores.auditEvents.commit([r], (_r, w) => w.record(e, r.position));
    t.is((await m.auditEvents.list(query({ project_id: a }), { all: true })).pagination.totalItems, 30);
  });

  withModels('audit events: filters, sorts, pages and scopes', async (t, m) => {
    const { a, b, events } = await seed(m);
    const all = await m.auditEvents.list(query(), { all: true });
    t.is(all.pagination.totalItems, 35);
    t.deepEqual(
      all.data.map((e) => e.timestamp),
      [...all.data.map((e) => e.timestamp)].sort().reverse(),
    );
    const ofA = events.filter((e) => e.project_id === a);
    const expect = (pred: (e: StoredAuditEvent) => boolean) =>
      ofA
        .filter(pred)
        .map((e) => e.id)
        .sort();
    const ids = async (q: Partial<AuditListQuery>) =>
      (await m.auditEvents.list(query({ project_id: a, ...q }), { all: true })).data.map((e) => e.id).sort();
    t.deepEqual(
      await ids({ method: 'DELETE' }),
      expect((e) => e.method === 'DELETE'),
    );
    t.deepEqual(
      await ids({ status_code: 404 }),
      expect((e) => e.status_code === 404),
    );
    t.deepEqual(
      await ids({ service_name: 'svc-1', identifier: 'user-1' }),
      expect((e) => e.service_name === 'svc-1' && e.identifier === 'user-1'),
    );
    t.deepEqual(
      await ids({ event_type: 'system.alert' }),
      expect((e) => e.event_type === 'system.alert'),
    );
    t.deepEqual(
      await ids({ start_date: ofA[10]!.timestamp, end_date: ofA[12]!.timestamp }),
      [ofA[10]!, ofA[11]!, ofA[12]!].map((e) => e.id).sort(),
    );
    const byRt = await m.auditEvents.list(query({ project_id: a, sort_by: 'response_time', sort_order: 'asc' }), {
      all: true,
    });
    const rts = byRt.data.map((e) => e.response_time ?? -1);
    t.deepEqual(
      rts,
      [...rts].sort((x, y) => x - y),
    );
    const page2 = await m.auditEvents.list(query({ project_id: a, limit: 7, page: 2 }), { all: true });
    t.deepEqual(page2.pagination, { page: 2, limit: 7, totalItems: 30, totalPage: 5 });
    t.deepEqual(
      page2.data.map((e) => e.id),
      all.data
        .filter((e) => e.project_id === a)
        .slice(7, 14)
        .map((e) => e.id),
    );
    t.is((await m.auditEvents.list(query(), { all: false, projectIds: [b] })).pagination.totalItems, 5);
    t.is(
      (await m.auditEvents.list(query({ project_id: a }), { all: false, projectIds: [b] })).pagination.totalItems,
      0,
    );
    t.is((await m.auditEvents.list(query(), { all: false, projectIds: [] })).pagination.totalItems, 0);
  });

  withModels(
    'audit events: an index serves each common list shape in the order asked, without sorting in memory',
    async (t, m, opened) => {
      const { auditListPlan } = opened;
      if (!auditListPlan) {
        t.pass(`${adapter} does not tell its query plans`);
        return;
      }
      // Realistic proportions matter to a planner that races its candidate plans on the data:
      // every alert is of one rule (its path), and each shape matches more than the page holds.
      const [a, b] = [randomUUID(), randomUUID()];
      const events = [
        ...Array.from({ length: 120 }, (_, i) => auditEvent(i, a)),
        ...Array.from({ length: 40 }, (_, i) => auditEvent(i, b)),
      ].map((e) => (e.event_type === 'system.alert' ? { ...e, path: 'brute_force' } : e));
      const batch = events.map(() => recorded());
      await m.stores.auditEvents.commit(batch, (r, w) => w.record(events[batch.indexOf(r)]!, r.position));
      const everything: Scope = { all: true };
      const filters: Array<[string, Partial<AuditListQuery>]> = [
        ['service_name', { service_name: 'svc-1' }],
        ['method', { method: 'DELETE' }],
        ['status_code', { status_code: 404 }],
        ['environment', { environment: 'production' }],
        ['identifier', { identifier: 'user-2' }],
        ['event_type', { event_type: 'http' }],
      ];
      const shapes: Array<[string, Partial<AuditListQuery>, Scope]> = [
        ['a project, newest first', { project_id: a }, everything],
        ['a project, oldest first', { project_id: a, sort_order: 'asc' }, everything],
        [
          'a project in a time range, newest first',
          { project_id: a, start_date: events[10]!.timestamp, end_date: events[90]!.timestamp },
          everything,
        ],
        ['every project, newest first', {}, everything],
        ['the projects of a member, newest first', {}, { all: false, projectIds: [a, b] }],
        ...filters.flatMap(
          ([field, filter]): Array<[string, Partial<AuditListQuery>, Scope]> => [
            [`a project and a ${field}, newest first`, { project_id: a, ...filter }, everything],
            [`a project and a ${field}, oldest first`, { project_id: a, ...filter, sort_order: 'asc' }, everything],
          ],
        ),
        [
          'a project, a service and an identifier, newest first',
          { project_id: a, service_name: 'svc-1', identifier: 'user-1' },
          everything,
        ],
        [
          "a project's alerts of a rule, newest first",
          { project_id: a, event_type: 'system.alert', path: 'brute_force' },
          everything,
        ],
        ...SORT_FIELDS.filter((field) => field !== 'timestamp').flatMap(
          (field): Array<[string, Partial<AuditListQuery>, Scope]> => [
            [`a project by ${field}, ascending`, { project_id: a, sort_by: field, sort_order: 'asc' }, everything],
            [`a project by ${field}, descending`, { project_id: a, sort_by: field, sort_order: 'desc' }, everything],
          ],
        ),
      ];
      const sortedInMemory = new Set(options.auditShapesSortedInMemory);
      for (const name of sortedInMemory)
        t.true(
          shapes.some(([shape]) => shape === name),
          `no shape is named ${name}`,
        );
      for (const [name, q, scope] of shapes) {
        const plan = await auditListPlan(query({ ...q, limit: 5 }), scope);
        t.true(plan.readsIndex, `${name}: ${plan.text}`);
        t.is(plan.sortsInMemory, sortedInMemory.has(name), `${name}: ${plan.text}`);
      }
    },
  );

  withModels(
    'audit events: a batch that fails part-way leaves nothing behind, and the next batch of its project is found by every query',
    async (t, m) => {
      const project = randomUUID();
      const [lost, kept] = [auditEvent(1, project), auditEvent(2, project)];
      await t.throwsAsync(
        m.stores.auditEvents.commit([recorded()], (r, w) => {
          w.record(lost, r.position);
          throw new Error('the process died mid-batch');
        }),
        { message: 'the process died mid-batch' },
      );
      t.is(await m.auditEvents.count({ project_id: project }, { all: true }), 0);
      await m.stores.auditEvents.commit([recorded()], (r, w) => w.record(kept, r.position));
      t.deepEqual(
        (await m.auditEvents.list(query({ project_id: project }), { all: true })).data.map((e) => e.id),
        [kept.id],
      );
      t.deepEqual(
        (
          await m.auditEvents.list(query({ identifier: kept.identifier }), { all: false, projectIds: [project] })
        ).data.map((e) => e.project_id),
        [project],
      );
      t.deepEqual(await m.auditEvents.get(kept.id, { all: false, projectIds: [project] }), kept);
    },
  );

  withModels('audit events: detail returns the stored event within scope only', async (t, m) => {
    const { a, b, events } = await seed(m);
    const e = events[1]!;
    t.deepEqual(await m.auditEvents.get(e.id, { all: true }), e);
    t.deepEqual(await m.auditEvents.get(e.id, { all: false, projectIds: [a] }), e);
    t.is(await m.auditEvents.get(e.id, { all: false, projectIds: [b] }), null);
    t.is(await m.auditEvents.get(randomUUID(), { all: true }), null);
  });

  withModels('audit events: count and export, newest first, limited, within scope', async (t, m) => {
    const { a, b, events } = await seed(m);
    t.is(await m.auditEvents.count({ project_id: a }, { all: true }), 30);
    t.is(
      await m.auditEvents.count({ method: 'GET' }, { all: false, projectIds: [b] }),
      events.filter((e) => e.project_id === b && e.method === 'GET').length,
    );
    t.is(await m.auditEvents.count({}, { all: false, projectIds: [] }), 0);
    const exported: StoredAuditEvent[] = [];
    for await (const batch of m.auditEvents.exportBatches({ project_id: a }, { all: true }, 25))
      exported.push(...batch);
    const newestFirst = events.filter((e) => e.project_id === a).sort((x, y) => y.timestamp.localeCompare(x.timestamp));
    t.deepEqual(exported, newestFirst.slice(0, 25));
    const scoped: StoredAuditEvent[] = [];
    for await (const batch of m.auditEvents.exportBatches({}, { all: false, projectIds: [b] }, 1000))
      scoped.push(...batch);
    t.deepEqual(
      scoped.map((e) => e.project_id),
      [b, b, b, b, b],
    );
    const none: StoredAuditEvent[] = [];
    for await (const batch of m.auditEvents.exportBatches({}, { all: false, projectIds: [] }, 10)) none.push(...batch);
    t.deepEqual(none, []);
  });

  withModels(
    'audit events: stats contributions of the http events within exact bounds, filters and scope',
    async (t, m) => {
      const { a, b, events } = await seed(m);
      const ts = (e: StoredAuditEvent) => Date.parse(e.timestamp);
      const ofA = events.filter((e) => e.project_id === a);
      const byMinute = (x: { minute: number; service_name: string }, y: { minute: number; service_name: string }) =>
        x.minute - y.minute;
      const expected = (from: number, to: number, pred: (e: StoredAuditEvent) => boolean = () => true) =>
        ofA
          .filter((e) => e.event_type === 'http' && ts(e) >= from && ts(e) <= to && pred(e))
          .map((e) => bucketOf(e))
          .sort(byMinute);
      const got = async (
        from: number,
        to: number,
        extra: { service_name?: string; environment?: string } = {},
        scope: Scope = { all: true },
      ) => (await m.auditEvents.statsContributions({ project_id: a, from, to, ...extra }, scope)).sort(byMinute);
      // Both bounds inclusive, to the millisecond; alerts (i % 5 === 0) never count.
      const [from, to] = [ts(ofA[9]!), ts(ofA[16]!)];
      t.is((await got(from, to)).length, 6);
      t.deepEqual(await got(from, to), expected(from, to));
      t.deepEqual(await got(from + 1, to - 1), expected(from + 1, to - 1));
      t.deepEqual(
        await got(from, to, { service_name: 'svc-1' }),
        expected(from, to, (e) => e.service_name === 'svc-1'),
      );
      t.deepEqual(await got(from, to, { environment: 'staging' }), []);
      t.deepEqual(await got(from, to, {}, { all: false, projectIds: [b] }), [], 'a project outside the scope');
      t.deepEqual(await got(from, to, {}, { all: false, projectIds: [a] }), expected(from, to));
      const everywhere = await m.auditEvents.statsContributions(
        { from: ts(events[0]!), to: ts(events[events.length - 1]!) },
        { all: false, projectIds: [a, b] },
      );
      t.is(everywhere.length, events.filter((e) => e.event_type === 'http').length);
    },
  );

  withModels('audit events: explicit sessions, oldest first, within scope, with total and last time', async (t, m) => {
    const a = randomUUID();
    const b = randomUUID();
    const events = [0, 3, 1, 2].map((i) => ({ ...auditEvent(i, i === 2 ? b : a), session_id: 's-1' }));
    const batch = events.map(() => recorded());
    await m.stores.auditEvents.commit(batch, (r, w) => w.record(events[batch.indexOf(r)]!, r.position));
    const all = await m.auditEvents.sessionEvents('s-1', { all: true }, 2);
    t.is(all.total, 4);
    t.is(all.lastTimestamp, events[1]!.timestamp);
    t.deepEqual(
      all.events.map((e) => e.id),
      [events[0]!.id, events[2]!.id],
    );
    t.like(all.events[0], {
      method: events[0]!.method,
      path: events[0]!.path,
      identifier: events[0]!.identifier,
      service_name: events[0]!.service_name,
    });
    const onlyA = await m.auditEvents.sessionEvents('s-1', { all: false, projectIds: [a] }, 10);
    t.is(onlyA.total, 3);
    t.false(onlyA.events.some((e) => e.id === events[3]!.id));
    t.deepEqual(await m.auditEvents.sessionEvents('none', { all: true }, 10), {
      total: 0,
      lastTimestamp: null,
      events: [],
    });
    t.is((await m.auditEvents.sessionEvents('s-1', { all: false, projectIds: [] }, 10)).total, 0);
  });

  withModels(
    'derived sessions: out-of-order events land in the right session; replays change nothing; list filters',
    async (t, m) => {
      const MIN = 60_000;
      const p = randomUUID();
      const key = (identifier: string, service_name = 'web') => ({ project_id: p, identifier, service_name });
      const at = (minute: number) => Date.UTC(2026, 2, 1, 8, 0) + minute * MIN;
      // ann: 0, 30 (exactly 30:00 later: same session), then 61 (31 min later: new), then a late 45 that bridges both.
      const plan: Array<[string, number]> = [
        ['ann', 0],
        ['ann', 30],
        ['ann', 61],
        ['bob', 5],
        ['ann', 45],
        ['bob', 36],
      ];
      const batch = plan.map(() => recorded());
      await m.stores.derivedSessions.commit(batch, (r, w) => {
        const [who, minute] = plan[batch.indexOf(r)]!;
        w.event(key(who), at(minute), r.position);
      });
      await m.stores.derivedSessions.commit(batch, (r, w) => {
        const [who, minute] = plan[batch.indexOf(r)]!;
        w.event(key(who), at(minute), r.position);
      });
      const scope = { all: false as const, projectIds: [p] };
      const all = await m.derivedSessions.list({ page: 1, limit: 10 }, scope);
      t.deepEqual(
        all.data.map((s) => [s.identifier, s.session_start, s.session_end, s.event_count, s.duration_seconds]),
        [
          ['bob', new Date(at(36)).toISOString(), new Date(at(36)).toISOString(), 1, 0],
          ['bob', new Date(at(5)).toISOString(), new Date(at(5)).toISOString(), 1, 0],
          ['ann', new Date(at(0)).toISOString(), new Date(at(61)).toISOString(), 4, 61 * 60],
        ],
      );
      t.deepEqual(all.pagination, { page: 1, limit: 10, totalItems: 3, totalPage: 1 });
      t.is((await m.derivedSessions.list({ page: 1, limit: 10, identifier: 'bob' }, scope)).pagination.totalItems, 2);
      t.is((await m.derivedSessions.list({ page: 1, limit: 10, service_name: 'api' }, scope)).pagination.totalItems, 0);
      const fromMinute5 = await m.derivedSessions.list(
        { page: 1, limit: 10, start_date: new Date(at(5)).toISOString() },
        scope,
      );
      t.deepEqual(
        fromMinute5.data.map((s) => s.identifier),
        ['bob', 'bob'],
      );
      t.deepEqual(
        (await m.derivedSessions.list({ page: 2, limit: 2 }, scope)).data.map((s) => s.identifier),
        ['ann'],
      );
      t.is(
        (await m.derivedSessions.list({ page: 1, limit: 10 }, { all: false, projectIds: [randomUUID()] })).pagination
          .totalItems,
        0,
      );
    },
  );

  /** A key's sessions as the domain makes them of its event times, newest first, as listed. */
  const sessionsOf = (times: readonly number[]) =>
    times
      .reduce<SessionSpan[]>((spans, ts) => addEvent(spans, ts), [])
      .reverse()
      .map((span): [string, string, number] => {
        const { session_start, session_end, event_count } = sessionTimes(span);
        return [session_start, session_end, event_count];
      });
  /** Every session of `identifier`, newest first, read page by page. */
  const listedSessions = async (m: ReadModels, projectId: string, identifier: string) => {
    const listed: Array<[string, string, number]> = [];
    for (let page = 1; ; page += 1) {
      const { data, pagination } = await m.derivedSessions.list(
        { project_id: projectId, identifier, page, limit: 100 },
        { all: true },
      );
      listed.push(...data.map((s): [string, string, number] => [s.session_start, s.session_end, s.event_count]));
      if (page >= pagination.totalPage) return { listed, total: pagination.totalItems };
    }
  };
  type Planned = { r: RecordedEvent; identifier: string; ts: number };
  const planSessions = (events: ReadonlyArray<[string, number]>): Planned[] =>
    events.map(([identifier, ts]) => ({ r: recorded(), identifier, ts }));
  const commitSessions = (m: ReadModels, projectId: string, batch: readonly Planned[]) => {
    const byRecord = new Map(batch.map((x) => [x.r, x]));
    return m.stores.derivedSessions.commit(
      batch.map((x) => x.r),
      (r, w) => {
        const { identifier, ts } = byRecord.get(r)!;
        w.event({ project_id: projectId, identifier, service_name: 'web' }, ts, r.position);
      },
    );
  };
  const inBatches = <T>(items: readonly T[], size: number): T[][] =>
    Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

  withModels(
    'derived sessions: 500 sessions of one identifier, late events deep in its history; replays, also after a crash before the checkpoint, change nothing',
    async (t, m, opened) => {
      const MIN = 60_000;
      const p = randomUUID();
      const t0 = Date.UTC(2026, 3, 1);
      // A session every 40 minutes, every third with a second event 5 minutes in.
      const inOrder = Array.from({ length: 500 }, (_, i) => [
        t0 + i * 40 * MIN,
        ...(i % 3 === 0 ? [t0 + (i * 40 + 5) * MIN] : []),
      ]).flat();
      // Joining sessions 100 and 101, and 250 and 251; lengthening 400; a new first session, and
      // one more event 20 minutes before the old first.
      const late = [
        t0 + (100 * 40 + 20) * MIN,
        t0 + (250 * 40 + 25) * MIN,
        t0 + (400 * 40 + 5) * MIN,
        t0 - 61 * MIN,
        t0 - 20 * MIN,
      ];
      const batches = inBatches(planSessions(inOrder.map((ts) => ['ann', ts])), 100);
      const lateBatch = planSessions([
        ...late.map((ts): [string, number] => ['ann', ts]),
        ['bob', t0],
        ['bob', t0 + 31 * MIN],
      ]);
      for (const batch of batches) await commitSessions(m, p, batch);
      await commitSessions(m, p, lateBatch);
      const expected = { listed: sessionsOf([...inOrder, ...late]), total: 499 };
      t.is(expected.listed.length, 499);
      t.deepEqual(await listedSessions(m, p, 'ann'), expected);
      t.deepEqual(await listedSessions(m, p, 'bob'), { listed: sessionsOf([t0, t0 + 31 * MIN]), total: 2 });

      await commitSessions(m, p, lateBatch);
      t.deepEqual(await listedSessions(m, p, 'ann'), expected, 'a batch at or before the checkpoint');
      if (opened.rewindCheckpoint) {
        const name = m.stores.derivedSessions.name;
        await opened.rewindCheckpoint(name, batches.at(-1)!.at(-1)!.r.position);
        await commitSessions(m, p, lateBatch);
        t.deepEqual(
          await listedSessions(m, p, 'ann'),
          expected,
          'the last batch again after a crash before its checkpoint',
        );
        await opened.rewindCheckpoint(name, batches[1]!.at(-1)!.r.position);
        for (const batch of [...batches.slice(2), lateBatch]) await commitSessions(m, p, batch);
        await opened.rewindCheckpoint(name, null);
        await commitSessions(m, p, [...batches.flat(), ...lateBatch]);
        t.deepEqual(await listedSessions(m, p, 'ann'), expected, 'several batches, then everything, again');
        t.deepEqual(await listedSessions(m, p, 'bob'), { listed: sessionsOf([t0, t0 + 31 * MIN]), total: 2 });
      }
    },
  );

  withModels(
    'derived sessions: events in any order, cut into batches anywhere, give the sessions of their sorted times',
    async (t, m, opened) => {
      const MIN = 60_000;
      const p = randomUUID();
      const t0 = Date.UTC(2026, 4, 1);
      // Gaps under, at and over 30 minutes, and repeated times.
      const gaps = [5, 12, 31, 29, 45, 30, 1, 0, 61, 3];
      const times = Array.from({ length: 200 }, (_, i) => i).reduce<number[]>(
        (acc, i) => [...acc, (acc.at(-1) ?? t0) + gaps[i % gaps.length]! * MIN],
        [],
      );
      const scrambled = times.map((_, k) => times[(k * 73) % times.length]!);
      const plan = planSessions([
        ...scrambled.map((ts): [string, number] => ['cat', ts]),
        ...[...times].reverse().map((ts): [string, number] => ['dan', ts]),
      ]);
      const batches = inBatches(plan, 37);
      for (const batch of batches) await commitSessions(m, p, batch);
      const expected = sessionsOf(times);
      t.true(expected.length > 20 && expected.some(([, , count]) => count > 3), 'sessions of one event and of many');
      t.deepEqual(await listedSessions(m, p, 'cat'), { listed: expected, total: expected.length });
      t.deepEqual(await listedSessions(m, p, 'dan'), { listed: expected, total: expected.length });
      if (opened.rewindCheckpoint) {
        await opened.rewindCheckpoint(m.stores.derivedSessions.name, batches[2]!.at(-1)!.r.position);
        for (const batch of inBatches(plan.slice(3 * 37), 50)) await commitSessions(m, p, batch);
        t.deepEqual(
          await listedSessions(m, p, 'cat'),
          { listed: expected, total: expected.length },
          'replayed after a crash, cut otherwise',
        );
        t.deepEqual(await listedSessions(m, p, 'dan'), { listed: expected, total: expected.length });
      }
    },
  );

  withModels(
    'stats buckets: contributions add up per minute; replays and overlapping replays count once',
    async (t, m) => {
      const p = randomUUID();
      const minute = Date.UTC(2026, 6, 1, 10, 0);
      const contribution = (second: number, rt: number | undefined, status: number) =>
        bucketOf({
          project_id: p,
          service_name: 'api',
          environment: 'production',
          method: 'GET',
          status_code: status,
          timestamp: new Date(minute + second * 1000).toISOString(),
          ...(rt === undefined ? {} : { response_time: rt }),
        });
      const plan: Array<[number, number | undefined, number]> = [
        [1, 10, 200],
        [2, 20, 404],
        [3, undefined, 500],
        [61, 40, 200],
      ];
      const batch = plan.map(() => recorded());
      const apply = (events: RecordedEvent[]) =>
        m.stores.stats.commit(events, (r, w) => {
          const [second, rt, status] = plan[batch.indexOf(r)]!;
          w.add(contribution(second, rt, status), r.position);
        });
      await apply(batch.slice(0, 2));
      await apply(batch);
      await apply(batch);
      const buckets = await m.stats.buckets(
        { from: minute, to: minute + 60_000, hourly: false },
        { all: false, projectIds: [p] },
      );
      const first = buckets.find((b) => b.minute === minute)!;
      t.like(first, {
        total: 3,
        errors_4xx: 1,
        errors_5xx: 1,
        rt_count: 2,
        rt_sum: 30,
        methods: { GET: 3 },
        classes: { '2xx': 1, '4xx': 1, '5xx': 1 },
      });
      t.is(
        Object.values(first.bins).reduce((a, b) => a + b, 0),
        2,
      );
      t.is(first.last_ts, minute + 3000);
      t.is(buckets.find((b) => b.minute === minute + 60_000)!.total, 1);
      t.is(
        (await m.stats.buckets({ from: minute, to: minute, hourly: false }, { all: true })).filter(
          (b) => b.project_id === p,
        ).length,
        1,
      );
      t.deepEqual(
        await m.stats.buckets(
          { from: minute, to: minute + 60_000, hourly: false },
          { all: false, projectIds: [randomUUID()] },
        ),
        [],
      );
      t.deepEqual(
        await m.stats.buckets({ from: minute, to: minute + 60_000, hourly: false, service_name: 'web' }, { all: true }),
        [],
      );
      // A range of whole hours reads the hour roll-up: one bucket with everything of the hour.
      const hourly = await m.stats.buckets(
        { from: minute, to: minute + 3_540_000, hourly: true },
        { all: false, projectIds: [p] },
      );
      t.is(hourly.length, 1);
      t.like(hourly[0], { minute, total: 4, errors_4xx: 1, errors_5xx: 1, rt_count: 3, rt_sum: 70 });
      const ragged = await m.stats.buckets(
        { from: minute + 60_000, to: minute + 3_540_000, hourly: true },
        { all: false, projectIds: [p] },
      );
      t.deepEqual(
        ragged.map((b) => [b.minute, b.total]),
        [[minute + 60_000, 1]],
      );
    },
  );

  withModels(
    'orphans: pairing in either order within the window, per project; replays change nothing',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const t0 = Date.UTC(2026, 7, 1, 12, 0);
      const item = (projectId: string, second: number, path: string): AuditListItem => ({
        id: randomUUID(),
        project_id: projectId,
        event_type: 'http',
        method: 'GET',
        path,
        status_code: 200,
        response_time: 5,
        identifier: 'u',
        user_email: null,
        service_name: 'spa',
        environment: 'production',
        timestamp: new Date(t0 + second * 1000).toISOString(),
      });
      const plan: Array<(w: OrphansWriter) => void> = [
        (w) => w.browserEvent(item(p, 0, '/a'), 'r1'),
        (w) => w.backendEvent(p, 'r1', t0 + 120_000),
        (w) => w.backendEvent(p, 'r2', t0),
        (w) => w.browserEvent(item(p, 121, '/b'), 'r2'),
        (w) => w.browserEvent(item(q, 5, '/c'), 'r1'),
      ];
      const batch = plan.map(() => recorded());
      const apply = () => m.stores.orphans.commit(batch, (r, w) => plan[batch.indexOf(r)]!(w));
      await apply();
      await apply();
      const page = await m.orphans.list({ settledBefore: t0 + 3_600_000, page: 1, limit: 10 }, { all: true });
      const mine = page.data.filter((e) => e.project_id === p || e.project_id === q);
      t.deepEqual(
        mine.map((e) => [e.path, e.request_id]),
        [
          ['/b', 'r2'],
          ['/c', 'r1'],
        ],
      );
      t.is(
        (await m.orphans.list({ settledBefore: t0 + 60_000, page: 1, limit: 10 }, { all: false, projectIds: [p, q] }))
          .pagination.totalItems,
        1,
      );
      t.is(
        (
          await m.orphans.list(
            { project_id: p, settledBefore: t0 + 3_600_000, page: 1, limit: 10 },
            { all: false, projectIds: [q] },
          )
        ).pagination.totalItems,
        0,
      );
    },
  );

  withModels('access: projects, keys by hash until revoked, users by e-mail; reset empties it', async (t, m) => {
    const store = m.stores.access;
    const [p1, p2] = [randomUUID(), randomUUID()];
    const [k1, k2] = [randomUUID(), randomUUID()];
    const batch = [recorded(), recorded(), recorded(), recorded(), recorded()];
    await store.commit(batch, (r, w) => {
      const i = batch.indexOf(r);
      if (i === 0) w.projectCreated({ id: p1, name: 'one', created_at: '2026-01-01T00:00:00.000Z' });
      if (i === 1) w.projectCreated({ id: p2, name: 'two', created_at: '2026-01-02T00:00:00.000Z' });
      if (i === 2) {
        w.apiKeyIssued({
          id: k1,
          project_id: p1,
          name: 'a',
          prefix: 'wl_a',
          key_hash: 'h1',
          created_at: '2026-01-01T00:00:00.000Z',
          revoked_at: null,
          allowed_origins: ['https://shop.example.com'],
          rate_limit: 50,
        });
      }
      if (i === 3) {
        w.apiKeyIssued({
          id: k2,
          project_id: p1,
          name: 'b',
          prefix: 'wl_b',
          key_hash: 'h2',
          created_at: '2026-01-01T00:00:01.000Z',
          revoked_at: null,
          allowed_origins: [],
          rate_limit: null,
        });
      }
      if (i === 4)
        w.userRegistered({
          id: 'u1',
          email: 'm@example.com',
          password_hash: 'scrypt$x',
          role: 'member',
          project_ids: [p1],
          disabled: false,
          tokens_valid_after: null,
          created_at: '2026-01-01T00:00:00.000Z',
        });
    });
    const revoke = recorded();
    await store.commit([revoke], (_r, w) => w.apiKeyRevoked(k2, '2026-01-03T00:00:00.000Z'));
    t.deepEqual(await m.access.activeKey('h1'), {
      id: k1,
      project_id: p1,
      allowed_origins: ['https://shop.example.com'],
      rate_limit: 50,
    });
    t.is(await m.access.activeKey('h2'), null);
    t.is(await m.access.activeKey('nope'), null);
    const restriction = recorded();
    await store.commit([restriction], (_r, w) => w.apiKeyRestricted(k1, { allowed_origins: [], rate_limit: 7 }));
    t.deepEqual(await m.access.activeKey('h1'), { id: k1, project_id: p1, allowed_origins: [], rate_limit: 7 });
    t.deepEqual(
      (await m.access.listProjects({ all: true })).map((p) => p.name),
      ['one', 'two'],
    );
    t.deepEqual(
      (await m.access.listProjects({ all: false, projectIds: [p2] })).map((p) => p.id),
      [p2],
    );
    t.is(await m.access.getProject(p1, { all: false, projectIds: [p2] }), null);
    t.deepEqual(
      (await m.access.listApiKeys(p1)).map((k) => [k.id, k.revoked_at]),
      [
        [k1, null],
        [k2, '2026-01-03T00:00:00.000Z'],
      ],
    );
    t.is((await m.access.userByEmail('m@example.com'))?.password_hash, 'scrypt$x');
    const u1 = {
      id: 'u1',
      email: 'm@example.com',
      role: 'member' as const,
      project_ids: [p1],
      disabled: false,
      tokens_valid_after: null,
      created_at: '2026-01-01T00:00:00.000Z',
    };
    t.deepEqual(await m.access.listUsers(), [u1]);
    t.deepEqual(await m.access.userById('u1'), u1, 'by id, without the hash');
    t.is(await m.access.userById('u2'), null);
    t.is(await m.access.countUsers(), 1);
    t.is(await store.checkpoint(), restriction.position);
    await store.reset();
    t.is(await store.checkpoint(), null);
    t.is(await m.access.countUsers(), 0);
    t.deepEqual(await m.access.listProjects({ all: true }), []);
  });

  withModels('access: a user change sets only the fields it names; replayed, it changes nothing', async (t, m) => {
    const store = m.stores.access;
    const p = randomUUID();
    const created = '2026-01-01T00:00:00.000Z';
    await store.commit([recorded()], (_r, w) =>
      w.userRegistered({
        id: 'u1',
        email: 'u@example.com',
        password_hash: 'scrypt$1',
        role: 'member',
        project_ids: [p],
        disabled: false,
        tokens_valid_after: null,
        created_at: created,
      }),
    );
    const changes = [recorded(), recorded(), recorded(), recorded()];
    const apply = () =>
      store.commit(changes, (r, w) => {
        const i = changes.indexOf(r);
        if (i === 0)
          w.userChanged('u1', { role: 'auditor', project_ids: [], tokens_valid_after: '2026-01-02T00:00:00.000Z' });
        if (i === 1) w.userChanged('u1', { disabled: true, tokens_valid_after: '2026-01-03T00:00:00.000Z' });
        if (i === 2) w.userChanged('u1', { password_hash: 'scrypt$2' });
        if (i === 3) w.userChanged('u1', {});
      });
    await apply();
    await apply();
    const expected = {
      id: 'u1',
      email: 'u@example.com',
      role: 'auditor' as const,
      project_ids: [],
      disabled: true,
      tokens_valid_after: '2026-01-03T00:00:00.000Z',
      created_at: created,
    };
    t.deepEqual(await m.access.userById('u1'), expected);
    t.deepEqual(await m.access.userByEmail('u@example.com'), { ...expected, password_hash: 'scrypt$2' });
    await store.commit([recorded()], (_r, w) => w.userChanged('u1', { disabled: false }));
    t.like(await m.access.userById('u1'), { disabled: false, tokens_valid_after: '2026-01-03T00:00:00.000Z' });
    t.is(await m.access.countUsers(), 1);
  });

  withModels(
    'monitors: state, last check, history newest first and capped, removal; replays change nothing',
    async (t, m) => {
      const project = randomUUID();
      const id = randomUUID();
      const other = randomUUID();
      const base = {
        project_id: project,
        name: 'orders',
        url: 'http://127.0.0.1:9/',
        interval_seconds: 60,
        timeout_seconds: 10,
        expected_status: 200,
        enabled: true,
        status: 'PENDING' as const,
        status_since: null,
        last_checked_at: null,
        last_status_code: null,
        last_response_ms: null,
        last_error: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      };
      const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
      const check = (i: number) => ({
        checked_at: at(i),
        status_code: i % 2 ? 503 : 200,
        response_ms: i,
        ok: i % 2 === 0,
        error: null,
      });
      const created = recorded();
      const checks = Array.from({ length: 205 }, (_, i) => ({ r: recorded(), i }));
      const apply = async () => {
        await m.stores.monitors.commit([created], (_r, w) => {
          w.created({ ...base, id });
          w.created({ ...base, id: other, project_id: randomUUID(), created_at: at(1) });
        });
        await m.stores.monitors.commit(
          checks.map((c) => c.r),
          (r, w) => {
            const c = checks.find((x) => x.r === r)!;
            w.checked(id, check(c.i), r.position);
            w.counted(id, Date.UTC(2026, 0, 1), check(c.i).ok, r.position);
          },
        );
      };
      await apply();
      await apply();
      const down = recorded();
      await m.stores.monitors.commit([down], (_r, w) => {
        w.status(id, 'DOWN', at(203));
        w.updated(id, { enabled: false, name: 'orders-api' }, at(204));
      });
      const view = await m.monitors.get(id, { all: true });
      t.like(view, {
        id,
        name: 'orders-api',
        enabled: false,
        status: 'DOWN',
        status_since: at(203),
        last_checked_at: at(204),
        last_status_code: 200,
        last_response_ms: 204,
        updated_at: at(204),
        interval_seconds: 60,
      });
      t.is(await m.monitors.get(id, { all: false, projectIds: [randomUUID()] }), null);
      const history = await m.monitors.history(id, 500);
      t.is(history.length, 200);
      t.deepEqual(history[0], check(204));
      t.is(history[199]!.checked_at, at(5));
      t.deepEqual(
        (await m.monitors.history(id, 3)).map((h) => h.response_ms),
        [204, 203, 202],
      );
      t.is(await m.monitors.countInProject(project), 1);
      t.deepEqual(
        (await m.monitors.list({ all: true })).map((x) => x.id),
        [id, other],
      );
      t.deepEqual(
        (await m.monitors.list({ all: true }, project)).map((x) => x.id),
        [id],
      );
      t.deepEqual(await m.monitors.list({ all: false, projectIds: [] }), []);
      // All 205 checks counted once (103 OK), despite the replay.
      t.deepEqual(Object.fromEntries(await m.monitors.uptime([id, other], new Date(at(3600)))), {
        [id]: { uptime_24h: 103 / 205, uptime_7d: 103 / 205 },
        [other]: { uptime_24h: null, uptime_7d: null },
      });
      const older = [recorded(), recorded()];
      await m.stores.monitors.commit(older, (r, w) => {
        // An hour more than 168 hours before the newest is dropped at once.
        w.counted(id, Date.UTC(2026, 0, 1) - 169 * 3_600_000, true, r.position);
      });
      t.deepEqual((await m.monitors.uptime([id], new Date(Date.UTC(2026, 0, 1) - 168 * 3_600_000))).get(id), {
        uptime_24h: null,
        uptime_7d: null,
      });

      const removed = recorded();
      const late = recorded();
      await m.stores.monitors.commit([removed, late], (r, w) => {
        if (r === removed) w.deleted(id);
        else w.checked(id, check(300), r.position);
      });
      t.is(await m.monitors.get(id, { all: true }), null);
      t.deepEqual(await m.monitors.history(id, 10), []);
      t.deepEqual((await m.monitors.uptime([id], new Date(at(0)))).get(id), { uptime_24h: null, uptime_7d: null });
      t.is(await m.monitors.countInProject(project), 0);
    },
  );

  withModels(
    'channels: views without secrets, targets of active opted-in channels and of channels for all projects, updates and removal',
    async (t, m) => {
      const project = randomUUID();
      const ids = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const view = (id: string, over: Record<string, unknown> = {}) => ({
        id,
        project_id: project,
        type: 'webhook' as const,
        name: null,
        url: `https://hooks.test/${id}`,
        has_secret: true,
        settings: {},
        events: ['healthcheck' as const],
        project_scope: 'project' as const,
        quiet_minutes: 0,
        active: true,
        deactivated_reason: null,
        degraded: false,
        degraded_reason: null,
        degraded_since: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
        ...over,
      });
      const target = (id: string) => ({
        type: 'webhook' as const,
        url: `https://hooks.test/${id}`,
        secret: 'shh-secret',
      });
      const first = recorded();
      const apply = () =>
        m.stores.channels.commit([first], (_r, w) => {
          w.created(view(ids[0]!), target(ids[0]!));
          w.created(view(ids[1]!, { events: ['alert'], created_at: '2026-01-01T12:00:00.000Z' }), target(ids[1]!));
          w.created(view(ids[2]!, { created_at: '2026-01-02T00:00:00.000Z' }), target(ids[2]!));
          w.created(
            view(ids[3]!, { project_id: randomUUID(), project_scope: 'all', created_at: '2026-01-03T00:00:00.000Z' }),
            target(ids[3]!),
          );
        });
      await apply();
      await apply();
      const idsOf = (rows: Array<{ id: string }>) => rows.map((r) => r.id);
      t.deepEqual(idsOf(await m.channels.list({ all: true }, project)), ids.slice(0, 3));
      t.false(JSON.stringify(await m.channels.list({ all: true })).includes('shh-secret'));
      t.deepEqual(idsOf(await m.channels.targets(project, 'healthcheck')), [ids[0], ids[2], ids[3]]);
      t.deepEqual((await m.channels.targets(project, 'healthcheck'))[0]!.target, target(ids[0]!));
      t.deepEqual(
        idsOf(await m.channels.targets(randomUUID(), 'healthcheck')),
        [ids[3]],
        "a channel for all projects is every project's",
      );
      t.deepEqual(idsOf(await m.channels.targets(project, 'alert')), [ids[1]]);
      t.is(await m.channels.get(ids[0]!, { all: false, projectIds: [randomUUID()] }), null);
      const owner = (await m.channels.get(ids[3]!, { all: true }))!.project_id;
      t.is(
        await m.channels.get(ids[3]!, { all: false, projectIds: [owner] }),
        null,
        "a channel for all projects is an admin's",
      );
      t.deepEqual(await m.channels.list({ all: false, projectIds: [owner] }), []);
      t.deepEqual((await m.channels.target(ids[1]!))?.target, target(ids[1]!));

      const second = recorded();
      await m.stores.channels.commit([second], (_r, w) => {
        w.deactivated(ids[0]!, 'push subscription gone (410)', '2026-01-03T00:00:00.000Z');
        w.degraded(ids[1]!, '3 deliveries in a row failed', '2026-01-03T00:00:01.000Z');
        w.deleted(ids[2]!);
        w.deleted(ids[3]!);
      });
      t.like(await m.channels.get(ids[0]!, { all: true }), {
        active: false,
        deactivated_reason: 'push subscription gone (410)',
      });
      t.like(await m.channels.get(ids[1]!, { all: true }), {
        degraded: true,
        degraded_reason: '3 deliveries in a row failed',
        degraded_since: '2026-01-03T00:00:01.000Z',
      });
      t.deepEqual(await m.channels.targets(project, 'healthcheck'), []);
      t.is(await m.channels.target(ids[2]!), null);
      const third = recorded();
      await m.stores.channels.commit([third], (_r, w) => {
        w.updated(
          ids[0]!,
          { active: true, events: ['healthcheck', 'alert'], name: 'ops', quiet_minutes: 15 },
          '2026-01-04T00:00:00.000Z',
        );
        w.recovered(ids[1]!);
      });
      t.like(await m.channels.get(ids[0]!, { all: true }), {
        active: true,
        deactivated_reason: null,
        events: ['healthcheck', 'alert'],
        name: 'ops',
        quiet_minutes: 15,
        updated_at: '2026-01-04T00:00:00.000Z',
      });
      t.like(await m.channels.get(ids[1]!, { all: true }), {
        degraded: false,
        degraded_reason: null,
        degraded_since: null,
      });
      t.is(await m.channels.get(ids[2]!, { all: true }), null);
    },
  );

  withModels(
    'delivery log: created once, tries by number, status changes; by channel (paged, newest first, by status), by event, scoped',
    async (t, m) => {
      const [project, other, channel, event] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const delivery = (i: number, over: Record<string, unknown> = {}) => ({
        id: randomUUID(),
        channel_id: channel,
        channel_type: 'slack' as const,
        project_id: project,
        event_id: i === 0 ? event : randomUUID(),
        event_type: 'monitor.down' as const,
        title: `m${i} is DOWN`,
        status: 'pending' as const,
        reason: null,
        attempts: [],
        created_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        updated_at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        ...over,
      });
      const rows = [0, 1, 2, 3].map((i) => delivery(i));
      const foreign = delivery(4, { project_id: other });
      const skipped = delivery(5, { status: 'skipped', reason: 'not sent: within the quiet period' });
      const batch = recorded();
      const apply = () =>
        m.stores.deliveries.commit([batch], (_r, w) => {
          for (const d of [...rows, foreign, skipped]) w.created(d);
          w.created({ ...rows[0]!, title: 'changed' });
        });
      await apply();
      await apply();
      const attempt = (n: number, outcome: 'delivered' | 'failed', at: string) => ({
        attempt: n,
        at,
        outcome,
        status: outcome === 'failed' ? 503 : 200,
        error: outcome === 'failed' ? 'answered 503' : null,
        response: 'ok',
        duration_ms: 7,
      });
      const tries = recorded();
      await m.stores.deliveries.commit([tries], (_r, w) => {
        w.attempted(rows[0]!.id, attempt(1, 'failed', '2026-01-01T01:00:00.000Z'), 'pending');
        w.attempted(rows[0]!.id, attempt(2, 'failed', '2026-01-01T01:00:01.000Z'), 'failed');
        w.attempted(rows[1]!.id, attempt(1, 'delivered', '2026-01-01T01:00:02.000Z'), 'delivered');
        w.statusChanged(rows[2]!.id, 'cancelled', 'channel deleted', '2026-01-01T01:00:03.000Z');
      });
      const got = await m.deliveries.get(rows[0]!.id, { all: true });
      t.like(got, { title: 'm0 is DOWN', status: 'failed', updated_at: '2026-01-01T01:00:01.000Z' });
      t.deepEqual(got!.attempts, [
        attempt(1, 'failed', '2026-01-01T01:00:00.000Z'),
        attempt(2, 'failed', '2026-01-01T01:00:01.000Z'),
      ]);
      const retry = recorded();
      await m.stores.deliveries.commit([retry], (_r, w) => {
        w.statusChanged(rows[0]!.id, 'pending', null, '2026-01-01T02:00:00.000Z');
        w.attempted(rows[0]!.id, attempt(3, 'delivered', '2026-01-01T02:00:01.000Z'), 'delivered');
      });
      t.like(await m.deliveries.get(rows[0]!.id, { all: true }), { status: 'delivered', reason: null });
      t.is((await m.deliveries.get(rows[0]!.id, { all: true }))!.attempts.length, 3);

      const all = await m.deliveries.forChannel(channel, { page: 1, limit: 10 }, { all: true });
      t.deepEqual(
        all.data.map((d) => d.id),
        [skipped, foreign, ...[...rows].reverse()].map((d) => d.id),
      );
      t.deepEqual(all.pagination, { page: 1, limit: 10, totalItems: 6, totalPage: 1 });
      const scoped = await m.deliveries.forChannel(
        channel,
        { page: 2, limit: 2 },
        { all: false, projectIds: [project] },
      );
      t.deepEqual(
        scoped.data.map((d) => d.id),
        [rows[2]!.id, rows[1]!.id],
      );
      t.deepEqual(scoped.pagination, { page: 2, limit: 2, totalItems: 5, totalPage: 3 });
      t.deepEqual(
        (await m.deliveries.forChannel(channel, { page: 1, limit: 10, status: 'cancelled' }, { all: true })).data.map(
          (d) => d.id,
        ),
        [rows[2]!.id],
      );
      t.deepEqual(
        (await m.deliveries.forChannel(channel, { page: 1, limit: 10 }, { all: false, projectIds: [] })).data,
        [],
      );
      t.deepEqual(
        (await m.deliveries.forEvent(event, { all: true })).map((d) => d.id),
        [rows[0]!.id],
      );
      t.deepEqual(await m.deliveries.forEvent(event, { all: false, projectIds: [other] }), []);
      t.is(await m.deliveries.get(foreign.id, { all: false, projectIds: [project] }), null);
    },
  );

  withModels(
    "stats buckets for the anomaly scan: a project's per-minute baselines, and every service's activity since a time",
    async (t, m) => {
      const p = randomUUID();
      const at = (hh: number, mm: number, ss = 0) => Date.UTC(2026, 6, 2, hh, mm, ss);
      const plan: Array<[string, string, number]> = [
        ['api', 'production', at(10, 30, 1)],
        ['api', 'production', at(10, 30, 2)],
        ['api', 'production', at(10, 31, 5)],
        ['api', 'staging', at(10, 32, 7)],
        ['web', 'production', at(10, 30, 9)],
        ['api', 'production', at(11, 5)],
        ['old', 'production', at(9, 0)],
      ];
      const batch = plan.map(() => recorded());
      const apply = (events: RecordedEvent[]) =>
        m.stores.stats.commit(events, (r, w) => {
          const [service, environment, ms] = plan[batch.indexOf(r)]!;
          w.add(
            bucketOf({
              project_id: p,
              service_name: service,
              environment,
              method: 'GET',
              status_code: 200,
              timestamp: new Date(ms).toISOString(),
            }),
            r.position,
          );
        });
      await apply(batch.slice(0, 3));
      await apply(batch);
      await apply(batch);
      // api: 2 events at 10:30, 1 at 10:31 (10:32 is past the end): from its first minute on.
      const baselines = await m.stats.serviceBaselines(p, at(10, 29), at(10, 32));
      t.deepEqual(
        baselines.sort((a, b) => a.service_name.localeCompare(b.service_name)),
        [
          { service_name: 'api', first_minute: at(10, 30), sum: 3, sum_squares: 5 },
          { service_name: 'web', first_minute: at(10, 30), sum: 1, sum_squares: 1 },
        ],
      );
      t.deepEqual(await m.stats.serviceBaselines(randomUUID(), at(10, 29), at(10, 32)), []);
      // From 10:25: minutes up to 11:00 from the minute buckets, from 11:00 on from the hour roll-up.
      const activity = (await m.stats.serviceActivity(at(10, 25)))
        .filter((a) => a.project_id === p)
        .sort((a, b) => a.service_name.localeCompare(b.service_name));
      t.deepEqual(activity, [
        { project_id: p, service_name: 'api', environment: 'production', last_event_at: at(11, 5), events_24h: 5 },
        { project_id: p, service_name: 'web', environment: 'production', last_event_at: at(10, 30, 9), events_24h: 1 },
      ]);
      const before11 = (await m.stats.serviceActivity(at(10, 31))).find(
        (a) => a.project_id === p && a.service_name === 'api',
      );
      t.like(before11, { events_24h: 3, last_event_at: at(11, 5) });
    },
  );

  withModels(
    'anomaly windows: 10-second buckets per service and per 401 identifier; replays count once; old buckets are pruned',
    async (t, m) => {
      const p = randomUUID();
      const t0 = Date.UTC(2026, 8, 1, 12, 0);
      const c = (second: number, over: Partial<WindowContribution> = {}): WindowContribution => ({
        project_id: p,
        service_name: 'api',
        environment: 'production',
        identifier: 'u1',
        method: 'GET',
        status_code: 200,
        timestamp: t0 + second * 1000,
        ...over,
      });
      const plan = [
        c(1),
        c(2, { method: 'DELETE', status_code: 500 }),
        c(3, { identifier: 'mallory', status_code: 401 }),
        c(12, { identifier: 'mallory', status_code: 401, environment: 'staging', service_name: 'auth' }),
        c(13, { identifier: 'alice', status_code: 401 }),
        c(5, { service_name: 'web', status_code: undefined }),
        c(14, { identifier: 'mallory', status_code: 401, service_name: 'auth', environment: 'staging' }),
      ];
      const batch = plan.map(() => recorded());
      const apply = (events: RecordedEvent[]) =>
        m.stores.anomalyWindows.commit(events, (r, w) => w.add(plan[batch.indexOf(r)]!, r.position));
      await apply(batch.slice(0, 2));
      await apply(batch);
      await apply(batch);
      const services = (await m.anomalyWindows.serviceSeries(t0, t0 + 10_000, 1)).sort((a, b) =>
        a.service_name.localeCompare(b.service_name),
      );
      t.deepEqual(
        services.map((s) => [s.service_name, s.environment, [...s.buckets].sort((a, b) => a[0] - b[0])]),
        [
          [
            'api',
            'production',
            [
              [t0, { total: 3, errors: 2, deletes: 1 }],
              [t0 + 10_000, { total: 1, errors: 1, deletes: 0 }],
            ],
          ],
          ['auth', 'staging', [[t0 + 10_000, { total: 2, errors: 2, deletes: 0 }]]],
          ['web', 'production', [[t0, { total: 1, errors: 0, deletes: 0 }]]],
        ],
      );
      t.deepEqual(
        (await m.anomalyWindows.serviceSeries(t0, t0 + 10_000, 3)).map((s) => s.service_name).sort(),
        ['api'],
        'at least 3 events in the range',
      );
      t.deepEqual(await m.anomalyWindows.serviceSeries(t0 + 20_000, t0 + 60_000, 1), []);
      const failures = await m.anomalyWindows.authFailureSeries(t0, t0 + 10_000, 2);
      t.deepEqual(
        failures.map((f) => ({ ...f, buckets: [...f.buckets].sort((a, b) => a[0] - b[0]) })),
        [
          {
            project_id: p,
            identifier: 'mallory',
            service_name: 'auth',
            environment: 'staging',
            buckets: [
              [t0, 1],
              [t0 + 10_000, 2],
            ],
          },
        ],
        "alice has one 401: under the minimum; mallory's service and environment are those of the latest 401",
      );
      t.deepEqual(await m.anomalyWindows.authFailureSeries(t0, t0 + 10_000, 4), []);
      // A batch that fails part-way leaves nothing behind, and its retry counts once.
      const retried = [recorded(), recorded()];
      await t.throwsAsync(
        m.stores.anomalyWindows.commit(retried, (r, w) => {
          if (r === retried[1]) throw new Error('the projection failed');
          w.add(c(25, { service_name: 'retried' }), r.position);
        }),
        { message: 'the projection failed' },
      );
      await m.stores.anomalyWindows.commit(retried, (r, w) => w.add(c(25, { service_name: 'retried' }), r.position));
      const [again] = await m.anomalyWindows.serviceSeries(t0 + 20_000, t0 + 20_000, 1);
      t.deepEqual([...again!.buckets.values()], [{ total: 2, errors: 0, deletes: 0 }]);

      const late = recorded();
      await m.stores.anomalyWindows.commit([late], (r, w) => w.add(c(WINDOW_RETENTION_MS / 1000 + 1200), r.position));
      t.deepEqual(
        await m.anomalyWindows.serviceSeries(t0, t0 + 10_000, 1),
        [],
        'buckets older than the retention are gone',
      );
      t.deepEqual(await m.anomalyWindows.authFailureSeries(t0, t0 + 10_000, 1), []);
    },
  );

  withModels(
    'anomalies: settings fold their updates, open alerts come and go; replays change nothing',
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const alert = (
        alert_id: string,
        projectId: string,
        rule: 'brute_force' | 'mass_delete',
        subject: string,
        detected_at: string,
      ) => ({ alert_id, project_id: projectId, rule, subject, detected_at });
      const first = [recorded(), recorded()];
      const second = [recorded(), recorded()];
      const applyFirst = () =>
        m.stores.anomalies.commit(first, (r, w) => {
          if (r === first[0]) {
            w.settingsUpdated(
              p,
              { brute_force: { threshold: 5, window_secs: 30 }, mass_delete: { enabled: false } },
              '2026-01-01T00:00:00.000Z',
            );
            w.detected(alert('a1', p, 'brute_force', 'mallory', '2026-01-01T00:01:00.000Z'));
          } else {
            w.detected(alert('a2', p, 'mass_delete', 'files', '2026-01-01T00:02:00.000Z'));
            w.detected(alert('a3', q, 'brute_force', 'eve', '2026-01-01T00:03:00.000Z'));
          }
        });
      const applySecond = () =>
        m.stores.anomalies.commit(second, (r, w) => {
          if (r === second[0]) {
            w.settingsUpdated(
              p,
              { brute_force: { threshold: null }, mass_delete: { enabled: null } },
              '2026-01-02T00:00:00.000Z',
            );
            w.cleared(p, 'a1');
          } else {
            w.cleared(q, 'a2'); // another project's id: not this project's alert
          }
        });
      await applyFirst();
      t.deepEqual(await m.anomalies.settingsOf(p), {
        project_id: p,
        overrides: { brute_force: { threshold: 5, window_secs: 30 }, mass_delete: { enabled: false } },
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      await applyFirst();
      await applySecond();
      await applyFirst();
      await applySecond();
      t.deepEqual(await m.anomalies.settingsOf(p), {
        project_id: p,
        overrides: { brute_force: { window_secs: 30 } },
        updated_at: '2026-01-02T00:00:00.000Z',
      });
      t.deepEqual(await m.anomalies.allSettings(), [
        { project_id: p, overrides: { brute_force: { window_secs: 30 } }, updated_at: '2026-01-02T00:00:00.000Z' },
      ]);
      t.is(await m.anomalies.settingsOf(q), null);
      t.deepEqual(
        (await m.anomalies.openAlerts()).map((a) => a.alert_id),
        ['a2', 'a3'],
      );
      t.deepEqual(
        (await m.anomalies.openAlerts())[0],
        alert('a2', p, 'mass_delete', 'files', '2026-01-01T00:02:00.000Z'),
      );
      await m.stores.anomalies.reset();
      t.deepEqual(await m.anomalies.openAlerts(), []);
      t.deepEqual(await m.anomalies.allSettings(), []);
    },
  );
  withModels(
    'tree: leaves per project in log order, heads and subtree roots as the RFC builds them; leaves by position; replays add nothing; the latest checkpoint',
    async (t, m) => {
      const store = m.stores.tree;
      const [a, b] = [randomUUID(), randomUUID()];
      const events = Array.from({ length: 37 }, (_, i) => ({
        r: recorded(),
        project: i % 3 === 0 ? b : a,
        hash: createHash('sha256').update(`leaf ${i}`).digest(),
      }));
      const apply = (r: RecordedEvent, w: TreeWriter) => {
        const e = events.find((x) => x.r === r);
        if (e) w.leaf(e.project, r.position, e.hash);
      };
      await store.commit(
        events.slice(0, 20).map((e) => e.r),
        apply,
      );
      await store.commit(
        events.slice(10, 37).map((e) => e.r),
        apply,
      );
      await store.commit(
        events.slice(0, 37).map((e) => e.r),
        apply,
      );
      const expected = (project: string) => {
        let frontier = EMPTY_FRONTIER;
        for (const e of events.filter((x) => x.project === project)) frontier = appendLeaf(frontier, e.hash).frontier;
        return frontier;
      };
      for (const project of [a, b]) {
        const head = await m.tree.head(project);
        const want = expected(project);
        t.is(head?.frontier.size, want.size);
        t.deepEqual(head?.root, frontierRoot(want));
        t.deepEqual(
          await subtreeRoot((level, index) => m.tree.node(project, level, index), 0, want.size),
          frontierRoot(want),
          'from stored subtrees',
        );
      }
      const ofA = events.filter((x) => x.project === a);
      const page = await m.tree.leavesFrom(a, ofA[5]!.r.position, 4);
      t.deepEqual(
        page.map((l) => [l.index, l.position, l.hash.toString('hex')]),
        ofA.slice(5, 9).map((e, i) => [5 + i, e.r.position, e.hash.toString('hex')]),
      );
      t.deepEqual(await m.tree.leavesFrom(a, String(Number(events[36]!.r.position) + 1), 4), []);
      t.deepEqual((await m.tree.heads()).map((h) => h.project_id).sort(), [a, b].sort());
      t.is(await m.tree.latestCheckpoint(a), null);
      const checkpoint = {
        project_id: a,
        size: 10,
        root: 'cm9vdA==',
        note: 'note',
        signed_at: '2026-01-01T00:00:00.000Z',
        position: '0',
      };
      const signed = recorded();
      await store.commit([signed], (_r, w) => w.checkpointSigned({ ...checkpoint, position: signed.position }));
      t.deepEqual(await m.tree.latestCheckpoint(a), { ...checkpoint, position: signed.position });
      t.is((await m.tree.head(a))?.checkpoint_size, 10);
      await t.throwsAsync(m.tree.node(a, 9, 0));
    },
  );

  withModels(
    "masking: a project's rules, replaced whole by each set; replays change nothing; reset forgets them",
    async (t, m) => {
      const [p, q] = [randomUUID(), randomUUID()];
      const first = [recorded()];
      const second = [recorded()];
      const applyFirst = () =>
        m.stores.masking.commit(first, (_r, w) => {
          w.rulesSet({
            project_id: p,
            keys: ['Session-Id', '$where', 'a.b'],
            patterns: ['sk_live_[0-9]+'],
            updated_at: '2026-01-01T00:00:00.000Z',
          });
          w.rulesSet({ project_id: q, keys: ['x'], patterns: [], updated_at: '2026-01-01T00:00:01.000Z' });
        });
      const applySecond = () =>
        m.stores.masking.commit(second, (_r, w) => {
          w.rulesSet({ project_id: p, keys: [], patterns: ['(?i)^bearer '], updated_at: '2026-01-02T00:00:00.000Z' });
        });
      t.is(await m.masking.rulesOf(p), null);
      await applyFirst();
      t.deepEqual(await m.masking.rulesOf(p), {
        project_id: p,
        keys: ['Session-Id', '$where', 'a.b'],
        patterns: ['sk_live_[0-9]+'],
        updated_at: '2026-01-01T00:00:00.000Z',
      });
      await applySecond();
      await applyFirst();
      await applySecond();
      t.deepEqual(await m.masking.rulesOf(p), {
        project_id: p,
        keys: [],
        patterns: ['(?i)^bearer '],
        updated_at: '2026-01-02T00:00:00.000Z',
      });
      t.deepEqual(await m.masking.rulesOf(q), {
        project_id: q,
        keys: ['x'],
        patterns: [],
        updated_at: '2026-01-01T00:00:01.000Z',
      });
      await m.stores.masking.reset();
      t.is(await m.masking.rulesOf(p), null);
      t.is(await m.masking.rulesOf(q), null);
    },
  );
};
