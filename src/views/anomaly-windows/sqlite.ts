import type Database from 'better-sqlite3';
import {
  WINDOW_RETENTION_MS,
  bucketStart,
  type AuthFailureSeries,
  type ServiceCounts,
  type ServiceSeries,
} from '../../domain/anomaly.ts';
import type { AnomalyWindowsQueries, AnomalyWindowsWriter, WindowContribution } from './port.ts';
import type { BatchedWriter, SqliteReadModel, SqliteSchema } from '../store/sqlite.ts';
import { ServiceSeriesBuilder } from '../../domain/service-series.ts';

/** 10-second buckets of every service (events, errors, DELETEs) and of every identifier that got
 *  a 401, keyed by bucket first: the scan reads a time range across all projects, and pruning
 *  deletes a prefix. `environment` is that of the latest event in the bucket. */
const anomalyWindowsSchema: SqliteSchema = {
  version: 1,
  tables: ['anomaly_service_10s', 'anomaly_auth_10s'],
  create: `
CREATE TABLE IF NOT EXISTS anomaly_service_10s (
  bucket INTEGER NOT NULL, project_id TEXT NOT NULL, service_name TEXT NOT NULL,
  total INTEGER NOT NULL, errors INTEGER NOT NULL, deletes INTEGER NOT NULL,
  environment TEXT NOT NULL, last_ts INTEGER NOT NULL,
  PRIMARY KEY (bucket, project_id, service_name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS anomaly_auth_10s (
  bucket INTEGER NOT NULL, project_id TEXT NOT NULL, identifier TEXT NOT NULL,
  failures INTEGER NOT NULL, service_name TEXT NOT NULL, environment TEXT NOT NULL, last_ts INTEGER NOT NULL,
  PRIMARY KEY (bucket, project_id, identifier)
) WITHOUT ROWID;`,
};

interface ServiceRow extends ServiceCounts {
  bucket: number;
  project_id: string;
  service_name: string;
  environment: string;
  last_ts: number;
}
type ServiceTuple = [
  bucket: number,
  project_id: string,
  service_name: string,
  total: number,
  errors: number,
  deletes: number,
  environment: string,
  last_ts: number,
];
interface AuthGroup {
  project_id: string;
  identifier: string;
  buckets: string;
  last_ts: number;
  service_name: string;
  environment: string;
}
interface AuthRow {
  bucket: number;
  project_id: string;
  identifier: string;
  failures: number;
  service_name: string;
  environment: string;
  last_ts: number;
}

/** How often (in event time) old buckets are deleted. */
const PRUNE_EVERY_MS = 60_000;

/** Gathers a batch's contributions per bucket in memory and writes each touched bucket once. */
class SqliteAnomalyWindowsWriter implements AnomalyWindowsWriter, BatchedWriter {
  private readonly services = new Map<string, ServiceRow>();
  private readonly auth = new Map<string, AuthRow>();
  private newest = 0;
  private prunedAt = Number.NEGATIVE_INFINITY;
  private readonly upsertService;
  private readonly upsertAuth;
  private readonly pruneServices;
  private readonly pruneAuth;

  constructor(db: Database.Database) {
    this.upsertService = db.prepare(`INSERT INTO anomaly_service_10s VALUES
      (@bucket, @project_id, @service_name, @total, @errors, @deletes, @environment, @last_ts)
      ON CONFLICT (bucket, project_id, service_name) DO UPDATE SET
        total = total + excluded.total, errors = errors + excluded.errors, deletes = deletes + excluded.deletes,
        environment = CASE WHEN excluded.last_ts >= last_ts THEN excluded.environment ELSE environment END,
        last_ts = max(last_ts, excluded.last_ts)`);
    this.upsertAuth = db.prepare(`INSERT INTO anomaly_auth_10s VALUES
      (@bucket, @project_id, @identifier, @failures, @service_name, @environment, @last_ts)
      ON CONFLICT (bucket, project_id, identifier) DO UPDATE SET
        failures = failures + excluded.failures,
        service_name = CASE WHEN excluded.last_ts >= last_ts THEN excluded.service_name ELSE service_name END,
        environment = CASE WHEN excluded.last_ts >= last_ts THEN excluded.environment ELSE environment END,
        last_ts = max(last_ts, excluded.last_ts)`);
    this.pruneServices = db.prepare('DELETE FROM anomaly_service_10s WHERE bucket < ?');
    this.pruneAuth = db.prepare('DELETE FROM anomaly_auth_10s WHERE bucket < ?');
  }

