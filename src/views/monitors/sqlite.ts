import type Database from 'better-sqlite3';
import { HOUR_MS } from '../../domain/stats.ts';
import {
  CHECKS_KEPT,
  UPTIME_HOURS_KEPT,
  uptimeAt,
  uptimeHourOf,
  type MonitorSettings,
  type UptimeBucket,
} from '../../domain/monitor.ts';
import { inScope, projectsInScope, type Scope } from '../../domain/scope.ts';
import type { CheckView, MonitorUptime, MonitorView, MonitorsQueries, MonitorsWriter } from './port.ts';
import { Where, type SqliteReadModel, type SqliteSchema } from '../store/sqlite.ts';

/** Monitors with their state and last check, the last CHECKS_KEPT checks of each, and their
 *  checks counted per hour (for uptime). */
const monitorsSchema: SqliteSchema = {
  version: 2,
  tables: ['monitors', 'monitor_checks', 'monitor_uptime'],
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
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS monitors_project ON monitors (project_id, created_at);
CREATE TABLE IF NOT EXISTS monitor_checks (
  position INTEGER PRIMARY KEY,
  monitor_id TEXT NOT NULL,
  checked_at TEXT NOT NULL,
  status_code INTEGER,
  response_ms INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS monitor_checks_recent ON monitor_checks (monitor_id, checked_at DESC, position DESC);
CREATE TABLE IF NOT EXISTS monitor_uptime (
  monitor_id TEXT NOT NULL,
  hour INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  total INTEGER NOT NULL,
  last_position INTEGER NOT NULL,
  PRIMARY KEY (monitor_id, hour)
) WITHOUT ROWID;
`,
};

interface MonitorRow extends Omit<MonitorView, 'enabled'> {
  enabled: number;
}
interface CheckRow extends Omit<CheckView, 'ok'> {
  ok: number;
}

const toMonitor = ({ enabled, ...rest }: MonitorRow): MonitorView => ({ ...rest, enabled: enabled === 1 });
const toCheck = ({ ok, ...rest }: CheckRow): CheckView => ({ ...rest, ok: ok === 1 });

const SETTINGS: ReadonlyArray<keyof MonitorSettings> = [
  'name',
  'url',
  'interval_seconds',
  'timeout_seconds',
  'expected_status',
  'enabled',
];

class SqliteMonitorsWriter implements MonitorsWriter {
  private readonly stmts;
  private readonly updates = new Map<string, Database.Statement>();
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      insert: db.prepare(
        'INSERT OR IGNORE INTO monitors VALUES ' +
          `(@id, @project_id, @name, @url, @interval_seconds, @timeout_seconds,
        @expected_status, @enabled, @status, @status_since, @last_checked_at, @last_status_code, ` +
          '@last_response_ms, @last_error, @created_at, @updated_at)',
      ),
      delete: db.prepare('DELETE FROM monitors WHERE id = ?'),
      deleteChecks: db.prepare('DELETE FROM monitor_checks WHERE monitor_id = ?'),
      status: db.prepare('UPDATE monitors SET status = ?, status_since = ? WHERE id = ?'),
      exists: db.prepare<[string], { id: string }>('SELECT id FROM monitors WHERE id = ?'),
      insertCheck: db.prepare('INSERT OR IGNORE INTO monitor_checks VALUES (?, ?, ?, ?, ?, ?, ?)'),
      last: db.prepare(
        'UPDATE monitors SET last_checked_at = @checked_at, last_status_code = @status_code, ' +
          `last_response_ms = @response_ms,
        last_error = @error WHERE id = @id AND (last_checked_at IS NULL OR last_checked_at <= @checked_at)`,
      ),
      trim: db.prepare(
        `DELETE FROM monitor_checks WHERE monitor_id = ? AND position NOT IN
        (SELECT position FROM monitor_checks WHERE monitor_id = ? ` +
          `ORDER BY checked_at DESC, position DESC LIMIT ${CHECKS_KEPT})`,
      ),
      // A bucket remembers the last position it counted: positions come in log order, so a
      // replayed check is one at or before it.
      count: db.prepare(
        `INSERT INTO monitor_uptime VALUES (@id, @hour, @ok, 1, @position)
        ON CONFLICT (monitor_id, hour) DO UPDATE SET ok = ok + excluded.ok, total = total + 1, ` +
          `last_position = excluded.last_position
        WHERE last_position < excluded.last_position`,
      ),
      prune: db.prepare(`DELETE FROM monitor_uptime WHERE monitor_id = ?
        AND hour < (SELECT MAX(hour) FROM monitor_uptime WHERE monitor_id = ?) - ${(UPTIME_HOURS_KEPT - 1) * HOUR_MS}`),
      deleteUptime: db.prepare('DELETE FROM monitor_uptime WHERE monitor_id = ?'),
    };
  }

  created(m: MonitorView): void {
    this.stmts.insert.run({ ...m, enabled: m.enabled ? 1 : 0 });
  }

  updated(id: string, changes: Partial<MonitorSettings>, updatedAt: string): void {
    const fields = SETTINGS.filter((k) => changes[k] !== undefined);
    const sql = `UPDATE monitors SET ${[...fields, 'updated_at'].map((f) => `${f} = @${f}`).join(', ')} WHERE id = @id`;
    let stmt = this.updates.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.updates.set(sql, stmt);
    }
    const values = Object.fromEntries(fields.map((f) => [f, f === 'enabled' ? (changes.enabled ? 1 : 0) : changes[f]]));
    stmt.run({ ...values, updated_at: updatedAt, id });
  }

  deleted(id: string): void {
    this.stmts.delete.run(id);
    this.stmts.deleteChecks.run(id);
    this.stmts.deleteUptime.run(id);
  }

  status(id: string, status: 'UP' | 'DOWN', since: string): void {
    this.stmts.status.run(status, since, id);
  }

  checked(id: string, check: CheckView, position: string): void {
    if (!this.stmts.exists.get(id)) return;
    this.stmts.insertCheck.run(
      Number(position),
      id,
      check.checked_at,
      check.status_code,
      check.response_ms,
      check.ok ? 1 : 0,
      check.error,
    );
    this.stmts.last.run({ ...check, id });
    this.stmts.trim.run(id, id);
  }

  counted(id: string, hour: number, ok: boolean, position: string): void {
    if (!this.stmts.exists.get(id)) return;
    this.stmts.count.run({ id, hour, ok: ok ? 1 : 0, position: Number(position) });
    this.stmts.prune.run(id, id);
  }
}

class SqliteMonitorsQueries implements MonitorsQueries {
  private readonly stmts;
  constructor(private readonly db: Database.Database) {
    this.stmts = {
      get: db.prepare<[string], MonitorRow>('SELECT * FROM monitors WHERE id = ?'),
      count: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM monitors WHERE project_id = ?'),
      history: db.prepare<[string, number], CheckRow>(
        'SELECT checked_at, status_code, response_ms, ok, error FROM monitor_checks ' +
          'WHERE monitor_id = ? ORDER BY checked_at DESC, position DESC LIMIT ?',
      ),
      uptime: db.prepare<[string, number], UptimeBucket>(
        'SELECT hour, ok, total FROM monitor_uptime WHERE monitor_id = ? AND hour >= ?',
      ),
      // A creation moves the count and the newest created_at, a deletion the count, an update
      // updated_at and usually the sums: a change that moves none is for the periodic full pass.
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

  async countInProject(projectId: string): Promise<number> {
    return this.stmts.count.get(projectId)!.n;
  }

  async history(id: string, limit: number): Promise<CheckView[]> {
    return this.stmts.history.all(id, limit).map(toCheck);
  }

  async uptime(ids: readonly string[], now: Date): Promise<Map<string, MonitorUptime>> {
    const from = uptimeHourOf(now) - (UPTIME_HOURS_KEPT - 1) * HOUR_MS;
    return new Map(ids.map((id) => [id, uptimeAt(this.stmts.uptime.all(id, from), now)]));
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
