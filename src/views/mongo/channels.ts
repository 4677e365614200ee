import type { Db, Document } from 'mongodb';
import type { ChannelTarget } from '../../domain/channel.ts';
import {
  inScope, projectsInScope,
  type ChannelView, type ChannelsQueries, type ChannelsWriter, type DeliveriesQueries, type DeliveriesWriter, type DeliveryRecord, type Scope,
} from '../ports.ts';
import type { BulkOps, MongoSchema } from './store.ts';

/** Channels keyed by id (the target beside the view, never returned by queries) and deliveries
 *  keyed by event and channel; every write is an idempotent upsert or a keyed update. */
type ChannelDoc = Omit<ChannelView, 'id'> & { _id: string; target: ChannelTarget };
type DeliveryDoc = DeliveryRecord & { _id: string };

export const channelsMongoSchema: MongoSchema = {
  version: 1,
  collections: ['channels'],
  async ensureIndexes(db) {
    await db.collection('channels').createIndexes([{ key: { project_id: 1, created_at: 1 } }]);
  },
};

export const deliveriesMongoSchema: MongoSchema = {
  version: 1,
  collections: ['deliveries'],
  async ensureIndexes(db) {
    await db.collection('deliveries').createIndexes([{ key: { event_id: 1 } }]);
  },
};

const toView = ({ _id, target: _, ...rest }: ChannelDoc): ChannelView => ({ id: _id, ...rest });

export const mongoChannelsWriter = (ops: BulkOps): ChannelsWriter => ({
  created: ({ id, ...view }, target) =>
    ops.add('channels', { updateOne: { filter: { _id: id }, update: { $setOnInsert: { ...view, target } }, upsert: true } }),
  updated: (id, changes, updatedAt) => ops.add('channels', {
    updateOne: { filter: { _id: id }, update: { $set: { ...changes, updated_at: updatedAt, ...(changes.active === true ? { deactivated_reason: null } : {}) } } },
  }),
  deactivated: (id, reason, at) =>
    ops.add('channels', { updateOne: { filter: { _id: id }, update: { $set: { active: false, deactivated_reason: reason, updated_at: at } } } }),
  deleted: (id) => ops.add('channels', { deleteOne: { filter: { _id: id } } }),
});

export const mongoDeliveriesWriter = (ops: BulkOps): DeliveriesWriter => ({
  recorded: (d) => ops.add('deliveries', {
    updateOne: { filter: { _id: JSON.stringify([d.event_id, d.channel_id]) }, update: { $setOnInsert: d }, upsert: true },
  }),
});

export class MongoChannelsQueries implements ChannelsQueries {
  constructor(private readonly db: Db) {}

  async list(scope: Scope, projectId?: string): Promise<ChannelView[]> {
    const projects = projectsInScope(scope, projectId);
    if (projects !== null && projects.length === 0) return [];
    const filter: Document = projects === null ? {} : { project_id: { $in: projects } };
    return (await this.db.collection<ChannelDoc>('channels').find(filter).sort({ created_at: 1, _id: 1 }).toArray()).map(toView);
  }

  async get(id: string, scope: Scope): Promise<ChannelView | null> {
    const doc = await this.db.collection<ChannelDoc>('channels').findOne({ _id: id });
    return doc && inScope(scope, doc.project_id) ? toView(doc) : null;
  }

  async targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<Array<{ id: string; target: ChannelTarget }>> {
    const docs = await this.db.collection<ChannelDoc>('channels').find({ project_id: projectId, active: true, events: kind }).sort({ created_at: 1, _id: 1 }).toArray();
    return docs.map((d) => ({ id: d._id, target: d.target }));
  }
}

export class MongoDeliveriesQueries implements DeliveriesQueries {
  constructor(private readonly db: Db) {}
  async handled(eventId: string): Promise<Set<string>> {
    return new Set((await this.forEvent(eventId)).map((d) => d.channel_id));
  }
  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    const docs = await this.db.collection<DeliveryDoc>('deliveries').find({ event_id: eventId }).sort({ channel_id: 1 }).toArray();
    return docs.map(({ _id: _, ...d }) => d);
  }
}
