import type { Db } from 'mongodb';
import type { ChannelTarget } from '../../domain/channel.ts';
import { inScope, projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { ChannelTargetRow, ChannelView, ChannelsQueries, ChannelsWriter } from './port.ts';
import {
  TOMBSTONE,
  inProjects,
  live,
  unfenced,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Channels keyed by id (the target beside the view, never returned by queries); every write is
 *  an idempotent upsert or a keyed update. */
const CHANNELS = 'channels';

type ChannelDoc = Omit<ChannelView, 'id'> & { _id: string; target: ChannelTarget };

const channelsMongoSchema: MongoSchema = {
  version: 2,
  collections: [CHANNELS],
  async ensureIndexes(db) {
    await db
      .collection(CHANNELS)
      .createIndexes([
        { key: { project_id: 1, created_at: 1 } },
        { key: { project_scope: 1 }, partialFilterExpression: { project_scope: 'all' } },
      ]);
  },
};

const toView = (doc: ChannelDoc): ChannelView => {
  const { _id, target: _, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const toRow = (doc: ChannelDoc): ChannelTargetRow => ({ id: doc._id, target: doc.target, view: toView(doc) });

const mongoChannelsWriter = (ops: BulkOps): ChannelsWriter => {
  const set = (id: string, fields: Partial<ChannelView>) =>
    ops.add(CHANNELS, { updateOne: { filter: { _id: id }, update: { $set: fields } } });
  return {
    created: ({ id, ...view }, target) =>
      ops.add(CHANNELS, {
        updateOne: { filter: { _id: id }, update: { $setOnInsert: { ...view, target } }, upsert: true },
      }),
    updated: (id, changes, updatedAt) =>
      set(id, { ...changes, updated_at: updatedAt, ...(changes.active === true ? { deactivated_reason: null } : {}) }),
    deactivated: (id, reason, at) => set(id, { active: false, deactivated_reason: reason, updated_at: at }),
    degraded: (id, reason, at) => set(id, { degraded: true, degraded_reason: reason, degraded_since: at }),
    recovered: (id) => set(id, { degraded: false, degraded_reason: null, degraded_since: null }),
    deleted: (id) => ops.add(CHANNELS, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
  };
};

class MongoChannelsQueries implements ChannelsQueries {
  constructor(private readonly db: Db) {}

  private get channels() {
    return this.db.collection<ChannelDoc>(CHANNELS);
  }

  async list(scope: Scope, projectId?: string): Promise<ChannelView[]> {
    const projects = projectsInScope(scope, projectId);
    if (seesNothing(projects)) return [];
    const filter = scope.all ? inProjects(projects) : { ...inProjects(projects), project_scope: 'project' as const };
    return (await this.channels.find(live(filter)).sort({ created_at: 1, _id: 1 }).toArray()).map(toView);
  }

  async get(id: string, scope: Scope): Promise<ChannelView | null> {
    const doc = await this.channels.findOne(live({ _id: id }));
    // A channel for all projects is an admin's: only admins see it (and so change it).
    return doc && inScope(scope, doc.project_id) && (scope.all || doc.project_scope === 'project') ? toView(doc) : null;
  }

  async targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<ChannelTargetRow[]> {
    const filter = live({
      active: true,
      events: kind,
      $or: [{ project_id: projectId }, { project_scope: 'all' as const }],
    });
    return (await this.channels.find(filter).sort({ created_at: 1, _id: 1 }).toArray()).map(toRow);
  }

  async target(id: string): Promise<ChannelTargetRow | null> {
    const doc = await this.channels.findOne(live({ _id: id }));
    return doc ? toRow(doc) : null;
  }
}

export const mongoChannels: MongoReadModel<ChannelsWriter, ChannelsQueries> = {
  schema: channelsMongoSchema,
  batchWriter: () => mongoChannelsWriter,
  queries: (db) => new MongoChannelsQueries(db),
};
