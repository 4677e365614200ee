import type { Db } from 'mongodb';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../domain/page.ts';
import type { ErasureView, PendingErasure, ProjectRetention, RetentionQueries, RetentionWriter } from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

const RETENTION = 'retention';
const ERASURES = 'erasures';

/** One document per project, keyed by the project id. The totals are increments: a replayed
 *  batch would count twice, so each increment is guarded by the event's position. */
interface RetentionDoc {
  _id: string;
  retention_days: number | null;
  updated_at: string;
  last_applied_at: string | null;
  last_cutoff: string | null;
  removed_total: number;
  erased_total: number;
  applied_through?: number;
}

/** One document per erasure request, keyed by its id; `request_position` is the job's. */
interface ErasureDoc extends Omit<ErasureView, 'id'> {
  _id: string;
  request_position: string;
}

const retentionMongoSchema: MongoSchema = {
  version: 2,
  collections: [RETENTION, ERASURES],
  async ensureIndexes(db) {
    await db.collection(RETENTION).createIndexes([{ key: { retention_days: 1 } }]);
    await db
      .collection(ERASURES)
      .createIndexes([
        { key: { project_id: 1, requested_at: -1, _id: -1 } },
        { key: { requested_at: 1, _id: 1 }, partialFilterExpression: { status: 'pending' } },
      ]);
  },
};

const erasureView = ({ _id, request_position: _, ...rest }: ErasureDoc): ErasureView => ({ id: _id, ...rest });

const EMPTY = {
  retention_days: null,
  updated_at: '',
  last_applied_at: null,
  last_cutoff: null,
  removed_total: 0,
  erased_total: 0,
};

/** An increment of the project's totals, once per log position. */
const counted = (
  ops: BulkOps,
  projectId: string,
  position: number,
  set: Partial<RetentionDoc>,
  inc: { removed_total?: number; erased_total?: number },
) => {
  const { retention_days, updated_at, last_applied_at, last_cutoff, removed_total, erased_total } = EMPTY;
  ops.add(RETENTION, {
    updateOne: {
      filter: { _id: projectId },
      update: {
        $setOnInsert: { retention_days, updated_at, last_applied_at, last_cutoff, removed_total, erased_total },
      },
      upsert: true,
    },
  });
  ops.add(RETENTION, {
    updateOne: {
      filter: {
        _id: projectId,
        $or: [{ applied_through: { $exists: false } }, { applied_through: { $lt: position } }],
      },
      update: { $set: { ...set, applied_through: position }, $inc: inc },
    },
  });
};

const mongoRetentionWriter = (ops: BulkOps): RetentionWriter => ({
  retentionSet(projectId, retentionDays, at) {
    ops.add(RETENTION, {
      updateOne: {
        filter: { _id: projectId },
        update: {
          $set: { retention_days: retentionDays, updated_at: at },
          $setOnInsert: { last_applied_at: null, last_cutoff: null, removed_total: 0, erased_total: 0 },
        },
        upsert: true,
      },
    });
  },
  retentionApplied(projectId, cutoff, removed, at, position) {
    counted(ops, projectId, Number(position), { last_applied_at: at, last_cutoff: cutoff }, { removed_total: removed });
  },
  // Both are idempotent as they stand (an insert once, a $set of the same values), so a replayed
  // batch changes nothing.
  erasureRequested({ id, ...request }, position) {
    const doc: Omit<ErasureDoc, '_id'> = {
      ...request,
      status: 'pending',
      request_position: position,
      erased: null,
      erased_at: null,
    };
    ops.add(ERASURES, { updateOne: { filter: { _id: id }, update: { $setOnInsert: doc }, upsert: true } });
  },
  identifierErased(projectId, erased, position, done) {
    counted(ops, projectId, Number(position), {}, { erased_total: erased });
    if (done)
      ops.add(ERASURES, {
        updateOne: {
          filter: { _id: done.erasure_id },
          update: { $set: { status: 'done', erased, erased_at: done.erased_at } },
        },
      });
  },
});

class MongoRetentionQueries implements RetentionQueries {
  constructor(private readonly db: Db) {}

  async retentionOf(projectId: string): Promise<ProjectRetention | null> {
    const doc = await this.db.collection<RetentionDoc>(RETENTION).findOne({ _id: projectId });
    if (!doc) return null;
    const { _id, applied_through: _, ...rest } = doc;
    return { project_id: _id, ...rest };
  }

  async limited(): Promise<Array<{ project_id: string; retention_days: number }>> {
    const docs = await this.db
      .collection<RetentionDoc>(RETENTION)
      .find({ retention_days: { $ne: null } })
      .sort({ _id: 1 })
      .toArray();
    return docs.map((d) => ({ project_id: d._id, retention_days: d.retention_days as number }));
  }

  async erasure(projectId: string, erasureId: string): Promise<ErasureView | null> {
    const doc = await this.db.collection<ErasureDoc>(ERASURES).findOne({ _id: erasureId, project_id: projectId });
    return doc && erasureView(doc);
  }

  async erasures(projectId: string, page: PageRequest): Promise<Page<ErasureView>> {
    const erasures = this.db.collection<ErasureDoc>(ERASURES);
    const [total, docs] = await Promise.all([
      erasures.countDocuments({ project_id: projectId }),
      erasures
        .find({ project_id: projectId })
        .sort({ requested_at: -1, _id: -1 })
        .skip(offsetOf(page))
        .limit(page.limit)
        .toArray(),
    ]);
    return pageOf(docs.map(erasureView), page, total);
  }

  async pendingErasures(): Promise<PendingErasure[]> {
    const docs = await this.db
      .collection<ErasureDoc>(ERASURES)
      .find({ status: 'pending' })
      .sort({ requested_at: 1, _id: 1 })
      .toArray();
    return docs.map((d) => ({ erasure_id: d._id, project_id: d.project_id, request_position: d.request_position }));
  }
}

export const mongoRetention: MongoReadModel<RetentionWriter, RetentionQueries> = {
  schema: retentionMongoSchema,
  batchWriter: () => mongoRetentionWriter,
  queries: (db) => new MongoRetentionQueries(db),
};
