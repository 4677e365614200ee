import type { MonitorSettings, MonitorStatus } from '../../domain/monitor.ts';
import type { Scope } from '../../domain/scope.ts';

/** Monitors and their check history. */

/** A monitor as the API returns it: SPEC 2.8 plus its state and last check. */
export interface MonitorView extends MonitorSettings {
  id: string;
  project_id: string;
  status: MonitorStatus;
  /** When the current status began; null while PENDING. */
  status_since: string | null;
  last_checked_at: string | null;
  last_status_code: number | null;
  last_response_ms: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

/** The share of OK checks over the last 24 hours and 7 days (whole hours plus the current one);
 *  null when no check fell in the window. */
export interface MonitorUptime {
  uptime_24h: number | null;
  uptime_7d: number | null;
}

/** A monitor as its routes answer it. */
export type MonitorResponse = MonitorView & MonitorUptime;

/** One stored check (SPEC 2.9). */
export interface CheckView {
  checked_at: string;
  status_code: number | null;
  response_ms: number;
  ok: boolean;
  error: string | null;
}

export interface MonitorsWriter {
  created(monitor: MonitorView): void;
  updated(id: string, changes: Partial<MonitorSettings>, updatedAt: string): void;
  /** Removes the monitor and its history. */
  deleted(id: string): void;
  status(id: string, status: 'UP' | 'DOWN', since: string): void;
  /** Adds a check to the monitor's history (keeping the newest CHECKS_KEPT) and, when it is the
   *  newest, to the monitor's last-check fields; ignored once the monitor is deleted. `position`
   *  keys the row, so a replay adds nothing. */
  checked(id: string, check: CheckView, position: string): void;
  /** Counts a check in its monitor's hour bucket (`hour`: epoch ms of the hour's start), once per
   *  `position` (a replay counts nothing), and drops the buckets more than UPTIME_HOURS_KEPT - 1
   *  hours older than the monitor's newest; ignored once the monitor is deleted. Positions must
   *  come in log order. */
  counted(id: string, hour: number, ok: boolean, position: string): void;
}

export interface MonitorsQueries {
  /** Oldest first, within scope (and the project, when given). */
  list(scope: Scope, projectId?: string): Promise<MonitorView[]>;
  get(id: string, scope: Scope): Promise<MonitorView | null>;
  countInProject(projectId: string): Promise<number>;
  /** Newest first. */
  history(id: string, limit: number): Promise<CheckView[]>;
  /** The uptime of each monitor at `now`; a monitor without buckets maps to nulls. */
  uptime(ids: readonly string[], now: Date): Promise<Map<string, MonitorUptime>>;
  /** A summary of what the check jobs follow (which monitors exist, their intervals and enabled
   *  flags), much cheaper than list(): it changes when one of those does, short of a change that
   *  leaves every part of it as it was (a monitor created then deleted brings back the earlier
   *  value). Where absent, the jobs are compared on every pass. */
  scheduleVersion?(): Promise<string>;
}
