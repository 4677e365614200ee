import type { Db } from 'mongodb';
import type { DeliveriesQueries, DeliveriesWriter, DeliveryRecord } from './port.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';

/** Deliveries keyed by event and channel: recording one twice keeps the first. */
type DeliveryDoc = DeliveryRecord & { _id: string };

const deliveriesMongoSchema: MongoSchema = {
  version: 1,
  collections: ['deliveries'],
  async ensureIndexes(db) {
    await db.collection('deliveries').createIndexes([{ key: { event_id: 1 } }]);
  },
};

const mongoDeliveriesWriter = (ops: BulkOps): DeliveriesWriter => ({
  recorded: (d) => ops.add('deliveries', {
    updateOne: { filter: { _id: JSON.stringify([d.event_id, d.channel_id]) }, update: { $setOnInsert: d }, upsert: true },
  }),
});

class MongoDeliveriesQueries implements DeliveriesQueries {
  constructor(private readonly db: Db) {}
  async handled(eventId: string): Promise<Set<string>> {
    return new Set((await this.forEvent(eventId)).map((d) => d.channel_id));
  }
  async forEvent(eventId: string): Promise<DeliveryRecord[]> {
    const docs = await this.db.collection<DeliveryDoc>('deliveries').find({ event_id: eventId }).sort({ channel_id: 1 }).toArray();
    return docs.map(({ _id: _, ...d }) => d);
  }
}

export const mongoDeliveries: MongoReadModel<DeliveriesWriter, DeliveriesQueries> = {
  schema: deliveriesMongoSchema,
  batchWriter: () => mongoDeliveriesWriter,
  queries: (db) => new MongoDeliveriesQueries(db),
};