  add(c: WindowContribution): void {
    const bucket = bucketStart(c.timestamp);
    this.newest = Math.max(this.newest, c.timestamp);
    const error = c.status_code !== undefined && c.status_code >= 400 ? 1 : 0;
    const del = c.method === 'DELETE' ? 1 : 0;
    const serviceKey = `${bucket}\u0000${c.project_id}\u0000${c.service_name}`;
    const row = this.services.get(serviceKey);
    if (row) {
      row.total += 1;
      row.errors += error;
      row.deletes += del;
      if (c.timestamp >= row.last_ts) {
        row.environment = c.environment;
        row.last_ts = c.timestamp;
      }
    } else {
      this.services.set(serviceKey, {
        bucket,
        project_id: c.project_id,
        service_name: c.service_name,
        total: 1,
        errors: error,
        deletes: del,
        environment: c.environment,
        last_ts: c.timestamp,
      });
    }
    if (c.status_code !== 401) return;
    const authKey = `${bucket}\u0000${c.project_id}\u0000${c.identifier}`;
    const failures = this.auth.get(authKey);
    if (!failures) {
      this.auth.set(authKey, {
        bucket,
        project_id: c.project_id,
        identifier: c.identifier,
        failures: 1,
        service_name: c.service_name,
        environment: c.environment,
        last_ts: c.timestamp,
      });
      return;
    }
    failures.failures += 1;
    if (c.timestamp >= failures.last_ts)
      Object.assign(failures, { service_name: c.service_name, environment: c.environment, last_ts: c.timestamp });
  }

  flush(): void {
    for (const row of this.services.values()) this.upsertService.run(row);
    for (const row of this.auth.values()) this.upsertAuth.run(row);
    this.discard();
    if (this.newest - this.prunedAt >= PRUNE_EVERY_MS) {
      const before = bucketStart(this.newest - WINDOW_RETENTION_MS);
      this.pruneServices.run(before);
      this.pruneAuth.run(before);
      this.prunedAt = this.newest;
    }
  }

  discard(): void {
    this.services.clear();
    this.auth.clear();
  }
}

class SqliteAnomalyWindowsQueries implements AnomalyWindowsQueries {
  private readonly servicesIn;
  private readonly authIn;

  constructor(db: Database.Database) {
    // Rows as arrays: tens of thousands of them per scan, and objects cost more to build.
    this.servicesIn = db
      .prepare<[number, number], ServiceTuple>(
        'SELECT bucket, project_id, service_name, total, errors, deletes, environment, last_ts ' +
          'FROM anomaly_service_10s WHERE bucket BETWEEN ? AND ?',
      )
      .raw(true);
    // One pass over the range, grouped per identifier: only those with enough 401s come back,
    // their buckets packed as "bucket:count" pairs, and (SQLite's bare-column rule for max())
    // the service and environment of their latest 401.
    this.authIn = db.prepare<{ from: number; to: number; min: number }, AuthGroup>(
      `
      SELECT project_id, identifier, group_concat(bucket || ':' || failures) AS buckets, ` +
        `MAX(last_ts) AS last_ts, service_name, environment
      FROM anomaly_auth_10s WHERE bucket BETWEEN @from AND @to
      GROUP BY project_id, identifier HAVING SUM(failures) >= @min`,
    );
  }

  async serviceSeries(from: number, to: number, minTotal: number): Promise<ServiceSeries[]> {
    const series = new ServiceSeriesBuilder();
    for (const [bucket, projectId, serviceName, total, errors, deletes, environment, lastTs] of this.servicesIn.all(
      from,
      to,
    )) {
      series.add(bucket, projectId, serviceName, { total, errors, deletes }, environment, lastTs);
    }
    return series.build(minTotal);
  }

  async authFailureSeries(from: number, to: number, minCount: number): Promise<AuthFailureSeries[]> {
    return this.authIn.all({ from, to, min: minCount }).map((g) => ({
      project_id: g.project_id,
      identifier: g.identifier,
      service_name: g.service_name,
      environment: g.environment,
      buckets: new Map(g.buckets.split(',').map((pair) => pair.split(':').map(Number) as [number, number])),
    }));
  }
}

export const sqliteAnomalyWindows: SqliteReadModel<AnomalyWindowsWriter, AnomalyWindowsQueries> = {
  schema: anomalyWindowsSchema,
  writer: (db) => new SqliteAnomalyWindowsWriter(db),
  queries: (db) => new SqliteAnomalyWindowsQueries(db),
};
