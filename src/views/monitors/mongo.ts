import type { Db, UpdateFilter } from 'mongodb';
import { HOUR_MS } from '../../domain/stats.ts';
import { CHECKS_KEPT } from '../../domain/monitor.ts';
import {
  DAY_MS,
  UPTIME_DAYS_KEPT,
  UPTIME_HOURS_KEPT,
  uptimeAt,
  uptimeDayOf,
  uptimeHourOf,
  type MonitorUptime,
  type UptimeBucket,
} from '../../domain/monitor-uptime.ts';
import { inScope, type Scope } from '../../domain/scope.ts';
import type { CheckView, MonitorSchedule, MonitorView, MonitorsQueries, MonitorsWriter } from './port.ts';
import {
  TOMBSTONE,
  listInScope,
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
const UPTIME_DAYS = 'monitor_uptime_days';

/** Options are fields of the document like the SPEC settings; an option set back to null is unset. */
type MonitorDoc = Omit<MonitorView, 'id'> & { _id: string; heartbeat_token_hash?: string };
interface CheckDoc extends CheckView {
  _id: string;
  monitor_id: string;
}
/** Keyed `<monitor id>:<start>` (of the hour, or of the day); `last_position` (a position key) is
 *  the last check counted. */
interface UptimeDoc extends UptimeBucket {
  _id: string;
  monitor_id: string;
  last_position: string;
}

const monitorsMongoSchema: MongoSchema = {
  version: 3,
  collections: [MONITORS, CHECKS, UPTIME, UPTIME_DAYS],
  async ensureIndexes(db) {
    await db.collection(MONITORS).createIndexes([
      { key: { project_id: 1, created_at: 1 } },
      {
        key: { heartbeat_token_hash: 1 },
        unique: true,
        partialFilterExpression: { heartbeat_token_hash: { $type: 'string' } },
      },
    ]);
    await db.collection(CHECKS).createIndexes([{ key: { monitor_id: 1, checked_at: -1, _id: -1 } }]);
    await db.collection(UPTIME).createIndexes([{ key: { monitor_id: 1, start: -1 } }]);
    await db.collection(UPTIME_DAYS).createIndexes([{ key: { monitor_id: 1, start: -1 } }]);
  },
};

/** The fields of MonitorSchedule (`_id` comes anyway). */
const SCHEDULE_PROJECTION = {
  type: 1,
  interval_seconds: 1,
  retry_interval_seconds: 1,
  enabled: 1,
  status: 1,
  last_checked_at: 1,
  last_error: 1,
  updated_at: 1,
} as const;

const toMonitor = (doc: MonitorDoc): MonitorView => {
  const { _id, heartbeat_token_hash: _h, ...rest } = unfenced(doc);
  return { id: _id, ...rest } as MonitorView;
};
const toCheck = ({ _id, monitor_id: _m, ...check }: CheckDoc): CheckView => check;
/** Positions sort as numbers; zero-padding makes their string keys sort the same way. */
const positionKey = (position: string) => position.padStart(20, '0');

const mongoMonitorsWriter = (ops: BulkOps): MonitorsWriter => {
  return {
    created: ({ id, ...rest }, heartbeatTokenHash) =>
      ops.defer(async (db) => {
        const doc = heartbeatTokenHash === null ? rest : { ...rest, heartbeat_token_hash: heartbeatTokenHash };
        await db.collection<MonitorDoc>(MONITORS).updateOne({ _id: id }, { $setOnInsert: doc }, { upsert: true });
      }),
    // Plain sets (the last value wins) are fenced; the check and uptime steps below are guarded
    // by log order instead, so a former holder's late step changes nothing.
    updated: (id, changes, updatedAt) =>
      ops.defer(async (db, fence) => {
        const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== null));
        const unset = Object.fromEntries(Object.entries(changes).flatMap(([k, v]) => (v === null ? [[k, '']] : [])));
        const update =
          Object.keys(unset).length === 0
            ? { $set: { ...set, updated_at: updatedAt } }
            : { $set: { ...set, updated_at: updatedAt }, $unset: unset };
        await db
          .collection<MonitorDoc>(MONITORS)
          .updateOne(fence.filter({ _id: id }), fence.update(update as UpdateFilter<MonitorDoc>));
      }),
    deleted: (id) =>
      ops.defer(async (db, fence) => {
        await db.collection<MonitorDoc>(MONITORS).updateOne(fence.filter({ _id: id }), fence.update(TOMBSTONE));
        await db.collection<CheckDoc>(CHECKS).deleteMany({ monitor_id: id });
        await db.collection<UptimeDoc>(UPTIME).deleteMany({ monitor_id: id });
        await db.collection<UptimeDoc>(UPTIME_DAYS).deleteMany({ monitor_id: id });
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
              ...(check.certificate === undefined ? {} : { last_certificate: check.certificate }),
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
    counted: (id, check, position) =>
      ops.defer(async (db) => {
        if (!(await db.collection<MonitorDoc>(MONITORS).findOne(live({ _id: id }), { projection: { _id: 1 } }))) return;
        const key = positionKey(position);
        const ms = check.ok ? check.response_ms : 0;
        const buckets = [
          { name: UPTIME, start: uptimeHourOf(check.checked_at), keep: (UPTIME_HOURS_KEPT - 1) * HOUR_MS },
          { name: UPTIME_DAYS, start: uptimeDayOf(check.checked_at), keep: (UPTIME_DAYS_KEPT - 1) * DAY_MS },
        ];
        for (const { name, start, keep } of buckets) {
          const uptime = db.collection<UptimeDoc>(name);
          const _id = `${id}:${start}`;
          // Steps run in log order: a check at or before the bucket's last position was counted.
          const counted = await uptime.updateOne(
            { _id, last_position: { $lt: key } },
            { $inc: { ok: check.ok ? 1 : 0, total: 1, ok_response_ms: ms }, $set: { last_position: key } },
          );
          if (counted.matchedCount === 0 && !(await uptime.findOne({ _id }, { projection: { _id: 1 } }))) {
            await uptime.insertOne({
              _id,
              monitor_id: id,
              start,
              ok: check.ok ? 1 : 0,
              total: 1,
              ok_response_ms: ms,
              last_position: key,
            });
          }
          const newest = await uptime.find({ monitor_id: id }).sort({ start: -1 }).limit(1).next();
          if (newest) await uptime.deleteMany({ monitor_id: id, start: { $lt: newest.start - keep } });
        }
      }),
  };
};

class MongoMonitorsQueries implements MonitorsQueries {
  constructor(private readonly db: Db) {}

  async list(scope: Scope, projectId?: string): Promise<MonitorView[]> {
    return (await listInScope(this.db.collection<MonitorDoc>(MONITORS), scope, projectId)).map(toMonitor);
  }

  async get(id: string, scope: Scope): Promise<MonitorView | null> {
    const doc = await this.db.collection<MonitorDoc>(MONITORS).findOne(live({ _id: id }));
    return doc && inScope(scope, doc.project_id) ? toMonitor(doc) : null;
  }

  async scheduled(): Promise<MonitorSchedule[]> {
    const docs = await this.db
      .collection<MonitorDoc>(MONITORS)
      .find(live({}), { projection: SCHEDULE_PROJECTION })
      .toArray();
    return docs.map(({ _id, ...doc }) => ({ id: _id, ...doc }) as MonitorSchedule);
  }

  /** As the SQLite adapter's: count, newest creation and update, and the sums of the intervals
   *  and enabled flags of the live monitors, in one aggregation. */
  async scheduleVersion(): Promise<string> {
    const [summary] = await this.db
      .collection<MonitorDoc>(MONITORS)
      .aggregate([
        { $match: live({}) },
        {
          $group: {
            _id: null,
            n: { $sum: 1 },
            c: { $max: '$created_at' },
            u: { $max: '$updated_at' },
            e: { $sum: { $cond: ['$enabled', 1, 0] } },
            i: { $sum: '$interval_seconds' },
          },
        },
      ])
      .toArray();
    return JSON.stringify(summary ?? null);
  }

  async byHeartbeatToken(tokenHash: string): Promise<MonitorView | null> {
    const doc = await this.db.collection<MonitorDoc>(MONITORS).findOne(live({ heartbeat_token_hash: tokenHash }));
    return doc && toMonitor(doc);
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
    const read = (name: string, from: number) =>
      this.db
        .collection<UptimeDoc>(name)
        .find({ monitor_id: { $in: [...ids] }, start: { $gte: from } })
        .toArray();
    const [hours, days] = await Promise.all([
      read(UPTIME, uptimeHourOf(now) - (UPTIME_HOURS_KEPT - 1) * HOUR_MS),
      read(UPTIME_DAYS, uptimeDayOf(now) - (UPTIME_DAYS_KEPT - 1) * DAY_MS),
    ]);
    const of = (buckets: UptimeDoc[], id: string) => buckets.filter((b) => b.monitor_id === id);
    return new Map(ids.map((id) => [id, uptimeAt(of(hours, id), of(days, id), now)]));
  }

  async uptimeDays(ids: readonly string[], fromDay: number, now: Date): Promise<Map<string, UptimeBucket[]>> {
    const docs = await this.db
      .collection<UptimeDoc>(UPTIME_DAYS)
      .find({ monitor_id: { $in: [...ids] }, start: { $gte: fromDay, $lte: uptimeDayOf(now) } })
      .sort({ start: 1 })
      .toArray();
    const days = new Map<string, UptimeBucket[]>(ids.map((id) => [id, []]));
    for (const { monitor_id, start, ok, total, ok_response_ms } of docs)
      days.get(monitor_id)?.push({ start, ok, total, ok_response_ms });
    return days;
  }
}

export const mongoMonitors: MongoReadModel<MonitorsWriter, MonitorsQueries> = {
  schema: monitorsMongoSchema,
  batchWriter: () => mongoMonitorsWriter,
  queries: (db) => new MongoMonitorsQueries(db),
};
