import type { Db, Filter, FindCursor, Sort } from 'mongodb';
import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import type { SessionActivity, SessionEvents } from '../../domain/sessions.ts';
import { inScope, projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import { bucketOf, type StatsBucket } from '../../domain/stats.ts';
import { eraseAuditEvent, type RedactableQuery, type RowRef } from '../../domain/retention.ts';
import type {
  AuditListItemWithBody,
  AuditListOptions,
  AuditEventsQueries,
  AuditEventsWriter,
  AuditFilter,
  AuditListItem,
  AuditListQuery,
  StatsEventsFilter,
} from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { searchTextOf } from '../../domain/search.ts';
import { SEARCH_INDEX, searchFilterOf } from './mongo-search.ts';
import { inProjects, type BulkOps, type Keyed, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** The audit-events read model in MongoDB: the list fields as top-level fields (filters, sorts,
 *  indexes) and the full event as a JSON string in `doc`, since senders' bodies may hold keys
 *  MongoDB treats specially (`$…`, dots). `_id` is the event id, so replays are no-ops. */
type AuditDoc = Omit<AuditListItem, 'id' | 'timestamp'> & {
  _id: string;
  position: number;
  ts: number;
  session_id: string | null;
  tenant_id: string | null;
  /** What search finds the event by (mongo-search.ts). */
  search_text: string;
  doc: string;
};

const COLLECTION = 'audit_events';
const EXPORT_BATCH = 1000;

/** Equality filters of the dashboard, each with an index in time order. */
const TIME_ORDERED_FILTERS = [
  'service_name',
  'method',
  'status_code',
  'environment',
  'identifier',
  'event_type',
  'tenant_id',
] as const;

const SORT_FIELD: Record<AuditListQuery['sort_by'], keyof AuditDoc> = {
  timestamp: 'ts',
  status_code: 'status_code',
  response_time: 'response_time',
  path: 'path',
  method: 'method',
  service_name: 'service_name',
  identifier: 'identifier',
  environment: 'environment',
};

/** Sortable fields besides the timestamp, each with an index in its order. */
const SORTED_FIELDS = Object.values(SORT_FIELD).filter((field) => field !== 'ts');

/** Every list sorts by one field and then `position` (the tie-breaker, as in SQLite), so each
 *  index below carries, after its equality fields, the whole sort; a page is then read in index
 *  order (walked backwards for the other direction) and never sorted in memory:
 *  - time order (the default sort, the export): {ts, position} for every project, and
 *    {project_id, ts, position} for a project (for a list of projects the planner merges one
 *    ordered scan per project);
 *  - an equality filter in time order: {project_id, F, ts, position} for each of the dashboard's
 *    filters (they also answer the page's count). With two filters, one index finds the events in
 *    order and the other filter is checked on them. `path` is filtered only together with
 *    event_type system.alert (the anomalies list), whose index serves it;
 *  - a project sorted by another field: {project_id, F, position} for each sortable field.
 *  Not served, to keep one index per filter and one per sort: sorting by a field other than the
 *  time across all projects, or together with a filter on another field (the filter's index finds
 *  the events and they are sorted). A path prefix is a range of {project_id, path, position}.
 *  Version 4 added the tenant and the search text (and its index): a database of an earlier
 *  version is rebuilt from the log when it opens. */
const auditEventsMongoSchema: MongoSchema = {
  version: 4,
  collections: [COLLECTION],
  async ensureIndexes(db) {
    await db
      .collection(COLLECTION)
      .createIndexes([
        { key: { ts: -1, position: -1 } },
        { key: { project_id: 1, ts: -1, position: -1 } },
        ...TIME_ORDERED_FILTERS.map((field) => ({ key: { project_id: 1, [field]: 1, ts: -1, position: -1 } })),
        ...SORTED_FIELDS.map((field) => ({ key: { project_id: 1, [field]: 1, position: 1 } })),
        { key: { session_id: 1, ts: 1, position: 1 }, partialFilterExpression: { session_id: { $type: 'string' } } },
        SEARCH_INDEX,
      ]);
  },
};

const auditDocOf = (e: StoredAuditEvent, position: number): AuditDoc => ({
  _id: e.id,
  position,
  project_id: e.project_id,
  event_type: e.event_type,
  method: e.method,
  path: e.path,
  status_code: e.status_code ?? null,
  response_time: e.response_time ?? null,
  identifier: e.identifier,
  user_email: e.user_email ?? null,
  service_name: e.service_name,
  environment: e.environment,
  session_id: e.session_id ?? null,
  tenant_id: e.tenant_id ?? null,
  search_text: searchTextOf(e),
  ts: Date.parse(e.timestamp),
  doc: JSON.stringify(e),
});

/** Rows after `after` in (ts, position) order. */
const afterRow = (after: RowRef): Filter<AuditDoc> => ({
  $or: [{ ts: { $gt: after.ts } }, { ts: after.ts, position: { $gt: Number(after.position) } }],
});

const mongoAuditEventsWriter = (ops: BulkOps): AuditEventsWriter => ({
  record(e: StoredAuditEvent, position: string) {
    ops.add(COLLECTION, {
      updateOne: { filter: { _id: e.id }, update: { $setOnInsert: auditDocOf(e, Number(position)) }, upsert: true },
    });
  },
  expire({ project_id, cutoff, through, until }) {
    const filter: Filter<Keyed> = { project_id, ts: { $lt: cutoff }, position: { $lte: Number(through) } };
    if (until) filter.$nor = [afterRow(until) as Filter<Keyed>];
    ops.add(COLLECTION, { deleteMany: { filter } });
  },
  // The event is kept whole in `doc`, which an update cannot rewrite: the rows are read after the
  // batch's writes (those of this batch included) and replaced one by one. A replay finds them
  // erased already and writes the same.
  erase(projectId, identifier, through) {
    ops.defer(async (db, fence) => {
      const rows = db
        .collection<AuditDoc>(COLLECTION)
        .find({ project_id: projectId, identifier, position: { $lte: Number(through) } });
      for await (const row of rows) {
        const { _id, ...erased } = auditDocOf(eraseAuditEvent(JSON.parse(row.doc) as StoredAuditEvent), row.position);
        await db.collection<AuditDoc>(COLLECTION).updateOne(fence.filter({ _id }), fence.update({ $set: erased }));
      }
    });
  },
});

/** The query for a filter within a scope; null when the scope excludes everything asked for. */
const toFilter = (f: AuditFilter, scope: Scope): Filter<AuditDoc> | null => {
  const projects = projectsInScope(scope, f.project_id);
  if (seesNothing(projects)) return null;
  const q: Filter<AuditDoc> = { ...inProjects(projects), ...searchFilterOf(f) };
  for (const key of ['service_name', 'path', 'method', 'environment', 'identifier', 'event_type'] as const) {
    if (f[key] !== undefined) q[key] = f[key];
  }
  if (f.status_code !== undefined) q.status_code = f.status_code;
  if (f.start_date !== undefined || f.end_date !== undefined) {
    q.ts = {
      ...(f.start_date === undefined ? {} : { $gte: Date.parse(f.start_date) }),
      ...(f.end_date === undefined ? {} : { $lte: Date.parse(f.end_date) }),
    };
  }
  return q;
};

/** The find of a list page and its filter (for the count); null when the scope excludes
 *  everything asked for. The contract suite explains this cursor to check that an index serves
 *  the sort. */
export const auditListCursor = (
  db: Db,
  q: AuditListQuery,
  scope: Scope,
  options: AuditListOptions = {},
): { cursor: FindCursor<AuditDoc>; filter: Filter<AuditDoc> } | null => {
  const filter = toFilter(q, scope);
  if (!filter) return null;
  const dir = q.sort_order === 'asc' ? 1 : -1;
  const sort: Sort = { [SORT_FIELD[q.sort_by]]: dir, position: dir };
  const cursor = db
    .collection<AuditDoc>(COLLECTION)
    .find(filter, { projection: options.withRequestBody ? { search_text: 0 } : { doc: 0, search_text: 0 } })
    .sort(sort)
    .skip(offsetOf(q))
    .limit(q.limit);
  return { cursor, filter };
};

class MongoAuditEventsQueries implements AuditEventsQueries {
  constructor(private readonly db: Db) {}

  async list(q: AuditListQuery, scope: Scope, options: AuditListOptions = {}): Promise<Page<AuditListItemWithBody>> {
    const page = auditListCursor(this.db, q, scope, options);
    if (!page) return emptyPage(q);
    const [rows, total] = await Promise.all([
      page.cursor.toArray(),
      this.db.collection<AuditDoc>(COLLECTION).countDocuments(page.filter),
    ]);
    return pageOf(
      rows.map((r) => ({
        id: r._id,
        project_id: r.project_id,
        event_type: r.event_type,
        method: r.method,
        path: r.path,
        status_code: r.status_code,
        response_time: r.response_time,
        identifier: r.identifier,
        user_email: r.user_email,
        service_name: r.service_name,
        environment: r.environment,
        timestamp: new Date(r.ts).toISOString(),
        ...(options.withRequestBody
          ? { request_body: (JSON.parse(r.doc) as StoredAuditEvent).request_body ?? null }
          : {}),
      })),
      q,
      total,
    );
  }

  async sessionEvents(sessionId: string, scope: Scope, limit: number): Promise<SessionEvents> {
    const projects = projectsInScope(scope);
    if (seesNothing(projects)) return { total: 0, lastTimestamp: null, events: [] };
    const filter: Filter<AuditDoc> = { session_id: sessionId, ...inProjects(projects) };
    const collection = this.db.collection<AuditDoc>(COLLECTION);
    const [rows, total, last] = await Promise.all([
      collection
        .find(filter, { projection: { method: 1, path: 1, status_code: 1, ts: 1, identifier: 1, service_name: 1 } })
        .sort({ ts: 1, position: 1 })
        .limit(limit)
        .toArray(),
      collection.countDocuments(filter),
      collection.findOne(filter, { projection: { ts: 1 }, sort: { ts: -1 } }),
    ]);
    return {
      total,
      lastTimestamp: last ? new Date(last.ts).toISOString() : null,
      events: rows.map((r) => ({
        id: r._id,
        method: r.method,
        path: r.path,
        status_code: r.status_code,
        timestamp: new Date(r.ts).toISOString(),
        identifier: r.identifier,
        service_name: r.service_name,
      })),
    };
  }

  async sessionActivity(filter: AuditFilter, scope: Scope, limit: number): Promise<SessionActivity[]> {
    const query = toFilter({ ...filter, event_type: 'http' }, scope);
    if (!query) return [];
    return this.db
      .collection<AuditDoc>(COLLECTION)
      .find(query, { projection: { _id: 0, project_id: 1, identifier: 1, service_name: 1, ts: 1 } })
      .sort({ ts: -1, position: -1 })
      .limit(limit)
      .toArray();
  }

  /** Served by the (project_id, event_type, ts) index, or (ts) for every project. */
  async statsContributions(f: StatsEventsFilter, scope: Scope): Promise<StatsBucket[]> {
    const projects = projectsInScope(scope, f.project_id);
    if (seesNothing(projects)) return [];
    const query: Filter<AuditDoc> = {
      ...inProjects(projects),
      ...searchFilterOf(f),
      event_type: 'http',
      ts: { $gte: f.from, $lte: f.to },
    };
    if (f.service_name !== undefined) query.service_name = f.service_name;
    if (f.path !== undefined) query.path = f.path;
    if (f.environment !== undefined) query.environment = f.environment;
    if (f.identifier !== undefined) query.identifier = f.identifier;
    const rows = await this.db
      .collection<AuditDoc>(COLLECTION)
      .find(query, {
        projection: {
          _id: 0,
          project_id: 1,
          service_name: 1,
          environment: 1,
          method: 1,
          status_code: 1,
          response_time: 1,
          ts: 1,
        },
      })
      .toArray();
    return rows.map((r) =>
      bucketOf({
        project_id: r.project_id,
        service_name: r.service_name,
        environment: r.environment,
        method: r.method,
        status_code: r.status_code ?? undefined,
        response_time: r.response_time ?? undefined,
        timestamp: new Date(r.ts).toISOString(),
      }),
    );
  }

  async count(filter: AuditFilter, scope: Scope): Promise<number> {
    const query = toFilter(filter, scope);
    return query ? this.db.collection<AuditDoc>(COLLECTION).countDocuments(query) : 0;
  }

  async *exportBatches(filter: AuditFilter, scope: Scope, limit: number): AsyncIterable<StoredAuditEvent[]> {
    const query = toFilter(filter, scope);
    if (!query || limit <= 0) return;
    const cursor = this.db
      .collection<AuditDoc>(COLLECTION)
      .find(query, { projection: { doc: 1 } })
      .sort({ ts: -1, position: -1 })
      .limit(limit)
      .batchSize(EXPORT_BATCH);
    let batch: StoredAuditEvent[] = [];
    try {
      for await (const row of cursor) {
        batch.push(JSON.parse(row.doc) as StoredAuditEvent);
        if (batch.length === EXPORT_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      await cursor.close();
    }
  }

  async get(id: string, scope: Scope): Promise<StoredAuditEvent | null> {
    const row = await this.db
      .collection<AuditDoc>(COLLECTION)
      .findOne({ _id: id }, { projection: { project_id: 1, doc: 1 } });
    if (!row || !inScope(scope, row.project_id)) return null;
    return JSON.parse(row.doc) as StoredAuditEvent;
  }

  /** Served by {project_id, ts, position}, or {project_id, identifier, ts, position}, read backwards. */
  async redactable(q: RedactableQuery, after: RowRef | null, limit: number): Promise<RowRef[]> {
    const filter: Filter<AuditDoc> = { project_id: q.project_id, position: { $lte: Number(q.through) } };
    if (q.identifier !== undefined) filter.identifier = q.identifier;
    if (q.before !== undefined) filter.ts = { $lt: q.before };
    if (after) Object.assign(filter, afterRow(after));
    const rows = await this.db
      .collection<AuditDoc>(COLLECTION)
      .find(filter, { projection: { ts: 1, position: 1 } })
      .sort({ ts: 1, position: 1 })
      .limit(limit)
      .toArray();
    return rows.map((r) => ({ ts: r.ts, position: String(r.position) }));
  }
}

export const mongoAuditEvents: MongoReadModel<AuditEventsWriter, AuditEventsQueries> = {
  schema: auditEventsMongoSchema,
  batchWriter: () => mongoAuditEventsWriter,
  queries: (db) => new MongoAuditEventsQueries(db),
};
