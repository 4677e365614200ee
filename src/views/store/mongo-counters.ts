import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';

/** Counter documents without multi-document transactions. Each document records the last log
 *  position applied to it. At the end of a batch the touched documents are read, and each gets
 *  one update with the batch's events after that position, guarded by it: a replayed batch (after
 *  a crash before the checkpoint) adds only what is missing, and nothing is counted twice. This
 *  holds because a document's events are always applied in log order, up to the last one. */
export interface CounterDoc { _id: string; applied_through: number }

/** A batch's contributions by document id, in log order, with their log positions. */
export type Pending<C> = Map<string, Array<{ position: number; contribution: C }>>;

export const addPending = <C>(pending: Pending<C>, id: string, contribution: C, position: number): void => {
  const events = pending.get(id);
  if (events) events.push({ position, contribution });
  else pending.set(id, [{ position, contribution }]);
};

/** One document's update for its fresh contributions; applyPending adds `applied_through` to
 *  `$set`. Keys must be absent rather than undefined: the driver would send undefined as null. */
export interface CounterUpdate {
  $inc: Document;
  $set?: Document;
  $max?: Document;
  $setOnInsert: Document;
}

/** Reads the touched documents (`applied_through` and the fields in `read`, which `update` may
 *  need to decide what to set) and writes one guarded update per document with fresh events. */
export const applyPending = async <C, S extends CounterDoc = CounterDoc>(
  db: Db,
  collectionName: string,
  pending: Pending<C>,
  update: (fresh: [C, ...C[]], stored: S | null) => CounterUpdate,
  read: ReadonlyArray<Exclude<keyof S, keyof CounterDoc> & string> = [],
): Promise<void> => {
  if (pending.size === 0) return;
  const collection = db.collection<CounterDoc>(collectionName);
  const projection: Record<string, 1> = { applied_through: 1 };
  for (const field of read) projection[field] = 1;
  const stored = new Map((await collection.find<S>({ _id: { $in: [...pending.keys()] } }, { projection }).toArray()).map((d) => [d._id, d]));
  const updates: AnyBulkWriteOperation<CounterDoc>[] = [];
  for (const [_id, events] of pending) {
    const doc = stored.get(_id) ?? null;
    const fresh = doc === null ? events : events.filter((e) => e.position > doc.applied_through);
    const [first, ...rest] = fresh;
    if (!first) continue;
    const last = rest[rest.length - 1] ?? first;
    const { $set, ...others } = update([first.contribution, ...rest.map((e) => e.contribution)], doc);
    updates.push({
      updateOne: {
        filter: doc === null ? { _id } : { _id, applied_through: doc.applied_through },
        update: { ...others, $set: { ...$set, applied_through: last.position } },
        upsert: doc === null,
      },
    });
  }
  if (updates.length > 0) await collection.bulkWrite(updates, { ordered: false });
};
