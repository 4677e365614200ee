import type { Db, Document } from 'mongodb';
import { HOUR_MS, MINUTE_MS, hourOf, mergeInto, planRange, type Bins, type StatsBucket } from '../../domain/stats.ts';
import type { ServiceActivity } from '../../domain/anomaly.ts';
import { projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { ServiceKey, StatsFilter, StatsQueries, StatsWriter, ServiceBaselineRow } from './port.ts';
import {
  addPending,
  applyPending,
  type CounterDoc,
  type CounterUpdate,
  type Pending,
} from '../store/mongo-counters.ts';
import { inProjects, type BulkOps, type MongoReadModel, type MongoSchema } from '../store/mongo.ts';

/** Stats buckets in MongoDB: counter documents (see ../store/mongo-counters.ts), so a replayed batch (after a
 *  crash before the checkpoint) counts nothing twice. */
interface BucketDoc extends Omit<StatsBucket, 'bins'>, CounterDoc {
  bins: Bins;
}

const MINUTES = 'stats_minute';
/** The hour roll-up: the same documents per hour (`minute` holds the hour's start). */
const HOURS = 'stats_hour';

const statsMongoSchema: MongoSchema = {
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
    total: b.total,
    errors_4xx: b.errors_4xx,
    errors_5xx: b.errors_5xx,
    rt_count: b.rt_count,
    rt_sum: b.rt_sum,
  };
  for (const [k, n] of Object.entries(b.classes)) inc[`classes.${k}`] = n;
  for (const [k, n] of Object.entries(b.methods)) inc[`methods.${k}`] = n;
  for (const [k, n] of Object.entries(b.bins)) inc[`bins.${k}`] = n;
  return inc;
};

const mongoStatsWriter = (ops: BulkOps): StatsWriter => {
  const pending: { minute: Pending<StatsBucket>; hour: Pending<StatsBucket> } = { minute: new Map(), hour: new Map() };
  const keep = (table: Pending<StatsBucket>, contribution: StatsBucket, position: number) =>
    addPending(
      table,
      JSON.stringify([
        contribution.project_id,
        contribution.minute,
        contribution.service_name,
        contribution.environment,
      ]),
      contribution,
      position,
    );
  return {
    add(contribution, position) {
      const first = pending.minute.size === 0;
      keep(pending.minute, contribution, Number(position));
      keep(pending.hour, { ...contribution, minute: hourOf(contribution.minute) }, Number(position));
      if (!first) return;
      ops.defer(async (db) => {
        await applyPending(db, MINUTES, pending.minute, bucketUpdate);
        await applyPending(db, HOURS, pending.hour, bucketUpdate);
      });
    },
    expire({ project_id, before }) {
      ops.defer(async (db, fence) => {
        await db.collection(MINUTES).deleteMany(fence.filter({ project_id, minute: { $lte: before - MINUTE_MS } }));
        await db.collection(HOURS).deleteMany(fence.filter({ project_id, minute: { $lte: before - HOUR_MS } }));
      });
    },
  };
};

/** The fresh events of a bucket, summed into one $inc. */
const bucketUpdate = ([first, ...rest]: [StatsBucket, ...StatsBucket[]]): CounterUpdate => {
  const sum = rest.reduce((acc, c) => mergeInto(acc, c), structuredClone(first));
  return {
    $inc: incrementsOf(sum),
    $max: { last_ts: sum.last_ts },
    $setOnInsert: {
      project_id: sum.project_id,
      minute: sum.minute,
      service_name: sum.service_name,
      environment: sum.environment,
    },
  };
};

type ActivityRow = ServiceKey & { total: number; last_ts: number; environment: string };

class MongoStatsQueries implements StatsQueries {
  constructor(private readonly db: Db) {}

  async serviceBaselines(projectId: string, from: number, to: number): Promise<ServiceBaselineRow[]> {
    return this.db
      .collection<BucketDoc>(MINUTES)
      .aggregate<ServiceBaselineRow>([
        { $match: { project_id: projectId, minute: { $gte: from, $lt: to } } },
        // Environments together first: the baseline counts a service's events per minute.
        { $group: { _id: { service_name: '$service_name', minute: '$minute' }, t: { $sum: '$total' } } },
        {
          $group: {
            _id: '$_id.service_name',
            first_minute: { $min: '$_id.minute' },
            sum: { $sum: '$t' },
            sum_squares: { $sum: { $multiply: ['$t', '$t'] } },
          },
        },
        { $project: { _id: 0, service_name: '$_id', first_minute: 1, sum: 1, sum_squares: 1 } },
      ])
      .toArray();
  }

  async serviceActivity(from: number): Promise<ServiceActivity[]> {
    const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
    // The latest event of a service is in its document with the greatest last_ts; minute
    // documents (before firstHour) always end before hour documents (from firstHour) begin, so one
    // $top over both picks what SQLite's "later rows win" merge picks.
    const rows = await this.db
      .collection<BucketDoc>(MINUTES)
      .aggregate<ActivityRow>([
        { $match: { minute: { $gte: from, $lt: firstHour } } },
        { $unionWith: { coll: HOURS, pipeline: [{ $match: { minute: { $gte: firstHour } } }] } },
        {
          $group: {
            _id: { project_id: '$project_id', service_name: '$service_name' },
            total: { $sum: '$total' },
            latest: { $top: { sortBy: { last_ts: -1 }, output: { last_ts: '$last_ts', environment: '$environment' } } },
          },
        },
        {
          $project: {
            _id: 0,
            project_id: '$_id.project_id',
            service_name: '$_id.service_name',
            total: 1,
            last_ts: '$latest.last_ts',
            environment: '$latest.environment',
          },
        },
        { $sort: { project_id: 1, service_name: 1 } },
      ])
      .toArray();
    return rows.map((r) => ({
      project_id: r.project_id,
      service_name: r.service_name,
      environment: r.environment,
      last_event_at: r.last_ts,
      events_24h: r.total,
    }));
  }

  async buckets(f: StatsFilter, scope: Scope): Promise<StatsBucket[]> {
    const projects = projectsInScope(scope, f.project_id);
    if (seesNothing(projects)) return [];
    const query: Document = inProjects(projects);
    if (f.service_name !== undefined) query.service_name = f.service_name;
    if (f.environment !== undefined) query.environment = f.environment;
    const read = (collection: string, minute: Document) =>
      this.db
        .collection<BucketDoc>(collection)
        .find({ ...query, minute }, { projection: { _id: 0, applied_through: 0 } })
        .toArray();
    const plan = f.hourly ? planRange(f.from, f.to) : { hours: null, minutes: [[f.from, f.to] as [number, number]] };
    const docs = [
      ...(plan.hours ? await read(HOURS, { $gte: plan.hours[0], $lt: plan.hours[1] }) : []),
      ...(await Promise.all(plan.minutes.map(([from, to]) => read(MINUTES, { $gte: from, $lte: to })))).flat(),
    ];
    return docs.map((d) => ({
      project_id: d.project_id,
      service_name: d.service_name,
      environment: d.environment,
      minute: d.minute,
      total: d.total,
      errors_4xx: d.errors_4xx,
      errors_5xx: d.errors_5xx,
      classes: d.classes ?? {},
      methods: d.methods ?? {},
      rt_count: d.rt_count,
      rt_sum: d.rt_sum,
      last_ts: d.last_ts,
      bins: d.bins ?? {},
    }));
  }
}

export const mongoStats: MongoReadModel<StatsWriter, StatsQueries> = {
  schema: statsMongoSchema,
  batchWriter: () => mongoStatsWriter,
  queries: (db) => new MongoStatsQueries(db),
};
