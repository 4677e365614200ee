import type Database from 'better-sqlite3';
import type { ExpiredRange } from '../../domain/retention.ts';
import {
  HOUR_MS,
  MINUTE_MS,
  addCounts,
  hourOf,
  mergeInto,
  planRange,
  type Bins,
  type StatsBucket,
} from '../../domain/stats.ts';
import type { ServiceActivity } from '../../domain/anomaly.ts';
import { projectsInScope, type Scope } from '../../domain/scope.ts';
import type { ServiceBaselineRow, StatsFilter, StatsQueries, StatsWriter } from './port.ts';
import { Where, statementCache, type BatchedWriter, type SqliteSchema, type SqliteReadModel } from '../store/sqlite.ts';

/** Stats buckets: one row per project × minute × service × environment (the key, in the order
 *  range queries use it), counters as columns, response-time bins as a JSON object. */
const bucketTable = (table: string) => `
CREATE TABLE IF NOT EXISTS ${table} (
  project_id   TEXT NOT NULL,
  minute       INTEGER NOT NULL,
  service_name TEXT NOT NULL,
  environment  TEXT NOT NULL,
  total INTEGER NOT NULL, errors_4xx INTEGER NOT NULL, errors_5xx INTEGER NOT NULL,
  c1 INTEGER NOT NULL, c2 INTEGER NOT NULL, c3 INTEGER NOT NULL, c4 INTEGER NOT NULL, c5 INTEGER NOT NULL,
  m_get INTEGER NOT NULL, m_post INTEGER NOT NULL, m_put INTEGER NOT NULL, m_delete INTEGER NOT NULL,
  rt_count INTEGER NOT NULL, rt_sum REAL NOT NULL, last_ts INTEGER NOT NULL,
  bins TEXT NOT NULL,
  PRIMARY KEY (project_id, minute, service_name, environment)
) WITHOUT ROWID;
`;

/** Stats buckets: one row per project × minute × service × environment (the key, in the order
 *  range queries use it), counters as columns, response-time bins as a JSON object; and the same
 *  per hour (`minute` then holds the hour's start), so a day's statistics read 24 rows per
 *  service instead of 1,440. */
const statsSchema: SqliteSchema = {
  version: 2,
  tables: ['stats_minute', 'stats_hour'],
  create: bucketTable('stats_minute') + bucketTable('stats_hour'),
  // Only the anomaly scan's activity query (every project, a time range) reads by time alone.
  queryIndexes: `
CREATE INDEX IF NOT EXISTS stats_minute_time ON stats_minute (minute);
CREATE INDEX IF NOT EXISTS stats_hour_time ON stats_hour (minute);
`,
};

interface Row {
  project_id: string;
  minute: number;
  service_name: string;
  environment: string;
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  c1: number;
  c2: number;
  c3: number;
  c4: number;
  c5: number;
  m_get: number;
  m_post: number;
  m_put: number;
  m_delete: number;
  rt_count: number;
  rt_sum: number;
  last_ts: number;
  bins: string;
}

/** One upsert per bucket and table in a batch: the batch's contributions are summed in memory
 *  first (a busy service's minute gathers hundreds of events), then added to the stored row. Its
 *  bins are read and merged here, in the batch's transaction, and written whole: merging two JSON
 *  objects in SQL (json_each twice, a GROUP BY, json_group_object) cost several times more. */
const upsertInto = (db: Database.Database, table: string) => ({
  bins: db.prepare<[string, number, string, string], { bins: string }>(
    `SELECT bins FROM ${table} WHERE project_id = ? AND minute = ? AND service_name = ? AND environment = ?`,
  ),
  upsert: db.prepare(
    `INSERT INTO ${table} VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, minute, service_name, environment) DO UPDATE SET
        total = total + excluded.total, errors_4xx = errors_4xx + excluded.errors_4xx, ` +
      `errors_5xx = errors_5xx + excluded.errors_5xx,
        c1 = c1 + excluded.c1, c2 = c2 + excluded.c2, c3 = c3 + excluded.c3, ` +
      `c4 = c4 + excluded.c4, c5 = c5 + excluded.c5,
        m_get = m_get + excluded.m_get, m_post = m_post + excluded.m_post, m_put = m_put + excluded.m_put,
        m_delete = m_delete + excluded.m_delete, rt_count = rt_count + excluded.rt_count, ` +
      `rt_sum = rt_sum + excluded.rt_sum,
        last_ts = max(last_ts, excluded.last_ts), bins = excluded.bins`,
  ),
});

