import type { Db } from 'mongodb';
import {
  WINDOW_RETENTION_MS,
  bucketStart,
  type AuthFailureSeries,
  type ServiceCounts,
  type ServiceSeries,
} from '../../domain/anomaly.ts';
import type { AnomalyWindowsQueries, AnomalyWindowsWriter, WindowContribution } from './port.ts';
import {
  addPending,
  applyPending,
  type CounterDoc,
  type CounterUpdate,
  type Pending,
} from '../store/mongo-counters.ts';
import type { BulkOps, MongoReadModel, MongoSchema } from '../store/mongo.ts';
import { ServiceSeriesBuilder } from '../../domain/service-series.ts';

const SERVICES = 'anomaly_service_10s';
const AUTH = 'anomaly_auth_10s';

/** 10-second buckets of every service (events, errors, DELETEs) and of every identifier that got
 *  a 401, as counter documents (see ../store/mongo-counters.ts) so a replayed batch counts nothing twice.
 *  `environment` (and for identifiers `service_name`) is that of the latest event in the bucket.
 *  The indexes lead with the bucket: the scan reads a time range across all projects, and pruning
 *  deletes a prefix. */
interface ServiceDoc extends CounterDoc, ServiceCounts {
  bucket: number;
  project_id: string;
  service_name: string;
  environment: string;
  last_ts: number;
}
interface AuthDoc extends CounterDoc {
  bucket: number;
  project_id: string;
  identifier: string;
  failures: number;
  service_name: string;
  environment: string;
  last_ts: number;
}

const anomalyWindowsMongoSchema: MongoSchema = {
  version: 1,
  collections: [SERVICES, AUTH],
  async ensureIndexes(db) {
    await db.collection(SERVICES).createIndexes([{ key: { bucket: 1, project_id: 1, service_name: 1 } }]);
    await db.collection(AUTH).createIndexes([{ key: { bucket: 1, project_id: 1, identifier: 1 } }]);
  },
};

/** How often (in event time) old buckets are deleted. */
const PRUNE_EVERY_MS = 60_000;

/** The newest event written and when (in event time) the windows were last pruned. The store
 *  makes a writer per batch, so this outlives them: one per store. */
interface WindowsPruning {
  newest: number;
  prunedAt: number;
}
const windowsPruning = (): WindowsPruning => ({ newest: 0, prunedAt: Number.NEGATIVE_INFINITY });

/** The latest of a bucket's fresh events; of equal timestamps the later in the log, as when
 *  each event is applied in turn. */
const latestOf = (fresh: readonly [WindowContribution, ...WindowContribution[]]): WindowContribution =>
  fresh.reduce((latest, c) => (c.timestamp >= latest.timestamp ? c : latest));

/** What the updates read of a stored bucket. */
type StoredLatest = CounterDoc & { last_ts: number };

/** Only a batch at least as recent as the stored bucket sets the latest event's fields, as
 *  SQLite's upsert does. */
const isLatest = (latest: WindowContribution, stored: StoredLatest | null) =>
  stored === null || latest.timestamp >= stored.last_ts;

const serviceUpdate = (
  fresh: [WindowContribution, ...WindowContribution[]],
  stored: StoredLatest | null,
): CounterUpdate => {
  const latest = latestOf(fresh);
  const c = fresh[0];
  return {
    $inc: {
      total: fresh.length,
      errors: fresh.filter((e) => e.status_code !== undefined && e.status_code >= 400).length,
      deletes: fresh.filter((e) => e.method === 'DELETE').length,
    },
    ...(isLatest(latest, stored) ? { $set: { environment: latest.environment, last_ts: latest.timestamp } } : {}),
    $setOnInsert: { bucket: bucketStart(c.timestamp), project_id: c.project_id, service_name: c.service_name },
  };
};

const authUpdate = (
  fresh: [WindowContribution, ...WindowContribution[]],
  stored: StoredLatest | null,
): CounterUpdate => {
  const latest = latestOf(fresh);
  const c = fresh[0];
  return {
    $inc: { failures: fresh.length },
    ...(isLatest(latest, stored)
      ? { $set: { service_name: latest.service_name, environment: latest.environment, last_ts: latest.timestamp } }
      : {}),
    $setOnInsert: { bucket: bucketStart(c.timestamp), project_id: c.project_id, identifier: c.identifier },
  };
};

