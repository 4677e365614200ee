import type { Db } from 'mongodb';
import type { PageEffectsStateQueries, PageEffectsStateWriter, PendingMail } from './port.ts';
import {
  ALIVE,
  TOMBSTONE,
  live,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../../../views/store/mongo.ts';

/** Every write is keyed, so a batch written again lands on the same documents. Positions are kept
 *  zero-padded, so that they sort as numbers. */
const PENDING = 'page_effects_pending';
const AUTO = 'page_effects_auto';

interface PendingDoc {
  _id: string;
  subscriber_id: string;
  position: string;
}
interface AutoDoc {
  _id: string;
  monitor_id: string;
  incident_id: string;
}

const pageEffectsStateMongoSchema: MongoSchema = {
  version: 1,
  collections: [PENDING, AUTO],
  async ensureIndexes(db) {
    await db.collection(PENDING).createIndexes([{ key: { position: 1 } }]);
    await db.collection(AUTO).createIndexes([{ key: { monitor_id: 1 } }]);
  },
};

const sortable = (position: string) => position.padStart(20, '0');

const mongoPageEffectsStateWriter = (ops: BulkOps): PageEffectsStateWriter => ({
  queued: (mail, position) =>
    ops.add(PENDING, {
      updateOne: {
        filter: { _id: mail.delivery_id },
        update: { $set: { subscriber_id: mail.subscriber_id, position: sortable(position), ...ALIVE } },
        upsert: true,
      },
    }),
  settled: (id) => ops.add(PENDING, { updateOne: { filter: { _id: id }, update: TOMBSTONE } }),
  autoOpened: (monitorId, incidentId) =>
    ops.add(AUTO, {
      updateOne: {
        filter: { _id: JSON.stringify([monitorId, incidentId]) },
        update: { $set: { monitor_id: monitorId, incident_id: incidentId, ...ALIVE } },
        upsert: true,
      },
    }),
  autoResolved: (monitorId) => ops.add(AUTO, { updateMany: { filter: { monitor_id: monitorId }, update: TOMBSTONE } }),
});

class MongoPageEffectsStateQueries implements PageEffectsStateQueries {
  constructor(private readonly db: Db) {}
  async pending(): Promise<PendingMail[]> {
    const docs = await this.db.collection<PendingDoc>(PENDING).find(live({})).sort({ position: 1, _id: 1 }).toArray();
    return docs.map((d) => ({ delivery_id: d._id, subscriber_id: d.subscriber_id }));
  }
  async autoOpen(monitorId: string): Promise<string[]> {
    const docs = await this.db
      .collection<AutoDoc>(AUTO)
      .find(live({ monitor_id: monitorId }))
      .sort({ incident_id: 1 })
      .toArray();
    return docs.map((d) => d.incident_id);
  }
}

export const mongoPageEffectsState: MongoReadModel<PageEffectsStateWriter, PageEffectsStateQueries> = {
  schema: pageEffectsStateMongoSchema,
  batchWriter: () => mongoPageEffectsStateWriter,
  queries: (db) => new MongoPageEffectsStateQueries(db),
};
