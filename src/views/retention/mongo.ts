import type { Db } from 'mongodb';
import type { ProjectRetention, RetentionQueries, RetentionWriter } from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

const RETENTION = 'retention';

/** One document per project, keyed by the project id. The totals are increments: a replayed
 *  batch would count twice, so each increment is guarded by the event's position. */
interface RetentionDoc {
  _id: string; retention_days: number | null; updated_at: string; last_applied_at: string | null; last_cutoff: string | null;
  removed_total: number; erased_total: number; applied_through?: number;
}

const retentionMongoSchema: MongoSchema = {
  version: 1,
  collections: [RETENTION],
  async ensureIndexes(db) {
    await db.collection(RETENTION).createIndexes([{ key: { retention_days: 1 } }]);
  },
};

const EMPTY = { retention_days: null, updated_at: '', last_applied_at: null, last_cutoff: null, removed_total: 0, erased_total: 0 };

/** An increment of the project's totals, once per log position. */
const counted = (
  ops: BulkOps, projectId: string, position: number, set: Partial<RetentionDoc>, inc: { removed_total?: number; erased_total?: number },
) => {
  const { retention_days, updated_at, last_applied_at, last_cutoff, removed_total, erased_total } = EMPTY;
  ops.add(RETENTION, {
    updateOne: {
      filter: { _id: projectId },
      update: { $setOnInsert: { retention_days, updated_at, last_applied_at, last_cutoff, removed_total, erased_total } },
      upsert: true,
    },
  });
  ops.add(RETENTION, {
    updateOne: {
      filter: { _id: projectId, $or: [{ applied_through: { $exists: false } }, { applied_through: { $lt: position } }] },
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
  identifierErased(projectId, erased, position) {
    counted(ops, projectId, Number(position), {}, { erased_total: erased });
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
    const docs = await this.db.collection<RetentionDoc>(RETENTION).find({ retention_days: { $ne: null } }).sort({ _id: 1 }).toArray();
    return docs.map((d) => ({ project_id: d._id, retention_days: d.retention_days as number }));
  }
}

export const mongoRetention: MongoReadModel<RetentionWriter, RetentionQueries> = {
  schema: retentionMongoSchema,
  batchWriter: () => mongoRetentionWriter,
  queries: (db) => new MongoRetentionQueries(db),
};