const mongoAnomalyWindowsWriter = (ops: BulkOps, pruning: WindowsPruning): AnomalyWindowsWriter => {
  const services: Pending<WindowContribution> = new Map();
  const auth: Pending<WindowContribution> = new Map();
  let newest = Number.NEGATIVE_INFINITY;
  return {
    add(c, position) {
      const first = services.size === 0;
      const bucket = bucketStart(c.timestamp);
      newest = Math.max(newest, c.timestamp);
      addPending(services, JSON.stringify([bucket, c.project_id, c.service_name]), c, Number(position));
      if (c.status_code === 401)
        addPending(auth, JSON.stringify([bucket, c.project_id, c.identifier]), c, Number(position));
      if (!first) return;
      ops.defer(async (db) => {
        await applyPending(db, SERVICES, services, serviceUpdate, ['last_ts']);
        await applyPending(db, AUTH, auth, authUpdate, ['last_ts']);
        pruning.newest = Math.max(pruning.newest, newest);
        if (pruning.newest - pruning.prunedAt < PRUNE_EVERY_MS) return;
        const before = bucketStart(pruning.newest - WINDOW_RETENTION_MS);
        await db.collection<ServiceDoc>(SERVICES).deleteMany({ bucket: { $lt: before } });
        await db.collection<AuthDoc>(AUTH).deleteMany({ bucket: { $lt: before } });
        pruning.prunedAt = pruning.newest;
      });
    },
  };
};

type ServiceRow = Omit<ServiceDoc, '_id' | 'applied_through'>;
type AuthRow = Omit<AuthDoc, '_id' | 'applied_through'>;

class MongoAnomalyWindowsQueries implements AnomalyWindowsQueries {
  constructor(private readonly db: Db) {}

  async serviceSeries(from: number, to: number, minTotal: number): Promise<ServiceSeries[]> {
    // Sorted by the index, as SQLite scans its key: series come out in the same order.
    const rows = await this.db
      .collection<ServiceDoc>(SERVICES)
      .find<ServiceRow>({ bucket: { $gte: from, $lte: to } }, { projection: { _id: 0, applied_through: 0 } })
      .sort({ bucket: 1, project_id: 1, service_name: 1 })
      .toArray();
    const series = new ServiceSeriesBuilder();
    for (const r of rows)
      series.add(
        r.bucket,
        r.project_id,
        r.service_name,
        { total: r.total, errors: r.errors, deletes: r.deletes },
        r.environment,
        r.last_ts,
      );
    return series.build(minTotal);
  }

  async authFailureSeries(from: number, to: number, minCount: number): Promise<AuthFailureSeries[]> {
    // Identifiers narrowed on the server to those with enough 401s in the whole range; only their
    // buckets come back, in key order.
    const rows = await this.db
      .collection<AuthDoc>(AUTH)
      .aggregate<AuthRow>([
        { $match: { bucket: { $gte: from, $lte: to } } },
        {
          $group: {
            _id: { project_id: '$project_id', identifier: '$identifier' },
            sum: { $sum: '$failures' },
            rows: {
              $push: {
                bucket: '$bucket',
                failures: '$failures',
                service_name: '$service_name',
                environment: '$environment',
                last_ts: '$last_ts',
              },
            },
          },
        },
        { $match: { sum: { $gte: minCount } } },
        { $unwind: '$rows' },
        {
          $project: {
            _id: 0,
            bucket: '$rows.bucket',
            project_id: '$_id.project_id',
            identifier: '$_id.identifier',
            failures: '$rows.failures',
            service_name: '$rows.service_name',
            environment: '$rows.environment',
            last_ts: '$rows.last_ts',
          },
        },
        { $sort: { bucket: 1, project_id: 1, identifier: 1 } },
      ])
      .toArray();
    const series = new Map<string, AuthFailureSeries & { buckets: Map<number, number>; last_ts: number }>();
    for (const row of rows) {
      const key = `${row.project_id}\u0000${row.identifier}`;
      let s = series.get(key);
      if (!s) {
        s = {
          project_id: row.project_id,
          identifier: row.identifier,
          service_name: row.service_name,
          environment: row.environment,
          buckets: new Map(),
          last_ts: row.last_ts,
        };
        series.set(key, s);
      }
      s.buckets.set(row.bucket, row.failures);
      if (row.last_ts >= s.last_ts)
        Object.assign(s, { last_ts: row.last_ts, service_name: row.service_name, environment: row.environment });
    }
    return [...series.values()].map(({ project_id, identifier, service_name, environment, buckets }) => ({
      project_id,
      identifier,
      service_name,
      environment,
      buckets,
    }));
  }
}

export const mongoAnomalyWindows: MongoReadModel<AnomalyWindowsWriter, AnomalyWindowsQueries> = {
  schema: anomalyWindowsMongoSchema,
  batchWriter: () => {
    const pruning = windowsPruning();
    return (ops) => mongoAnomalyWindowsWriter(ops, pruning);
  },
  queries: (db) => new MongoAnomalyWindowsQueries(db),
};
