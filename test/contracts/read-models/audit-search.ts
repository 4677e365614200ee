import { randomUUID } from 'node:crypto';
import type { StoredAuditEvent } from '../../../src/domain/audit-event.ts';
import { parseSearch } from '../../../src/domain/search.ts';
import { sessionsOfEvents } from '../../../src/domain/sessions.ts';
import type { AuditFilter, AuditListQuery } from '../../../src/views/audit-events/port.ts';
import type { ReadModels } from '../../../src/views/read-models.ts';
import { recorded, type WithModels } from './harness.ts';

/** Issue 34: search (`q`) and the tenant and path filters, the same on every adapter. */
export const auditSearchContract = (withModels: WithModels): void => {
  const base = (projectId: string, i: number): StoredAuditEvent => ({
    id: randomUUID(),
    project_id: projectId,
    event_type: 'http',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
    path: '/health',
    method: 'GET',
    identifier: `user-${i}`,
    service_name: 'shop',
    environment: 'production',
    source: 'backend',
    status_code: 200,
  });

  /** Named events of one project (and one event of another), projected. */
  const seed = async (m: ReadModels) => {
    const [a, b] = [randomUUID(), randomUUID()];
    const named = {
      declined: {
        ...base(a, 1),
        path: '/orders/42',
        method: 'POST',
        status_code: 502,
        user_email: 'jane@example.com',
        user_name: 'Jane Doe',
        error_message: 'Payment declined by the bank',
        tenant_id: 'acme',
        request_body: { card: '************1111', password: '********', note: 'gift wrap' },
      },
      deleted: {
        ...base(a, 2),
        path: '/orders/43',
        method: 'DELETE',
        status_code: 204,
        user_email: 'john@example.com',
        tenant_id: 'acme',
        response_body: { deleted: true, reason: 'declined payment' },
      },
      ordersList: { ...base(a, 3), path: '/orders', user_agent: 'Mozilla/5.0 Firefox', tenant_id: 'globex' },
      other: { ...base(a, 4), path: '/ordersx', identifier: 'bank-robot', status_code: 404 },
      noEmail: { ...base(a, 5), error_message: 'upstream timeout' },
      elsewhere: { ...base(b, 6), error_message: 'Payment declined', tenant_id: 'acme' },
    } satisfies Record<string, StoredAuditEvent>;
    const events = Object.values(named);
    const batch = events.map(() => recorded());
    await m.stores.auditEvents.commit(batch, (r, w) => w.record(events[batch.indexOf(r)]!, r.position));
    const nameOf = new Map(Object.entries(named).map(([name, e]) => [e.id, name]));
    const list = async (filter: Partial<AuditFilter>, projectId: string | null = a) => {
      const q: AuditListQuery = {
        ...(projectId === null ? {} : { project_id: projectId }),
        ...filter,
        page: 1,
        limit: 100,
        sort_by: 'timestamp',
        sort_order: 'asc',
      };
      const page = await m.auditEvents.list(q, { all: true });
      const names = page.data.map((e) => nameOf.get(e.id)!);
      const total = await m.auditEvents.count(q, { all: true });
      if (total !== page.pagination.totalItems) throw new Error(`count ${total} but the page says otherwise`);
      return names;
    };
    const search = (q: string, projectId: string | null = a) => list({ search: parseSearch(q) }, projectId);
    return { a, b, named, list, search };
  };

  withModels('search: words, in any of the searched fields, all of them, any case', async (t, m) => {
    const { a, b, search } = await seed(m);
    t.deepEqual(await search('declined'), ['declined', 'deleted']);
    t.deepEqual(await search('DECLINED bank'), ['declined']);
    t.deepEqual(await search('jane'), ['declined']);
    t.deepEqual(await search('firefox'), ['ordersList']);
    t.deepEqual(await search('robot'), ['other']);
    t.deepEqual(await search('gift'), ['declined']);
    t.deepEqual(await search('reason'), ['deleted'], "a body's keys are words too");
    t.deepEqual(await search('declin'), [], 'a word is whole: no stemming, no prefix');
    t.deepEqual(await search('nothing-like-this'), []);
    t.deepEqual(await search('declined', null), ['declined', 'deleted', 'elsewhere']);
    for (const projectIds of [[a, b], [a], [b], [randomUUID()]]) {
      const q: AuditListQuery = {
        search: parseSearch('declined'),
        page: 1,
        limit: 1,
        sort_by: 'timestamp',
        sort_order: 'desc',
      };
      const page = await m.auditEvents.list(q, { all: false, projectIds });
      t.is(page.pagination.totalItems, await m.auditEvents.count(q, { all: false, projectIds }), String(projectIds));
      t.is(page.data.length, page.pagination.totalItems === 0 ? 0 : 1);
    }
  });

  withModels('search: phrases are adjacent words in order; exclusions remove', async (t, m) => {
    const { search } = await seed(m);
    t.deepEqual(await search('"payment declined"'), ['declined']);
    t.deepEqual(await search('"declined payment"'), ['deleted']);
    t.deepEqual(await search('"payment bank"'), []);
    t.deepEqual(await search('jane@example.com'), ['declined']);
    t.deepEqual(await search('declined -bank'), ['deleted']);
    t.deepEqual(await search('declined -"declined payment"'), ['declined']);
    t.deepEqual(await search('-declined -timeout'), ['ordersList', 'other'], 'exclusions alone');
  });

  withModels('search: fields, exact and by prefix, status classes, excluded fields', async (t, m) => {
    const { search } = await seed(m);
    t.deepEqual(await search('path:/orders'), ['ordersList']);
    t.deepEqual(await search('path:/orders*'), ['declined', 'deleted', 'ordersList', 'other']);
    t.deepEqual(await search('path:/orders/*'), ['declined', 'deleted']);
    t.deepEqual(await search('user_email:jane@*'), ['declined']);
    t.deepEqual(await search('user_email:jane@example.com'), ['declined']);
    t.deepEqual(await search('method:delete'), ['deleted']);
    t.deepEqual(await search('status:5xx'), ['declined']);
    t.deepEqual(await search('status:404'), ['other']);
    t.deepEqual(await search('status:2xx -path:/health'), ['deleted', 'ordersList']);
    t.deepEqual(await search('-user_email:jane@*'), ['deleted', 'ordersList', 'other', 'noEmail'], 'absent is not it');
    t.deepEqual(await search('tenant:acme declined'), ['declined', 'deleted']);
    t.deepEqual(await search('path:/orders* -method:POST declined'), ['deleted']);
    t.deepEqual(await search('  '), ['declined', 'deleted', 'ordersList', 'other', 'noEmail']);
  });

  withModels('search: a masked value is found by its mask, never by what it replaced', async (t, m) => {
    const { search } = await seed(m);
    t.deepEqual(await search('1111'), ['declined']);
    t.deepEqual(await search('password'), ['declined']);
  });

  withModels('tenant and path filters, with the other filters, in list, count and export', async (t, m) => {
    const { a, list } = await seed(m);
    t.deepEqual(await list({ tenant_id: 'acme' }), ['declined', 'deleted']);
    t.deepEqual(await list({ tenant_id: 'acme' }, null), ['declined', 'deleted', 'elsewhere']);
    t.deepEqual(await list({ tenant_id: 'nobody' }), []);
    t.deepEqual(await list({ path_prefix: '/orders/' }), ['declined', 'deleted']);
    t.deepEqual(await list({ path_prefix: '/orders' }), ['declined', 'deleted', 'ordersList', 'other']);
    t.deepEqual(await list({ path: '/orders' }), ['ordersList']);
    t.deepEqual(await list({ tenant_id: 'acme', method: 'DELETE' }), ['deleted']);
    const filter: AuditFilter = { project_id: a, tenant_id: 'acme', search: parseSearch('declined -bank') };
    const exported: StoredAuditEvent[] = [];
    for await (const batch of m.auditEvents.exportBatches(filter, { all: true }, 100)) exported.push(...batch);
    t.deepEqual(
      exported.map((e) => [e.path, e.tenant_id]),
      [['/orders/43', 'acme']],
    );
  });

  withModels('tenant and path filters in statistics contributions and session activity', async (t, m) => {
    const { a, named } = await seed(m);
    const range = { project_id: a, from: 0, to: Date.UTC(2027, 0, 1) };
    t.is((await m.auditEvents.statsContributions({ ...range, tenant_id: 'acme' }, { all: true })).length, 2);
    t.is((await m.auditEvents.statsContributions({ ...range, path_prefix: '/orders' }, { all: true })).length, 4);
    t.is((await m.auditEvents.statsContributions({ ...range, path: '/orders/42' }, { all: true })).length, 1);
    const { identifier } = named.declined;
    const narrow = { ...range, tenant_id: 'acme', identifier };
    t.is((await m.auditEvents.statsContributions(narrow, { all: true })).length, 1);
    const activity = await m.auditEvents.sessionActivity({ project_id: a, tenant_id: 'acme' }, { all: true }, 100);
    t.deepEqual(
      sessionsOfEvents(activity).map((s) => [s.identifier, s.event_count]),
      [
        [named.deleted.identifier, 1],
        [named.declined.identifier, 1],
      ],
    );
  });

  withModels('search: retention and erasure take their rows out of the index', async (t, m) => {
    const { a, named, search } = await seed(m);
    const r = recorded();
    await m.stores.auditEvents.commit([r], (_r, w) =>
      w.expire({
        project_id: a,
        cutoff: Date.parse(named.deleted.timestamp),
        through: r.position,
        until: null,
        before: Date.parse(named.deleted.timestamp),
      }),
    );
    t.deepEqual(await search('declined'), ['deleted']);
    const e = recorded();
    await m.stores.auditEvents.commit([e], (_r, w) => w.erase(a, named.deleted.identifier, e.position));
    t.deepEqual(await search('john'), [], 'the erased form has no e-mail');
    t.deepEqual(await search('-john'), ['deleted', 'ordersList', 'other', 'noEmail']);
  });
};
