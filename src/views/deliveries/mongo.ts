import type { Db } from 'mongodb';
import { offsetOf, pageOf, type Page } from '../../domain/page.ts';
import { inScope, projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { DeliveriesQueries, DeliveriesWriter, DeliveryListQuery, DeliveryView } from './port.ts';
import { inProjects, unfenced, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** The delivery log, one document per delivery keyed by its id. Every write replays onto the same
 *  document: the creation is an insert-only upsert, a try is set at its own index of `attempts`,
 *  a status is set. (Not the collection named `deliveries`: that was the notification reactor's
 *  record before this log.) */
const DELIVERY_LOG = 'delivery_log';

type DeliveryDoc = Omit<DeliveryView, 'id'> & { _id: string };

const deliveryLogMongoSchema: MongoSchema = {
  version: 1,
  collections: [DELIVERY_LOG],
  async ensureIndexes(db) {
    await db
      .collection(DELIVERY_LOG)
      .createIndexes([{ key: { channel_id: 1, created_at: -1, _id: -1 } }, { key: { event_id: 1 } }]);
  },
};

const toView = (doc: DeliveryDoc): DeliveryView => {
  const { _id, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};

const mongoDeliveriesWriter = (ops: BulkOps): DeliveriesWriter => ({
  created: ({ id, ...view }) =>
    ops.add(DELIVERY_LOG, { updateOne: { filter: { _id: id }, update: { $setOnInsert: view }, upsert: true } }),
  attempted: (id, attempt, status) =>
    ops.add(DELIVERY_LOG, {
      updateOne: {
        filter: { _id: id },
        update: { $set: { [`attempts.${attempt.attempt - 1}`]: attempt, status, updated_at: attempt.at } },
      },
    }),
  statusChanged: (id, status, reason, at) =>
    ops.add(DELIVERY_LOG, { updateOne: { filter: { _id: id }, update: { $set: { status, reason, updated_at: at } } } }),
});

class MongoDeliveriesQueries implements DeliveriesQueries {
  constructor(private readonly db: Db) {}

  private get log() {
    return this.db.collection<DeliveryDoc>(DELIVERY_LOG);
  }

  async forChannel(channelId: string, query: DeliveryListQuery, scope: Scope): Promise<Page<DeliveryView>> {
    const projects = projectsInScope(scope);
    if (seesNothing(projects)) return pageOf([], query, 0);
    const filter = {
      channel_id: channelId,
      ...inProjects(projects),
      ...(query.status === undefined ? {} : { status: query.status }),
    };
    const [total, docs] = await Promise.all([
      this.log.countDocuments(filter),
      this.log.find(filter).sort({ created_at: -1, _id: -1 }).skip(offsetOf(query)).limit(query.limit).toArray(),
    ]);
    return pageOf(docs.map(toView), query, total);
  }

  async forEvent(eventId: string, scope: Scope): Promise<DeliveryView[]> {
    return (await this.log.find({ event_id: eventId }).sort({ channel_id: 1 }).toArray())
      .map(toView)
      .filter((d) => inScope(scope, d.project_id));
  }

  async get(id: string, scope: Scope): Promise<DeliveryView | null> {
    const doc = await this.log.findOne({ _id: id });
    return doc && inScope(scope, doc.project_id) ? toView(doc) : null;
  }
}

export const mongoDeliveries: MongoReadModel<DeliveriesWriter, DeliveriesQueries> = {
  schema: deliveryLogMongoSchema,
  batchWriter: () => mongoDeliveriesWriter,
  queries: (db) => new MongoDeliveriesQueries(db),
};
