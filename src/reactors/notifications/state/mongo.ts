import type { Db } from 'mongodb';
import type { NotificationsStateQueries, NotificationsStateWriter, PendingDelivery } from './port.ts';
import {
  TOMBSTONE,
  ALIVE,
  live,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../../../views/store/mongo.ts';

/** Still version 1, the version of the reactor's record before the delivery log: a new version
 *  would drop its checkpoint, and the reactor would then notify again of the last hour's
 *  transitions. The collections are new, so creating their indexes is the whole migration; the
 *  old record (`deliveries`) goes. Every write is keyed: replaying a batch lands on the same
 *  documents. Positions are kept zero-padded, so that they sort as numbers. */
const PENDING = 'notifier_pending';
const DOWN_SENT = 'notifier_down_sent';
const FAILURES = 'notifier_failures';

interface PendingDoc {
  _id: string;
  channel_id: string;
  position: string;
}

const notificationsStateMongoSchema: MongoSchema = {
  version: 1,
  collections: [PENDING, DOWN_SENT, FAILURES],
  async ensureIndexes(db) {
    await db
      .collection('deliveries')
      .drop()
      .catch(() => undefined);
    await db.collection(PENDING).createIndexes([{ key: { position: 1 } }]);
  },
};

const sortable = (position: string) => position.padStart(20, '0');

const mongoNotificationsStateWriter = (ops: BulkOps): NotificationsStateWriter => ({
  queued: (d, position) =>
    ops.add(PENDING, {
      updateOne: {
        filter: { _id: d.delivery_id },
        update: { $set: { channel_id: d.channel_id, position: sortable(position), ...ALIVE } },
        upsert: true,
      },
    }),
  settled: (id) => ops.add(PENDING, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
  downSent: (channelId, monitorId, at) =>
    ops.add(DOWN_SENT, {
      updateOne: { filter: { _id: JSON.stringify([channelId, monitorId]) }, update: { $set: { at } }, upsert: true },
    }),
  failuresInARow: (channelId, count) =>
    ops.add(FAILURES, { updateOne: { filter: { _id: channelId }, update: { $set: { count } }, upsert: true } }),
});

class MongoNotificationsStateQueries implements NotificationsStateQueries {
  constructor(private readonly db: Db) {}
  async pending(): Promise<PendingDelivery[]> {
    const docs = await this.db.collection<PendingDoc>(PENDING).find(live({})).sort({ position: 1, _id: 1 }).toArray();
    return docs.map((d) => ({ delivery_id: d._id, channel_id: d.channel_id }));
  }
  async lastDownSent(channelId: string, monitorId: string): Promise<string | null> {
    return (
      (
        await this.db
          .collection<{ _id: string; at: string }>(DOWN_SENT)
          .findOne({ _id: JSON.stringify([channelId, monitorId]) })
      )?.at ?? null
    );
  }
  async failuresInARow(channelId: string): Promise<number> {
    return (await this.db.collection<{ _id: string; count: number }>(FAILURES).findOne({ _id: channelId }))?.count ?? 0;
  }
}

export const mongoNotificationsState: MongoReadModel<NotificationsStateWriter, NotificationsStateQueries> = {
  schema: notificationsStateMongoSchema,
  batchWriter: () => mongoNotificationsStateWriter,
  queries: (db) => new MongoNotificationsStateQueries(db),
};
