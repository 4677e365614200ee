import { ERASED_IDENTIFIER } from '../../domain/retention.ts';
import type { Db, Document } from 'mongodb';
import { ORPHAN_WINDOW_MS } from '../../domain/orphans.ts';
import { projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { AuditListItem } from '../audit-events/port.ts';
import type { OrphansQueries, OrphansQuery, OrphansWriter } from './port.ts';
import { emptyPage, offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { inProjects, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Orphans in MongoDB: browser events no backend event has matched yet, keyed by event id (a
 *  match deletes one; a browser event that arrives after its backend event is not written), and
 *  backend request times keyed by their content. Every write is an idempotent upsert or delete,
 *  applied in log order at the end of the batch (pairing reads what earlier events of the batch
 *  wrote), so a replayed batch ends as the first run did. */
interface BrowserDoc {
  _id: string;
  project_id: string;
  request_id: string;
  service_name: string;
  ts: number;
  item: AuditListItem;
}
interface BackendDoc {
  _id: string;
  project_id: string;
  request_id: string;
  ts: number;
}

const orphansMongoSchema: MongoSchema = {
  version: 2,
  collections: ['browser_requests', 'backend_requests'],
  async ensureIndexes(db) {
    await db
      .collection('browser_requests')
      .createIndexes([{ key: { project_id: 1, request_id: 1 } }, { key: { project_id: 1, ts: -1 } }]);
    await db.collection('backend_requests').createIndexes([{ key: { project_id: 1, request_id: 1, ts: 1 } }]);
  },
};

const mongoOrphansWriter = (ops: BulkOps): OrphansWriter => {
  return {
    browserEvent(item, requestId) {
      ops.defer(async (db) => {
        const ts = Date.parse(item.timestamp);
        const near = await db.collection<BackendDoc>('backend_requests').findOne({
          project_id: item.project_id,
          request_id: requestId,
          ts: { $gte: ts - ORPHAN_WINDOW_MS, $lte: ts + ORPHAN_WINDOW_MS },
        });
        if (near !== null) return;
        await db.collection<BrowserDoc>('browser_requests').updateOne(
          { _id: item.id },
          {
            $setOnInsert: {
              project_id: item.project_id,
              request_id: requestId,
              service_name: item.service_name,
              ts,
              item,
            },
          },
          { upsert: true },
        );
      });
    },
    backendEvent(projectId, requestId, ts) {
      ops.defer(async (db) => {
        await db
          .collection<BackendDoc>('backend_requests')
          .updateOne(
            { _id: JSON.stringify([projectId, requestId, ts]) },
            { $setOnInsert: { project_id: projectId, request_id: requestId, ts } },
            { upsert: true },
          );
        await db.collection<BrowserDoc>('browser_requests').deleteMany({
          project_id: projectId,
          request_id: requestId,
          ts: { $gte: ts - ORPHAN_WINDOW_MS, $lte: ts + ORPHAN_WINDOW_MS },
        });
      });
    },
    expire({ project_id, before }) {
      ops.defer(async (db) => {
        await db.collection<BrowserDoc>('browser_requests').deleteMany({ project_id, ts: { $lt: before } });
        await db.collection<BackendDoc>('backend_requests').deleteMany({ project_id, ts: { $lt: before } });
      });
    },
    erase(projectId, identifier) {
      ops.defer(async (db) => {
        await db
          .collection<BrowserDoc>('browser_requests')
          .updateMany(
            { project_id: projectId, 'item.identifier': identifier },
            { $set: { 'item.identifier': ERASED_IDENTIFIER, 'item.user_email': null } },
          );
      });
    },
  };
};

class MongoOrphansQueries implements OrphansQueries {
  constructor(private readonly db: Db) {}

  async list(q: OrphansQuery, scope: Scope): Promise<Page<AuditListItem & { request_id: string }>> {
    const projects = projectsInScope(scope, q.project_id);
    if (seesNothing(projects)) return emptyPage(q);
    const ts: Document = { $lte: q.settledBefore };
    if (q.start_date !== undefined) ts.$gte = Date.parse(q.start_date);
    if (q.end_date !== undefined) ts.$lte = Math.min(q.settledBefore, Date.parse(q.end_date));
    const filter: Document = { ts, ...inProjects(projects) };
    if (q.service_name !== undefined) filter.service_name = q.service_name;
    const collection = this.db.collection<BrowserDoc>('browser_requests');
    const [rows, n] = await Promise.all([
      collection.find(filter).sort({ ts: -1, _id: 1 }).skip(offsetOf(q)).limit(q.limit).toArray(),
      collection.countDocuments(filter),
    ]);
    return pageOf(
      rows.map((r) => ({ ...r.item, request_id: r.request_id })),
      q,
      n,
    );
  }
}

export const mongoOrphans: MongoReadModel<OrphansWriter, OrphansQueries> = {
  schema: orphansMongoSchema,
  batchWriter: () => mongoOrphansWriter,
  queries: (db) => new MongoOrphansQueries(db),
};
