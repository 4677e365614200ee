import type Database from 'better-sqlite3';
import { HOUR_MS } from '../../domain/stats.ts';
import { applyChanges, CHECKS_KEPT, optionsIn, type SettingsChanges } from '../../domain/monitor.ts';
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
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { CheckView, MonitorSchedule, MonitorView, MonitorsQueries, MonitorsWriter } from './port.ts';
import { Where, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Monitors with their state and last check, the last CHECKS_KEPT checks of each, and their
 *  checks counted per hour and per day (for uptime). A monitor's options are one JSON column:
 *  no query filters on them. */
const monitorsSchema: SqliteSchema = {
  version: 3,
  tables: ['monitors', 'monitor_checks', 'monitor_uptime', 'monitor_uptime_days'],
  create: `
CREATE TABLE IF NOT EXISTS monitors (
  id TEXT PRIMARY KEY,
  project_id TEXT NOT NULL,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  interval_seconds INTEGER NOT NULL,
  timeout_seconds INTEGER NOT NULL,
  expected_status INTEGER NOT NULL,
  enabled INTEGER NOT NULL,
  status TEXT NOT NULL,
  status_since TEXT,
  last_checked_at TEXT,
  last_status_code INTEGER,
  last_response_ms INTEGER,
  last_error TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  type TEXT NOT NULL,
  options TEXT NOT NULL,
  heartbeat_token_hash TEXT,
  last_certificate TEXT
);
CREATE INDEX IF NOT EXISTS monitors_project ON monitors (project_id, created_at);
CREATE UNIQUE INDEX IF NOT EXISTS monitors_heartbeat ON monitors (heartbeat_token_hash)
  WHERE heartbeat_token_hash IS NOT NULL;
CREATE TABLE IF NOT EXISTS monitor_checks (
  position INTEGER PRIMARY KEY,
  monitor_id TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  status_code INTEGER,
  response_ms INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  error TEXT,
  details TEXT
);
CREATE INDEX IF NOT EXISTS monitor_checks_recent ON monitor_checks (monitor_id, checked_at DESC, position DESC);
CREATE TABLE IF NOT EXISTS monitor_uptime (
  monitor_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  total INTEGER NOT NULL,
  ok_response_ms INTEGER NOT NULL,
  last_position INTEGER NOT NULL,
  PRIMARY KEY (monitor_id, hour)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS monitor_uptime_days (
  monitor_id TEXT NOT NULL,
  day INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  total INTEGER NOT NULL,
  ok_response_ms INTEGER NOT NULL,
  last_position INTEGER NOT NULL,
  PRIMARY KEY (monitor_id, day)
) WITHOUT ROWID;
`,
};

type ScheduleRow = Omit<MonitorSchedule, 'enabled' | 'retry_interval_seconds'> & {
  enabled: number;
  retry_interval_seconds: number | null;
};

interface MonitorRow {
  id: string;
  project_id: string;
  name: string;
  url: string;
  interval_seconds: number;
  timeout_seconds: number;
  expected_status: number;
  enabled: number;
  status: MonitorView['status'];
  status_since: string | null;
  last_checked_at: string | null;
  last_status_code: number | null;
  last_response_ms: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  type: string;
  options: string;
  heartbeat_token_hash: string | null;
  last_certificate: string | null;
}
interface CheckRow {
  checked_at: string;
  status_code: number | null;
  response_ms: number;
  ok: number;
  error: string | null;
  details: string | null;
}

const toMonitor = ({
  enabled,
  options,
  type,
  heartbeat_token_hash: _h,
  last_certificate,
  ...rest
}: MonitorRow): MonitorView =>
  ({
    ...rest,
    enabled: enabled === 1,
    type,
    ...JSON.parse(options),
    last_certificate: last_certificate === null ? null : JSON.parse(last_certificate),
  }) as MonitorView;
const toCheck = ({ ok, details, ...rest }: CheckRow): CheckView => ({
  ...rest,
  ok: ok === 1,
  ...(details === null ? {} : JSON.parse(details)),
});

/** The SPEC settings kept in their own columns; the options go to `options`. */
const SPEC_COLUMNS = new Set(['name', 'url', 'interval_seconds', 'timeout_seconds', 'expected_status', 'enabled']);
const optionsOf = (settings: object): string => JSON.stringify(optionsIn(settings));

const OPTION_FIELDS = ['type', 'options'];

class SqliteMonitorsWriter implements MonitorsWriter {
  private readonly stmts;
  private readonly updates = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        'INSERT OR IGNORE INTO monitors VALUES ' +
          `(@id, @project_id, @name, @url, @interval_seconds, @timeout_seconds,
        @expected_status, @enabled, @status, @status_since, @last_checked_at, @last_status_code, ` +
          '@last_response_ms, @last_error, @created_at, @updated_at, @type, @options, @heartbeat_token_hash, NULL)',
      ),
      row: db.prepare<[string], MonitorRow>('SELECT * FROM monitors WHERE id = ?'),
      delete: db.prepare('DELETE FROM monitors WHERE id = ?'),
      deleteChecks: db.prepare('DELETE FROM monitor_checks WHERE monitor_id = ?'),
      status: db.prepare('UPDATE monitors SET status = ?, status_since = ? WHERE id = ?'),
      exists: db.prepare<[string], { id: string }>('SELECT id FROM monitors WHERE id = ?'),
      insertCheck: db.prepare('INSERT OR IGNORE INTO monitor_checks VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      last: db.prepare(
        'UPDATE monitors SET last_checked_at = @checked_at, last_status_code = @status_code, ' +
          `last_response_ms = @response_ms, last_error = @error,
        last_certificate = COALESCE(@certificate, last_certificate)
        WHERE id = @id AND (last_checked_at IS NULL OR last_checked_at <= @checked_at)`,
      ),
      trim: db.prepare(
        `DELETE FROM monitor_checks WHERE monitor_id = ? AND position NOT IN
        (SELECT position FROM monitor_checks WHERE monitor_id = ? ` +
          `ORDER BY checked_at DESC, position DESC LIMIT ${CHECKS_KEPT})`,
      ),
      // A bucket remembers the last position it counted: positions come in log order, so a
      // replayed check is one at or before it.
      countHour: db.prepare(
        `INSERT INTO monitor_uptime VALUES (@id, @start, @ok, 1, @ms, @position)
        ON CONFLICT (monitor_id, hour) DO UPDATE SET ok = ok + excluded.ok, total = total + 1, ` +
          `ok_response_ms = ok_response_ms + excluded.ok_response_ms, last_position = excluded.last_position
        WHERE last_position < excluded.last_position`,
      ),
      countDay: db.prepare(
        `INSERT INTO monitor_uptime_days VALUES (@id, @start, @ok, 1, @ms, @position)
        ON CONFLICT (monitor_id, day) DO UPDATE SET ok = ok + excluded.ok, total = total + 1, ` +
          `ok_response_ms = ok_response_ms + excluded.ok_response_ms, last_position = excluded.last_position
        WHERE last_position < excluded.last_position`,
      ),
      pruneHours: db.prepare(`DELETE FROM monitor_uptime WHERE monitor_id = ?
        AND hour < (SELECT MAX(hour) FROM monitor_uptime WHERE monitor_id = ?) - ${(UPTIME_HOURS_KEPT - 1) * HOUR_MS}`),
      pruneDays: db.prepare(`DELETE FROM monitor_uptime_days WHERE monitor_id = ? AND day <
        (SELECT MAX(day) FROM monitor_uptime_days WHERE monitor_id = ?) - ${(UPTIME_DAYS_KEPT - 1) * DAY_MS}`),
      deleteUptime: db.prepare('DELETE FROM monitor_uptime WHERE monitor_id = ?'),
      deleteUptimeDays: db.prepare('DELETE FROM monitor_uptime_days WHERE monitor_id = ?'),
    };
  }

  created(m: MonitorView, heartbeatTokenHash: string | null): void {
    this.stmts.insert.run({
      id: m.id,
      project_id: m.project_id,
      name: m.name,
      url: m.url,
      interval_seconds: m.interval_seconds,
      timeout_seconds: m.timeout_seconds,
      expected_status: m.expected_status,
      enabled: m.enabled ? 1 : 0,
      status: m.status,
      status_since: m.status_since,
      last_checked_at: m.last_checked_at,
      last_status_code: m.last_status_code,
      last_response_ms: m.last_response_ms,
      last_error: m.last_error,
      created_at: m.created_at,
      updated_at: m.updated_at,
      type: m.type ?? 'http',
      options: optionsOf(m),
      heartbeat_token_hash: heartbeatTokenHash,
    });
  }

  updated(id: string, changes: SettingsChanges, updatedAt: string): void {
    const fields = Object.keys(changes).filter((k) => SPEC_COLUMNS.has(k));
    const optionsChanged = Object.keys(changes).some((k) => !SPEC_COLUMNS.has(k));
    const row = optionsChanged ? this.stmts.row.get(id) : undefined;
    if (optionsChanged && row === undefined) return;
    const set = [...fields, 'updated_at', ...(optionsChanged ? OPTION_FIELDS.slice(1) : [])];
    const sql = `UPDATE monitors SET ${set.map((f) => `${f} = @${f}`).join(', ')} WHERE id = @id`;
    let stmt = this.updates.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.updates.set(sql, stmt);
    }
    const values: Record<string, unknown> = Object.fromEntries(
      fields.map((f) => [f, f === 'enabled' ? (changes.enabled ? 1 : 0) : changes[f as keyof SettingsChanges]]),
    );
    if (row !== undefined) values.options = optionsOf(applyChanges(JSON.parse(row.options), changes));
    stmt.run({ ...values, updated_at: updatedAt, id });
  }

  deleted(id: string): void {
    this.stmts.delete.run(id);
    this.stmts.deleteChecks.run(id);
    this.stmts.deleteUptime.run(id);
    this.stmts.deleteUptimeDays.run(id);
  }

  status(id: string, status: 'UP' | 'DOWN', since: string): void {
    this.stmts.status.run(status, since, id);
  }

  checked(id: string, check: CheckView, position: string): void {
    if (!this.stmts.exists.get(id)) return;
    const { checked_at, status_code, response_ms, ok, error, ...details } = check;
    this.stmts.insertCheck.run(
      Number(position),
      id,
      checked_at,
      status_code,
      response_ms,
      ok ? 1 : 0,
      error,
      Object.keys(details).length === 0 ? null : JSON.stringify(details),
    );
    this.stmts.last.run({
      checked_at,
      status_code,
      response_ms,
      error,
      certificate: details.certificate === undefined ? null : JSON.stringify(details.certificate),
      id,
    });
    this.stmts.trim.run(id, id);
  }

  counted(id: string, check: Pick<CheckView, 'checked_at' | 'ok' | 'response_ms'>, position: string): void {
    if (!this.stmts.exists.get(id)) return;
    const common = { id, ok: check.ok ? 1 : 0, ms: check.ok ? check.response_ms : 0, position: Number(position) };
    this.stmts.countHour.run({ ...common, start: uptimeHourOf(check.checked_at) });
    this.stmts.countDay.run({ ...common, start: uptimeDayOf(check.checked_at) });
    this.stmts.pruneHours.run(id, id);
    this.stmts.pruneDays.run(id, id);
  }
}

