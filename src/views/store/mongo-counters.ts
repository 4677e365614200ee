import { MongoBulkWriteError, type AnyBulkWriteOperation, type Db, type Document } from 'mongodb';

/** Counter documents without multi-document transactions. Each document records the last log
 *  position applied to it. At the end of a batch the touched documents are read, and each gets
 *  one update with the batch's events after that position, guarded by it: a replayed batch (after
 *  a crash before the checkpoint) adds only what is missing, and nothing is counted twice. This
 *  holds because a document's events are always applied in log order, up to the last one. */
export interface CounterDoc {
  _id: string;
  applied_through: number;
}

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
 *  need to decide what to set) and writes one update per document with fresh events, guarded by
 *  the `applied_through` it read (compare-and-set). A guard that no longer matches means another
 *  writer (a former lease holder finishing a batch) moved the document meanwhile: it is read
 *  again and only what is still missing is added, so each event counts exactly once whoever
 *  writes first. */
export const applyPending = async <C, S extends CounterDoc = CounterDoc>(
  db: Db,
  collectionName: string,
  pending: Pending<C>,
  update: (fresh: [C, ...C[]], stored: S | null) => CounterUpdate,
  read: ReadonlyArray<Exclude<keyof S, keyof CounterDoc> & string> = [],
): Promise<void> => {
  const collection = db.collection<CounterDoc>(collectionName);
  const projection: Record<string, 1> = { applied_through: 1 };
  for (const field of read) projection[field] = 1;
  let ids = [...pending.keys()];
  for (let attempt = 1; ids.length > 0; attempt += 1) {
    if (attempt > 5)
      throw new Error(`${collectionName}: counters kept changing under this batch (${ids.length} documents)`);
    const stored = new Map(
      (await collection.find<S>({ _id: { $in: ids } }, { projection }).toArray()).map((d) => [d._id, d]),
    );
    const updates: AnyBulkWriteOperation<CounterDoc>[] = [];
    for (const _id of ids) {
      const doc = stored.get(_id) ?? null;
      const events = pending.get(_id)!;
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
    if (updates.length === 0) return;
    let landed: number;
    try {
      const result = await collection.bulkWrite(updates, { ordered: false });
      landed = result.matchedCount + result.upsertedCount;
    } catch (error) {
      // Two first inserts of one document: the other writer's landed; count again on top of it.
      const errors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
      if (errors.length === 0 || errors.some((e) => e.code !== 11000)) throw error;
      landed = 0;
    }
    if (landed === updates.length) return;
    ids = updates.map((u) => ('updateOne' in u ? (u.updateOne.filter._id as string) : ''));
  }
};
