import type { Db } from 'mongodb';
import { HOUR_MS } from '../../domain/stats.ts';
import { CHECKS_KEPT, UPTIME_HOURS_KEPT, uptimeAt, uptimeHourOf, type UptimeBucket } from '../../domain/monitor.ts';
import { inScope, projectsInScope, seesNothing, type Scope } from '../../domain/scope.ts';
import type { CheckView, MonitorUptime, MonitorView, MonitorsQueries, MonitorsWriter } from './port.ts';
import {
  TOMBSTONE,
  inProjects,
  live,
  unfenced,
  type BulkOps,
  type MongoReadModel,
  type MongoSchema,
} from '../store/mongo.ts';

/** Monitors keyed by id, checks keyed by log position. Check writes read the monitor first (a
 *  check recorded after a delete must not resurrect history), so they run as deferred steps in
 *  log order after the batch's bulk writes; every step is idempotent. */
const MONITORS = 'monitors';
const CHECKS = 'monitor_checks';
const UPTIME = 'monitor_uptime';

type MonitorDoc = Omit<MonitorView, 'id'> & { _id: string };
interface CheckDoc extends CheckView {
  _id: string;
  monitor_id: string;
}
/** Keyed `<monitor id>:<hour>`; `last_position` (a position key) is the last check counted. */
interface UptimeDoc extends UptimeBucket {
  _id: string;
  monitor_id: string;
  last_position: string;
}

const monitorsMongoSchema: MongoSchema = {
  version: 2,
  collections: [MONITORS, CHECKS, UPTIME],
  async ensureIndexes(db) {
    await db.collection(MONITORS).createIndexes([{ key: { project_id: 1, created_at: 1 } }]);
    await db.collection(CHECKS).createIndexes([{ key: { monitor_id: 1, checked_at: -1, _id: -1 } }]);
    await db.collection(UPTIME).createIndexes([{ key: { monitor_id: 1, hour: -1 } }]);
  },
};

const toMonitor = (doc: MonitorDoc): MonitorView => {
  const { _id, ...rest } = unfenced(doc);
  return { id: _id, ...rest };
};
const toCheck = (c: CheckDoc): CheckView => ({
  checked_at: c.checked_at,
  status_code: c.status_code,
  response_ms: c.response_ms,
  ok: c.ok,
  error: c.error,
});
/** Positions sort as numbers; zero-padding makes their string keys sort the same way. */
const positionKey = (position: string) => position.padStart(20, '0');

