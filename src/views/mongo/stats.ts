import type { AnyBulkWriteOperation, Db, Document } from 'mongodb';
import { hourOf, mergeInto, planRange, type Bins, type StatsBucket } from '../../domain/stats.ts';
import { projectsInScope, type Scope, type StatsFilter, type StatsQueries, type StatsWriter } from '../ports.ts';
import type { BulkOps, MongoSchema } from './store.ts';

/** Stats buckets in MongoDB. Each bucket document records the last log position applied to it.
 *  At the end of a batch the touched buckets are read, and each gets one $inc of the batch's
 *  events after that position, guarded by it: a replayed batch (after a crash before the
 *  checkpoint) adds only what is missing, and nothing is counted twice. */
interface BucketDoc extends Omit<StatsBucket, 'bins'> {
  _id: string;
  bins: Bins;
  applied_through: number;
}

const MINUTES = 'stats_minute';
/** The hour roll-up: the same documents per hour (`minute` holds the hour's start). */
const HOURS = 'stats_hour';

export const statsMongoSchema: MongoSchema = {
  version: 2,
  collections: [MINUTES, HOURS],
  async ensureIndexes(db) {
    for (const collection of [MINUTES, HOURS]) {
      await db.collection(collection).createIndexes([{ key: { project_id: 1, minute: 1 } }, { key: { minute: 1 } }]);
    }
  },
};

/** Field names may not hold dots or start with $: bin keys are integers (or "z"), safe. */
const incrementsOf = (b: StatsBucket): Document => {
  const inc: Record<string, number> = {
    total: b.total, errors_4xx: b.errors_4xx, errors_5xx: b.errors_5xx, rt_count: b.rt_count, rt_sum: b.rt_sum,
  };
  for (const [k, n] of Object.entries(b.classes)) inc[`classes.${k}`] = n;
  for (const [k, n] of Object.entries(b.methods)) inc[`methods.${k}`] = n;
  for (const [k, n] of Object.entries(b.bins)) inc[`bins.${k}`] = n;
  return inc;
};

/** A batch's contributions by bucket id, with their log positions. */
type Pending = Map<string, Array<{ position: number; contribution: StatsBucket }>>;

export const mongoStatsWriter = (ops: BulkOps): StatsWriter => {
  const pending: { minute: Pending; hour: Pending } = { minute: new Map(), hour: new Map() };
  const keep = (table: Pending, contribution: StatsBucket, position: number) => {
    const id = JSON.stringify([contribution.project_id, contribution.minute, contribution.service_name, contribution.environment]);
    const events = table.get(id);
    if (events) events.push({ position, contribution });
    else table.set(id, [{ position, contribution }]);
  };
  return {
    add(contribution, position) {
      const first = pending.minute.size === 0;
      keep(pending.minute, contribution, Number(position));
      keep(pending.hour, { ...contribution, minute: hourOf(contribution.minute) }, Number(position));
      if (!first) return;
      ops.defer(async (db) => {
        await applyBuckets(db, MINUTES, pending.minute);
        await applyBuckets(db, HOURS, pending.hour);
      });
    },
  };
};

/** One guarded $inc per touched bucket, with the events after its last applied position. */
const applyBuckets = async (db: Db, collectionName: string, byBucket: Pending) => {
  const collection = db.collection<BucketDoc>(collectionName);
  const applied = new Map((await collection.find({ _id: { $in: [...byBucket.keys()] } }, { projection: { applied_through: 1 } }).toArray())
    .map((d) => [d._id, d.applied_through]));
  const updates: AnyBulkWriteOperation<BucketDoc>[] = [];
  for (const [_id, events] of byBucket) {
    const through = applied.get(_id);
    const fresh = events.filter((e) => through === undefined || e.position > through);
    const [first, ...rest] = fresh;
    if (!first) continue;
    const sum = rest.reduce((acc, e) => mergeInto(acc, e.contribution), structuredClone(first.contribution));
    updates.push({
      updateOne: {
        filter: through === undefined ? { _id } : { _id, applied_through: through },
        update: {
          $inc: incrementsOf(sum),
          $max: { last_ts: sum.last_ts },
          $set: { applied_through: fresh[fresh.length - 1]!.position },
          $setOnInsert: { project_id: sum.project_id, minute: sum.minute, service_name: sum.service_name, environment: sum.environment },
        },
        upsert: through === undefined,
      },
    });
  }
  if (updates.length > 0) await collection.bulkWrite(updates, { ordered: false });
};

export class MongoStatsQueries implements StatsQueries {
  constructor(private readonly db: Db) {}

  async buckets(f: StatsFilter, scope: Scope): Promise<StatsBucket[]> {
    const query: Document = {};
    const projects = projectsInScope(scope, f.project_id);
    if (projects !== null) {
      if (projects.length === 0) return [];
      query.project_id = { $in: projects };
    }
    if (f.service_name !== undefined) query.service_name = f.service_name;
    if (f.environment !== undefined) query.environment = f.environment;
    const read = (collection: string, minute: Document) =>
      this.db.collection<BucketDoc>(collection).find({ ...query, minute }, { projection: { _id: 0, applied_through: 0 } }).toArray();
    const plan = f.hourly ? planRange(f.from, f.to) : { hours: null, minutes: [[f.from, f.to] as [number, number]] };
    const docs = [
      ...(plan.hours ? await read(HOURS, { $gte: plan.hours[0], $lt: plan.hours[1] }) : []),
      ...(await Promise.all(plan.minutes.map(([from, to]) => read(MINUTES, { $gte: from, $lte: to })))).flat(),
    ];
    return docs.map((d) => ({
      project_id: d.project_id, service_name: d.service_name, environment: d.environment, minute: d.minute,
      total: d.total, errors_4xx: d.errors_4xx, errors_5xx: d.errors_5xx, classes: d.classes ?? {}, methods: d.methods ?? {},
      rt_count: d.rt_count, rt_sum: d.rt_sum, last_ts: d.last_ts, bins: d.bins ?? {},
    }));
  }
}