/** Adds the bucket to its stored row: the counters in SQL, the bins merged with the stored ones. */
const upsert = (into: ReturnType<typeof upsertInto>, b: StatsBucket, minute: number): void => {
  const stored = into.bins.get(b.project_id, minute, b.service_name, b.environment);
  const bins = stored === undefined ? b.bins : addCounts(JSON.parse(stored.bins) as Bins, b.bins);
  into.upsert.run(
    b.project_id,
    minute,
    b.service_name,
    b.environment,
    b.total,
    b.errors_4xx,
    b.errors_5xx,
    b.classes['1xx'] ?? 0,
    b.classes['2xx'] ?? 0,
    b.classes['3xx'] ?? 0,
    b.classes['4xx'] ?? 0,
    b.classes['5xx'] ?? 0,
    b.methods.GET ?? 0,
    b.methods.POST ?? 0,
    b.methods.PUT ?? 0,
    b.methods.DELETE ?? 0,
    b.rt_count,
    b.rt_sum,
    b.last_ts,
    JSON.stringify(bins),
  );
};

const keyOf = (b: StatsBucket, minute: number) =>
  `${b.project_id}\u0000${minute}\u0000${b.service_name}\u0000${b.environment}`;

class SqliteStatsWriter implements StatsWriter, BatchedWriter {
  private readonly minutes;
  private readonly hours;
  private readonly pending = { minutes: new Map<string, StatsBucket>(), hours: new Map<string, StatsBucket>() };
  private readonly expireMinutes;
  private readonly expireHours;
  constructor(db: Database.Database) {
    this.minutes = upsertInto(db, 'stats_minute');
    this.hours = upsertInto(db, 'stats_hour');
    // The primary keys lead with (project_id, minute).
    this.expireMinutes = db.prepare('DELETE FROM stats_minute WHERE project_id = ? AND minute <= ?');
    this.expireHours = db.prepare('DELETE FROM stats_hour WHERE project_id = ? AND minute <= ?');
  }

  /** What the batch gathered so far is written first: the delete applies to it too. */
  expire({ project_id, before }: ExpiredRange): void {
    this.flush();
    this.expireMinutes.run(project_id, before - MINUTE_MS);
    this.expireHours.run(project_id, before - HOUR_MS);
  }

  add(b: StatsBucket): void {
    gather(this.pending.minutes, keyOf(b, b.minute), b, b.minute);
    const hour = hourOf(b.minute);
    gather(this.pending.hours, keyOf(b, hour), b, hour);
  }

  flush(): void {
    for (const b of this.pending.minutes.values()) upsert(this.minutes, b, b.minute);
    for (const b of this.pending.hours.values()) upsert(this.hours, b, b.minute);
    this.discard();
  }

  discard(): void {
    this.pending.minutes.clear();
    this.pending.hours.clear();
  }
}

/** Into the batch's bucket of `key` (whose minute is `minute`: the event's, or its hour's). */
const gather = (pending: Map<string, StatsBucket>, key: string, b: StatsBucket, minute: number): void => {
  const seen = pending.get(key);
  // The first contribution is copied: later ones are added into it.
  if (seen) mergeInto(seen, b);
  else pending.set(key, { ...b, minute, classes: { ...b.classes }, methods: { ...b.methods }, bins: { ...b.bins } });
};

const nonZero = (entries: Array<[string, number]>) => Object.fromEntries(entries.filter(([, n]) => n > 0));

