import type {
  AssertionResult,
  Certificate,
  MonitorSettings,
  MonitorStatus,
  SettingsChanges,
} from '../../domain/monitor.ts';
import type { MonitorUptime, UptimeBucket } from '../../domain/monitor-uptime.ts';
import type { MonitorType } from '../../domain/monitor-options.ts';
import type { Scope } from '../../domain/scope.ts';

/** Monitors and their check history. */

/** A monitor: its settings (secrets included: answers mask them), its state and its last check. */
export type MonitorView = MonitorSettings & {
  type: MonitorType;
  id: string;
  project_id: string;
  status: MonitorStatus;
  /** When the current status began; null while PENDING. */
  status_since: string | null;
  last_checked_at: string | null;
  last_status_code: number | null;
  last_response_ms: number | null;
  last_error: string | null;
  /** The certificate the newest check that saw one saw. */
  last_certificate: Certificate | null;
  created_at: string;
  updated_at: string;
};

/** What the check schedule reads of a monitor (src/jobs/check-schedule.ts). */
export type MonitorSchedule = Pick<
  MonitorView,
  | 'id'
  | 'type'
  | 'interval_seconds'
  | 'retry_interval_seconds'
  | 'enabled'
  | 'status'
  | 'last_checked_at'
  | 'last_error'
  | 'updated_at'
>;

/** A monitor as its routes answer it: `in_maintenance` while an open maintenance window covers
 *  it (from the maintenances read model, at the time of the answer). */
export type MonitorResponse = MonitorView & MonitorUptime & { in_maintenance: boolean };

/** What a check saw beyond SPEC's fields; each only when there was something to see. */
export interface CheckDetails {
  assertions?: AssertionResult[];
  certificate?: Certificate;
  dns_records?: string[];
  heartbeat?: 'beat' | 'missed';
  /** A maintenance window covered the monitor: the check is left out of uptime. */
  in_maintenance?: true;
}

/** One stored check (SPEC 2.9). */
export type CheckView = {
  checked_at: string;
  status_code: number | null;
  response_ms: number;
  ok: boolean;
  error: string | null;
} & CheckDetails;

export interface MonitorsWriter {
  /** `heartbeatTokenHash`: how a heartbeat monitor's beats find it. */
  created(monitor: MonitorView, heartbeatTokenHash: string | null): void;
  updated(id: string, changes: SettingsChanges, updatedAt: string): void;
  /** Removes the monitor and its history. */
  deleted(id: string): void;
  status(id: string, status: 'UP' | 'DOWN', since: string): void;
  /** Adds a check to the monitor's history (keeping the newest CHECKS_KEPT) and, when it is the
   *  newest, to the monitor's last-check fields; ignored once the monitor is deleted. `position`
   *  keys the row, so a replay adds nothing. */
  checked(id: string, check: CheckView, position: string): void;
  /** Counts a check in its monitor's hour and day buckets, once per `position` (a replay counts
   *  nothing), and drops buckets older than the longest window; ignored once the monitor is
   *  deleted. Positions must come in log order. */
  counted(id: string, check: Pick<CheckView, 'checked_at' | 'ok' | 'response_ms'>, position: string): void;
}

export interface MonitorsQueries {
  /** Oldest first, within scope (and the project, when given). */
  list(scope: Scope, projectId?: string): Promise<MonitorView[]>;
  get(id: string, scope: Scope): Promise<MonitorView | null>;
  /** The heartbeat monitor whose token has this SHA-256 (hex). */
  byHeartbeatToken(tokenHash: string): Promise<MonitorView | null>;
  countInProject(projectId: string): Promise<number>;
  /** Newest first. */
  history(id: string, limit: number): Promise<CheckView[]>;
  /** The uptime of each monitor at `now`; a monitor without buckets maps to nulls. */
  uptime(ids: readonly string[], now: Date): Promise<Map<string, MonitorUptime>>;
  /** Each monitor's day buckets from the UTC day starting at `fromDay` (epoch ms) to the day of
   *  `now`, oldest first: a status page's bars. Days without checks have no bucket; a monitor
   *  without buckets maps to an empty list. Only the last UPTIME_DAYS_KEPT days are kept. */
  uptimeDays(ids: readonly string[], fromDay: number, now: Date): Promise<Map<string, UptimeBucket[]>>;
  /** Every monitor's schedule, all projects: what a worker lists to plan its checks, far
   *  cheaper than `list` at 10,000 monitors (no settings or options decoded). */
  scheduled(): Promise<MonitorSchedule[]>;
  /** A summary of what the check jobs follow (which monitors exist, their intervals and enabled
   *  flags), much cheaper than list(): it changes when one of those does, short of a change that
   *  leaves every part of it as it was (a monitor created then deleted brings back the earlier
   *  value). Where absent, the jobs are compared on every pass. */
  scheduleVersion?(): Promise<string>;
}
