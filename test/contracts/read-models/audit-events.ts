import { randomUUID } from 'node:crypto';
import type { StoredAuditEvent } from '../../../src/domain/audit-event.ts';
import type { Scope } from '../../../src/domain/scope.ts';
import { bucketOf } from '../../../src/domain/stats.ts';
import { SORT_FIELDS, type AuditListQuery } from '../../../src/views/audit-events/port.ts';
import type { ReadModels } from '../../../src/views/read-models.ts';
import { recorded, type ReadModelsContractOptions, type WithModels } from './harness.ts';

export const auditEventsContract = (
  withModels: WithModels,
  adapter: string,
  options: ReadModelsContractOptions,
): void => {
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
    'audit events: a batch that fails part-way leaves nothing behind, ' +
      'and the next batch of its project is found by every query',
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
};