const toBucket = (r: Row): StatsBucket => ({
  project_id: r.project_id,
  service_name: r.service_name,
  environment: r.environment,
  minute: r.minute,
  total: r.total,
  errors_4xx: r.errors_4xx,
  errors_5xx: r.errors_5xx,
  classes: nonZero([
    ['1xx', r.c1],
    ['2xx', r.c2],
    ['3xx', r.c3],
    ['4xx', r.c4],
    ['5xx', r.c5],
  ]),
  methods: nonZero([
    ['GET', r.m_get],
    ['POST', r.m_post],
    ['PUT', r.m_put],
    ['DELETE', r.m_delete],
  ]),
  rt_count: r.rt_count,
  rt_sum: r.rt_sum,
  last_ts: r.last_ts,
  bins: JSON.parse(r.bins) as Bins,
});

interface ActivityRow {
  project_id: string;
  service_name: string;
  total: number;
  last_ts: number;
  environment: string;
}

/** Per service: the sum of its events and, through SQLite's bare-column rule for max(), the
 *  environment of the row holding its latest event. */
const activityIn = (
  table: string,
  bounds: string,
) => `SELECT project_id, service_name, SUM(total) AS total, MAX(last_ts) AS last_ts, environment
  FROM ${table} WHERE ${bounds} GROUP BY project_id, service_name`;

class SqliteStatsQueries implements StatsQueries {
  private readonly stmt;
  private readonly baselines;
  private readonly minuteActivity;
  private readonly hourActivity;
  constructor(db: Database.Database) {
    this.stmt = statementCache(db);
    this.baselines = db.prepare<[string, number, number], ServiceBaselineRow>(
      `SELECT service_name, MIN(minute) AS first_minute, SUM(t) AS sum, SUM(t * t) AS sum_squares
      FROM (SELECT service_name, minute, SUM(total) AS t FROM stats_minute ` +
        `WHERE project_id = ? AND minute >= ? AND minute < ? GROUP BY service_name, minute)
      GROUP BY service_name`,
    );
    this.minuteActivity = db.prepare<[number, number], ActivityRow>(
      activityIn('stats_minute', 'minute >= ? AND minute < ?'),
    );
    this.hourActivity = db.prepare<[number], ActivityRow>(activityIn('stats_hour', 'minute >= ?'));
  }

  async serviceBaselines(projectId: string, from: number, to: number): Promise<ServiceBaselineRow[]> {
    return this.baselines.all(projectId, from, to);
  }

  async serviceActivity(from: number): Promise<ServiceActivity[]> {
    const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
    const byService = new Map<string, ServiceActivity>();
    for (const row of [...this.minuteActivity.all(from, firstHour), ...this.hourActivity.all(firstHour)]) {
      const key = `${row.project_id}\u0000${row.service_name}`;
      const seen = byService.get(key);
      if (!seen) {
        byService.set(key, {
          project_id: row.project_id,
          service_name: row.service_name,
          environment: row.environment,
          last_event_at: row.last_ts,
          events_24h: row.total,
        });
        continue;
      }
      seen.events_24h += row.total;
      if (row.last_ts > seen.last_event_at)
        Object.assign(seen, { last_event_at: row.last_ts, environment: row.environment });
    }
    return [...byService.values()];
  }

  async buckets(f: StatsFilter, scope: Scope): Promise<StatsBucket[]> {
    const scoped = () =>
      new Where()
        .inProjects(projectsInScope(scope, f.project_id))
        .addIf(f.service_name, 'service_name = ?')
        .addIf(f.environment, 'environment = ?');
    if (scoped().matchesNothing) return [];
    const read = (table: string, [start, end]: [number, number], endOp: '<' | '<=') => {
      const where = scoped().add('minute >= ?', start).add(`minute ${endOp} ?`, end);
      return (this.stmt(`SELECT * FROM ${table} ${where}`).all(...where.params) as Row[]).map(toBucket);
    };
    const plan = f.hourly ? planRange(f.from, f.to) : { hours: null, minutes: [[f.from, f.to] as [number, number]] };
    return [
      ...(plan.hours ? read('stats_hour', plan.hours, '<') : []),
      ...plan.minutes.flatMap((range) => read('stats_minute', range, '<=')),
    ];
  }
}

export const sqliteStats: SqliteReadModel<StatsWriter, StatsQueries> = {
  schema: statsSchema,
  writer: (db) => new SqliteStatsWriter(db),
  queries: (db) => new SqliteStatsQueries(db),
};
