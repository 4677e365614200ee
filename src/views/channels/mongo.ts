import type { Db } from 'mongodb';
import type { ChannelTarget } from '../../domain/channel.ts';
import { inScope, projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { ChannelView, ChannelsQueries, ChannelsWriter } from './port.ts';
import { TOMBSTONE, inProjects, live, unfenced, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Channels keyed by id (the target beside the view, never returned by queries); every write is
 *  an idempotent upsert or a keyed update. */
const CHANNELS = 'channels';

type ChannelDoc = Omit<ChannelView, 'id'> & { _id: string; target: ChannelTarget };

const channelsMongoSchema: MongoSchema = {
  version: 1,
  collections: [CHANNELS],
  async ensureIndexes(db) {
    await db.collection(CHANNELS).createIndexes([{ key: { project_id: 1, created_at: 1 } }]);
  },
};

const toView = (doc: ChannelDoc): ChannelView => {
  const { _id, target: _, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const mongoChannelsWriter = (ops: BulkOps): ChannelsWriter => ({
  created: ({ id, ...view }, target) =>
    ops.add(CHANNELS, { updateOne: { filter: { _id: id }, update: { $setOnInsert: { ...view, target } }, upsert: true } }),
  updated: (id, changes, updatedAt) => ops.add(CHANNELS, {
    updateOne: { filter: { _id: id }, update: { $set: { ...changes, updated_at: updatedAt, ...(changes.active === true ? { deactivated_reason: null } : {}) } } },
  }),
  deactivated: (id, reason, at) =>
    ops.add(CHANNELS, { updateOne: { filter: { _id: id }, update: { $set: { active: false, deactivated_reason: reason, updated_at: at } } } }),
  deleted: (id) => ops.add(CHANNELS, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
});

class MongoChannelsQueries implements ChannelsQueries {
  constructor(private readonly db: Db) {}

  async list(scope: Scope, projectId?: string): Promise<ChannelView[]> {
    const projects = projectsInScope(scope, projectId);
    if (seesNothing(projects)) return [];
    return (await this.db.collection<ChannelDoc>(CHANNELS).find(live(inProjects(projects))).sort({ created_at: 1, _id: 1 }).toArray()).map(toView);
  }

  async get(id: string, scope: Scope): Promise<ChannelView | null> {
    const doc = await this.db.collection<ChannelDoc>(CHANNELS).findOne(live({ _id: id }));
    return doc && inScope(scope, doc.project_id) ? toView(doc) : null;
  }

  async targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<Array<{ id: string; target: ChannelTarget }>> {
    const docs = await this.db.collection<ChannelDoc>(CHANNELS).find(live({ project_id: projectId, active: true, events: kind })).sort({ created_at: 1, _id: 1 }).toArray();
    return docs.map((d) => ({ id: d._id, target: d.target }));
  }
}

export const mongoChannels: MongoReadModel<ChannelsWriter, ChannelsQueries> = {
  schema: channelsMongoSchema,
  batchWriter: () => mongoChannelsWriter,
  queries: (db) => new MongoChannelsQueries(db),
};
