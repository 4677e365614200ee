import type { Db } from 'mongodb';
import type { SinkTarget } from '../../domain/sink.ts';
import type { SinkRow, SinkView, SinksQueries, SinksWriter } from './port.ts';
import { TOMBSTONE, live, unfenced, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Sinks keyed by id (the target beside the view, never returned by the API's queries); every
 *  write is an idempotent upsert or a keyed update. */
const SINKS = 'sinks';

type SinkDoc = Omit<SinkView, 'id'> & { _id: string; target: SinkTarget; created_position: string };

const sinksMongoSchema: MongoSchema = {
  version: 1,
  collections: [SINKS],
  async ensureIndexes(db) {
    await db.collection(SINKS).createIndexes([{ key: { project_id: 1, created_at: 1 } }]);
  },
};

const toView = (doc: SinkDoc): SinkView => {
  const { _id, target: _t, created_position: _p, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const mongoSinksWriter = (ops: BulkOps): SinksWriter => {
  const set = (id: string, fields: Partial<SinkView>) =>
    ops.add(SINKS, { updateOne: { filter: { _id: id }, update: { $set: fields } } });
  return {
    created: ({ id, ...view }, target, position) =>
      ops.add(SINKS, {
        updateOne: {
          filter: { _id: id },
          update: { $setOnInsert: { ...view, target, created_position: position } },
          upsert: true,
        },
      }),
    updated: (id, changes, updatedAt) => set(id, { ...changes, updated_at: updatedAt }),
    degraded: (id, reason, at) => set(id, { degraded: true, degraded_reason: reason, degraded_since: at }),
    recovered: (id) => set(id, { degraded: false, degraded_reason: null, degraded_since: null }),
    deleted: (id) => ops.add(SINKS, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
  };
};

class MongoSinksQueries implements SinksQueries {
  constructor(private readonly db: Db) {}
  private get sinks() {
    return this.db.collection<SinkDoc>(SINKS);
  }
  async list(projectId: string): Promise<SinkView[]> {
    return (
      await this.sinks
        .find(live({ project_id: projectId }))
        .sort({ created_at: 1, _id: 1 })
        .toArray()
    ).map(toView);
  }
  async get(projectId: string, id: string): Promise<SinkView | null> {
    const doc = await this.sinks.findOne(live({ _id: id, project_id: projectId }));
    return doc ? toView(doc) : null;
  }
  async all(): Promise<SinkRow[]> {
    const docs = await this.sinks.find(live({})).sort({ created_at: 1, _id: 1 }).toArray();
    return docs.map((doc) => ({ view: toView(doc), target: doc.target, created_position: doc.created_position }));
  }
}

export const mongoSinks: MongoReadModel<SinksWriter, SinksQueries> = {
  schema: sinksMongoSchema,
  batchWriter: () => mongoSinksWriter,
  queries: (db) => new MongoSinksQueries(db),
};
