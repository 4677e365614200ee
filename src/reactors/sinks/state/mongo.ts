import type { Db } from 'mongodb';
import { MongoProjectionStore, type BulkOps, type MongoSchema } from '../../../views/store/mongo.ts';
import type { StoreFaults } from '../../../views/store/port.ts';
import type { ReactorStore } from '../../port.ts';
import { sinkReactorName, type SinkProgress, type SinkProgressWriter, type SinkStates } from './port.ts';

/** One document per sink. `forwarded_total` is counted with `$inc`: a batch replayed after a
 *  crash between its writes and its checkpoint counts twice (the destination got it twice too). */
const PROGRESS = 'sink_progress';

type ProgressDoc = SinkProgress & { _id: string };

const sinkStateMongoSchema: MongoSchema = {
  version: 1,
  collections: [PROGRESS],
  ensureIndexes: async () => undefined,
};

const writer = (ops: BulkOps): SinkProgressWriter => ({
  forwarded: (sinkId, count, lastEventId, at) =>
    ops.add(PROGRESS, {
      updateOne: {
        filter: { _id: sinkId },
        update: {
          $inc: { forwarded_total: count },
          $set: { last_forwarded_at: at, last_event_id: lastEventId, failures: 0 },
        },
        upsert: true,
      },
    }),
});

export const mongoSinkStates = (db: Db, faults?: StoreFaults): SinkStates => {
  const stores = new Map<string, ReactorStore<SinkProgressWriter>>();
  const model = { schema: sinkStateMongoSchema, batchWriter: () => writer };
  const progress = db.collection<ProgressDoc>(PROGRESS);
  return {
    store(sinkId) {
      let store = stores.get(sinkId);
      if (store === undefined) {
        store = new MongoProjectionStore(db, sinkReactorName(sinkId), model, faults);
        stores.set(sinkId, store);
      }
      return store;
    },
    async progress(sinkId) {
      const doc = await progress.findOne({ _id: sinkId });
      if (doc === null) return null;
      return {
        forwarded_total: doc.forwarded_total ?? 0,
        last_forwarded_at: doc.last_forwarded_at ?? null,
        last_event_id: doc.last_event_id ?? null,
        failures: doc.failures ?? 0,
        last_error: doc.last_error ?? null,
        last_error_at: doc.last_error_at ?? null,
      };
    },
    async failed(sinkId, failures, error, at) {
      await progress.updateOne(
        { _id: sinkId },
        { $set: { failures, last_error: error, last_error_at: at } },
        { upsert: true },
      );
    },
  };
};