const mongoMonitorsWriter = (ops: BulkOps): MonitorsWriter => {
  return {
    created: ({ id, ...rest }) =>
      ops.defer(async (db) => {
        await db.collection<MonitorDoc>(MONITORS).updateOne({ _id: id }, { $setOnInsert: rest }, { upsert: true });
      }),
    // Plain sets (the last value wins) are fenced; the check and uptime steps below are guarded
    // by log order instead, so a former holder's late step changes nothing.
    updated: (id, changes, updatedAt) =>
      ops.defer(async (db, fence) => {
        await db
          .collection<MonitorDoc>(MONITORS)
          .updateOne(fence.filter({ _id: id }), fence.update({ $set: { ...changes, updated_at: updatedAt } }));
      }),
    deleted: (id) =>
      ops.defer(async (db, fence) => {
        await db.collection<MonitorDoc>(MONITORS).updateOne(fence.filter({ _id: id }), fence.update(TOMBSTONE));
        await db.collection<CheckDoc>(CHECKS).deleteMany({ monitor_id: id });
        await db.collection<UptimeDoc>(UPTIME).deleteMany({ monitor_id: id });
      }),
    status: (id, status, since) =>
      ops.defer(async (db, fence) => {
        await db
          .collection<MonitorDoc>(MONITORS)
          .updateOne(fence.filter({ _id: id }), fence.update({ $set: { status, status_since: since } }));
      }),
    checked: (id, check, position) =>
      ops.defer(async (db) => {
        const monitors = db.collection<MonitorDoc>(MONITORS);
        if (!(await monitors.findOne(live({ _id: id }), { projection: { _id: 1 } }))) return;
        const checks = db.collection<CheckDoc>(CHECKS);
        await checks.updateOne(
          { _id: positionKey(position) },
          { $setOnInsert: { monitor_id: id, ...check } },
          { upsert: true },
        );
        await monitors.updateOne(
          { _id: id, $or: [{ last_checked_at: null }, { last_checked_at: { $lte: check.checked_at } }] },
          {
            $set: {
              last_checked_at: check.checked_at,
              last_status_code: check.status_code,
              last_response_ms: check.response_ms,
              last_error: check.error,
            },
          },
        );
        const oldestKept = await checks
          .find({ monitor_id: id })
          .sort({ checked_at: -1, _id: -1 })
          .skip(CHECKS_KEPT - 1)
          .limit(1)
          .next();
        if (oldestKept) {
          await checks.deleteMany({
            monitor_id: id,
            $or: [
              { checked_at: { $lt: oldestKept.checked_at } },
              { checked_at: oldestKept.checked_at, _id: { $lt: oldestKept._id } },
            ],
          });
        }
      }),
    counted: (id, hour, ok, position) =>
      ops.defer(async (db) => {
        if (!(await db.collection<MonitorDoc>(MONITORS).findOne(live({ _id: id }), { projection: { _id: 1 } }))) return;
        const uptime = db.collection<UptimeDoc>(UPTIME);
        const key = positionKey(position);
        const _id = `${id}:${hour}`;
        // Steps run in log order: a check at or before the bucket's last position was counted.
        const counted = await uptime.updateOne(
          { _id, last_position: { $lt: key } },
          { $inc: { ok: ok ? 1 : 0, total: 1 }, $set: { last_position: key } },
        );
        if (counted.matchedCount === 0 && !(await uptime.findOne({ _id }, { projection: { _id: 1 } }))) {
          await uptime.insertOne({ _id, monitor_id: id, hour, ok: ok ? 1 : 0, total: 1, last_position: key });
        }
        const newest = await uptime.find({ monitor_id: id }).sort({ hour: -1 }).limit(1).next();
        if (newest)
          await uptime.deleteMany({ monitor_id: id, hour: { $lt: newest.hour - (UPTIME_HOURS_KEPT - 1) * HOUR_MS } });
      }),
  };
};

class MongoMonitorsQueries implements MonitorsQueries {
  constructor(private readonly db: Db) {}

  async list(scope: Scope, projectId?: string): Promise<MonitorView[]> {
    const projects = projectsInScope(scope, projectId);
    if (seesNothing(projects)) return [];
    return (
      await this.db
        .collection<MonitorDoc>(MONITORS)
        .find(live(inProjects(projects)))
        .sort({ created_at: 1, _id: 1 })
        .toArray()
    ).map(toMonitor);
  }

  async get(id: string, scope: Scope): Promise<MonitorView | null> {
    const doc = await this.db.collection<MonitorDoc>(MONITORS).findOne(live({ _id: id }));
    return doc && inScope(scope, doc.project_id) ? toMonitor(doc) : null;
  }

  async countInProject(projectId: string): Promise<number> {
    return this.db.collection<MonitorDoc>(MONITORS).countDocuments(live({ project_id: projectId }));
  }

  async history(id: string, limit: number): Promise<CheckView[]> {
    return (
      await this.db
        .collection<CheckDoc>(CHECKS)
        .find({ monitor_id: id })
        .sort({ checked_at: -1, _id: -1 })
        .limit(limit)
        .toArray()
    ).map(toCheck);
  }

  async uptime(ids: readonly string[], now: Date): Promise<Map<string, MonitorUptime>> {
    const from = uptimeHourOf(now) - (UPTIME_HOURS_KEPT - 1) * HOUR_MS;
    const buckets = await this.db
      .collection<UptimeDoc>(UPTIME)
      .find({ monitor_id: { $in: [...ids] }, hour: { $gte: from } })
      .toArray();
    return new Map(
      ids.map((id) => [
        id,
        uptimeAt(
          buckets.filter((b) => b.monitor_id === id),
          now,
        ),
      ]),
    );
  }
}

export const mongoMonitors: MongoReadModel<MonitorsWriter, MonitorsQueries> = {
  schema: monitorsMongoSchema,
  batchWriter: () => mongoMonitorsWriter,
  queries: (db) => new MongoMonitorsQueries(db),
};