class SqliteMonitorsQueries implements MonitorsQueries {
  private readonly stmts;
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], MonitorRow>('SELECT * FROM monitors WHERE id = ?'),
      byToken: db.prepare<[string], MonitorRow>('SELECT * FROM monitors WHERE heartbeat_token_hash = ?'),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM monitors WHERE project_id = ?'),
      history: db.prepare<[string, number], CheckRow>(
        'SELECT checked_at, status_code, response_ms, ok, error, details FROM monitor_checks ' +
          'WHERE monitor_id = ? ORDER BY checked_at DESC, position DESC LIMIT ?',
      ),
      hours: db.prepare<[string, number], UptimeBucket>(
        'SELECT hour AS start, ok, total, ok_response_ms FROM monitor_uptime WHERE monitor_id = ? AND hour >= ?',
      ),
      days: db.prepare<[string, number], UptimeBucket>(
        'SELECT day AS start, ok, total, ok_response_ms FROM monitor_uptime_days WHERE monitor_id = ? AND day >= ?',
      ),
      daysBetween: db.prepare<[string, number, number], UptimeBucket>(
        'SELECT day AS start, ok, total, ok_response_ms FROM monitor_uptime_days ' +
          'WHERE monitor_id = ? AND day >= ? AND day <= ? ORDER BY day',
      ),
      // A creation moves the count and the newest created_at, a deletion the count, an update
      // updated_at and usually the sums: a change that moves none is for the periodic full pass.
      scheduled: db.prepare<[], ScheduleRow>(
        'SELECT id, type, interval_seconds, enabled, status, last_checked_at, last_error, updated_at, ' +
          "json_extract(options, '$.retry_interval_seconds') AS retry_interval_seconds FROM monitors",
      ),
      scheduleVersion: db.prepare<[], Record<string, number | string | null>>(
        'SELECT count(*) AS n, max(created_at) AS c, max(updated_at) AS u, total(enabled) AS e, ' +
          'total(interval_seconds) AS i FROM monitors',
      ),
    };
  }

  async list(scope: Scope, projectId?: string): Promise<MonitorView[]> {
    const where = new Where().inProjects(projectsInScope(scope, projectId));
    if (where.matchesNothing) return [];
    return (
      this.db.prepare(`SELECT * FROM monitors ${where} ORDER BY created_at, id`).all(...where.params) as MonitorRow[]
    ).map(toMonitor);
  }

  async get(id: string, scope: Scope): Promise<MonitorView | null> {
    const row = this.stmts.get.get(id);
    return row && inScope(scope, row.project_id) ? toMonitor(row) : null;
  }

  async byHeartbeatToken(tokenHash: string): Promise<MonitorView | null> {
    const row = this.stmts.byToken.get(tokenHash);
    return row ? toMonitor(row) : null;
  }

  async countInProject(projectId: string): Promise<number> {
    return this.stmts.count.get(projectId)!.n;
  }

  async history(id: string, limit: number): Promise<CheckView[]> {
    return this.stmts.history.all(id, limit).map(toCheck);
  }

  async uptime(ids: readonly string[], now: Date): Promise<Map<string, MonitorUptime>> {
    const fromHour = uptimeHourOf(now) - (UPTIME_HOURS_KEPT - 1) * HOUR_MS;
    const fromDay = uptimeDayOf(now) - (UPTIME_DAYS_KEPT - 1) * DAY_MS;
    return new Map(
      ids.map((id) => [id, uptimeAt(this.stmts.hours.all(id, fromHour), this.stmts.days.all(id, fromDay), now)]),
    );
  }

  async uptimeDays(ids: readonly string[], fromDay: number, now: Date): Promise<Map<string, UptimeBucket[]>> {
    const today = uptimeDayOf(now);
    return new Map(ids.map((id) => [id, this.stmts.daysBetween.all(id, fromDay, today)]));
  }

  async scheduled(): Promise<MonitorSchedule[]> {
    return (this.stmts.scheduled.all() as ScheduleRow[]).map(({ enabled, retry_interval_seconds, ...row }) => ({
      ...row,
      enabled: enabled === 1,
      ...(retry_interval_seconds === null ? {} : { retry_interval_seconds }),
    }));
  }

  async scheduleVersion(): Promise<string> {
    return JSON.stringify(this.stmts.scheduleVersion.get());
  }
}

export const sqliteMonitors: SqliteReadModel<MonitorsWriter, MonitorsQueries> = {
  schema: monitorsSchema,
  writer: (db) => new SqliteMonitorsWriter(db),
  queries: (db) => new SqliteMonitorsQueries(db),
};
