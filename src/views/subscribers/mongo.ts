import type { Db } from 'mongodb';
import { offsetOf, pageOf, type Page, type PageRequest } from '../../domain/page.ts';
import type { SubscriberStatus } from '../../domain/subscriber.ts';
import type { Recipient, SubscriberCounts, SubscriberView, SubscribersQueries, SubscribersWriter } from './port.ts';
import { ALIVE, live, unfenced, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Subscriptions keyed by id. A request sets every field a pending subscription has (bringing
 *  back one removed before) and keeps `created_at` and the last delivery; a removal sets status
 *  `removed`, which only `withEmail` reads; an erasure deletes; a delivery's
 *  status changes the subscriber's last only where its id is that one. Every write is keyed, so
 *  a batch written again lands on the same documents. */
const SUBSCRIBERS = 'subscribers';

type SubscriberDoc = Omit<SubscriberView, 'id' | 'status'> & {
  _id: string;
  status: SubscriberView['status'] | 'removed';
};

const subscribersMongoSchema: MongoSchema = {
  version: 1,
  collections: [SUBSCRIBERS],
  async ensureIndexes(db) {
    await db
      .collection(SUBSCRIBERS)
      .createIndexes([
        { key: { page_id: 1, status: 1, created_at: -1, _id: -1 } },
        { key: { page_id: 1, created_at: -1, _id: -1 } },
        { key: { project_id: 1, email: 1 } },
      ]);
  },
};

const toView = (doc: SubscriberDoc): SubscriberView => {
  const { _id, status, ...rest } = unfenced(doc);
  return {
    id: _id,
    ...rest,
    status: status === 'removed' ? 'unsubscribed' : status,
    last_delivery: rest.last_delivery ?? null,
  };
};

/** Live and not removed: what every answer but `withEmail` reads. */
const shown = <F extends Record<string, unknown>>(filter: F) =>
  live({ status: { $ne: 'removed' as const }, ...filter });

const mongoSubscribersWriter = (ops: BulkOps): SubscribersWriter => ({
  requested: ({ id, page_id, project_id, email, at }) =>
    ops.add(SUBSCRIBERS, {
      updateOne: {
        filter: { _id: id },
        update: {
          $set: {
            page_id,
            project_id,
            email,
            status: 'pending',
            updated_at: at,
            requested_at: at,
            confirmed_at: null,
            unsubscribed_at: null,
            ...ALIVE,
          },
          $setOnInsert: { created_at: at, last_delivery: null },
        },
        upsert: true,
      },
    }),
  confirmed: (id, at) =>
    ops.add(SUBSCRIBERS, {
      updateOne: {
        filter: shown({ _id: id }),
        update: { $set: { status: 'confirmed', confirmed_at: at, updated_at: at } },
      },
    }),
  unsubscribed: (id, at) =>
    ops.add(SUBSCRIBERS, {
      updateOne: {
        filter: shown({ _id: id }),
        update: { $set: { status: 'unsubscribed', unsubscribed_at: at, updated_at: at } },
      },
    }),
  removed: (id) =>
    ops.add(SUBSCRIBERS, { updateOne: { filter: live({ _id: id }), update: { $set: { status: 'removed' } } } }),
  pageDeleted: (pageId) =>
    ops.add(SUBSCRIBERS, {
      updateMany: { filter: live({ page_id: pageId }), update: { $set: { status: 'removed' } } },
    }),
  // Deleted, not a tombstone: a tombstone would keep the address. The log's records of them are
  // tombstones by now, so no replay brings them back.
  erased: (projectId, email) => ops.add(SUBSCRIBERS, { deleteMany: { filter: { project_id: projectId, email } } }),
  delivery: (subscriberId, delivery) =>
    ops.add(SUBSCRIBERS, {
      updateOne: { filter: shown({ _id: subscriberId }), update: { $set: { last_delivery: delivery } } },
    }),
  deliveryStatus: (subscriberId, deliveryId, status, at) =>
    ops.add(SUBSCRIBERS, {
      updateOne: {
        filter: shown({ _id: subscriberId, 'last_delivery.id': deliveryId }),
        update: { $set: { 'last_delivery.status': status, 'last_delivery.at': at } },
      },
    }),
});

const NEWEST_FIRST = { created_at: -1, _id: -1 } as const;

class MongoSubscribersQueries implements SubscribersQueries {
  constructor(private readonly db: Db) {}

  private get subscribers() {
    return this.db.collection<SubscriberDoc>(SUBSCRIBERS);
  }

  async list(pageId: string, request: PageRequest & { status?: SubscriberStatus }): Promise<Page<SubscriberView>> {
    const filter =
      request.status === undefined ? shown({ page_id: pageId }) : live({ page_id: pageId, status: request.status });
    const [total, docs] = await Promise.all([
      this.subscribers.countDocuments(filter),
      this.subscribers.find(filter).sort(NEWEST_FIRST).skip(offsetOf(request)).limit(request.limit).toArray(),
    ]);
    return pageOf(docs.map(toView), request, total);
  }

  async counts(pageId: string): Promise<SubscriberCounts> {
    const statuses: SubscriberStatus[] = ['pending', 'confirmed', 'unsubscribed'];
    const counts = await Promise.all(
      statuses.map((status) => this.subscribers.countDocuments(live({ page_id: pageId, status }))),
    );
    return { pending: counts[0]!, confirmed: counts[1]!, unsubscribed: counts[2]! };
  }

  async confirmed(pageIds: readonly string[]): Promise<Recipient[]> {
    const out: Recipient[] = [];
    for (const pageId of pageIds) {
      const docs = await this.subscribers
        .find(live({ page_id: pageId, status: 'confirmed' }), { projection: { _id: 1, page_id: 1, email: 1 } })
        .sort({ created_at: 1, _id: 1 })
        .toArray();
      out.push(...docs.map((d) => ({ id: d._id, page_id: d.page_id, email: d.email })));
    }
    return out;
  }

  async get(id: string): Promise<SubscriberView | null> {
    const doc = await this.subscribers.findOne(shown({ _id: id }));
    return doc ? toView(doc) : null;
  }

  async withEmail(projectId: string, email: string): Promise<string[]> {
    const docs = await this.subscribers
      .find(live({ project_id: projectId, email }), { projection: { _id: 1 } })
      .sort({ created_at: 1, _id: 1 })
      .toArray();
    return docs.map((d) => d._id);
  }
}

export const mongoSubscribers: MongoReadModel<SubscribersWriter, SubscribersQueries> = {
  schema: subscribersMongoSchema,
  batchWriter: () => mongoSubscribersWriter,
  queries: (db) => new MongoSubscribersQueries(db),
};
