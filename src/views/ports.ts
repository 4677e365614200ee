import type { RecordedEvent } from '../log/event-log.ts';
import type { StoredAuditEvent } from '../domain/audit-event.ts';
import type { Role } from '../domain/codecs.ts';
import type { SessionEvents, SessionSummary } from '../domain/sessions.ts';
import type { StatsBucket } from '../domain/stats.ts';
import type { MonitorSettings, MonitorStatus } from '../domain/monitor.ts';
import type { ChannelEvents, ChannelTarget } from '../domain/channel.ts';
import type { AnomalyOverrides, AnomalySettingsPatch } from '../domain/anomaly-settings.ts';
import type { AuthFailureSeries, OpenAlert, ServiceActivity, ServiceSeries } from '../domain/anomaly.ts';

/** Read-model ports. Writers are synchronous "enqueue" interfaces that a projection calls while
 *  its store commits a batch; queries are asynchronous so a server-backed adapter fits behind them. */

/** Which projects a caller may see: every one (admins) or a list. */
export type Scope = { readonly all: true } | { readonly all: false; readonly projectIds: readonly string[] };

export const inScope = (scope: Scope, projectId: string): boolean => scope.all || scope.projectIds.includes(projectId);

/** The projects a query may read: null for all, else a list (empty when the caller asked for a
 *  project it may not see). */
export const projectsInScope = (scope: Scope, projectId?: string): string[] | null =>
  projectId !== undefined ? (inScope(scope, projectId) ? [projectId] : []) : scope.all ? null : [...scope.projectIds];

export interface ProjectionStore<W> {
  readonly name: string;
  /** Position of the last event this projection has applied; null before the first. */
  checkpoint(): Promise<string | null>;
  /** Applies a batch and records its last position as the checkpoint, atomically. With a
   *  `leaseHolder`, the commit first checks that this holder still has the projection's lease
   *  and throws LeaseLostError otherwise, so a paused ex-holder can never write. */
  commit(events: readonly RecordedEvent[], apply: (event: RecordedEvent, writer: W) => void, leaseHolder?: string): Promise<void>;
  /** Drops everything the projection built, checkpoint included. */
  reset(): Promise<void>;
}

/** One running projector per projection across all worker processes: a lease in the read store. */
export interface Leases {
  /** Takes or renews the lease on `name` for `holder`; false while another live holder has it. */
  acquire(name: string, holder: string, ttlMs: number): Promise<boolean>;
  release(name: string, holder: string): Promise<void>;
}

export class LeaseLostError extends Error {
  constructor(readonly projection: string, readonly holder: string) {
    super(`lease on projection ${projection} is no longer held by ${holder}`);
  }
}

export interface Page<T> {
  data: T[];
  pagination: { page: number; limit: number; totalItems: number; totalPage: number };
}

// ---- audit events ----

export const SORT_FIELDS = [
  'timestamp', 'status_code', 'response_time', 'path', 'method', 'service_name', 'identifier', 'environment',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface AuditFilter {
  project_id?: string;
  service_name?: string;
  /** Exact path; for system.alert events the rule. */
  path?: string;
  method?: string;
  status_code?: number;
  environment?: string;
  identifier?: string;
  event_type?: string;
  /** Inclusive bounds, ISO 8601. */
  start_date?: string;
  end_date?: string;
}

export interface AuditListQuery extends AuditFilter {
  page: number;
  limit: number;
  sort_by: SortField;
  sort_order: 'asc' | 'desc';
}

/** SPEC 2.2 list item (plus project_id); absent optionals are null so every row has one shape. */
export interface AuditListItem {
  id: string;
  project_id: string;
  event_type: string;
  method: string;
  path: string;
  status_code: number | null;
  response_time: number | null;
  identifier: string;
  user_email: string | null;
  service_name: string;
  environment: string;
  timestamp: string;
}

export interface AuditEventsWriter {
  /** Idempotent: recording an event id twice keeps one row. */
  record(event: StoredAuditEvent, position: string): void;
}

export interface AuditListOptions {
  /** Adds each event's request_body (null when absent): an alert's rule-specific fields. */
  withRequestBody?: boolean;
}

export type AuditListItemWithBody = AuditListItem & { request_body?: Record<string, unknown> | null };

export interface AuditEventsQueries {
  /** How many events match. */
  count(filter: AuditFilter, scope: Scope): Promise<number>;
  /** The matching full events, newest first, at most `limit`, in batches read from a cursor so
   *  memory stays flat whatever the size. */
  exportBatches(filter: AuditFilter, scope: Scope, limit: number): AsyncIterable<StoredAuditEvent[]>;
  /** Events carrying `sessionId`, oldest first (at most `limit`), how many there are and when
   *  the last one happened (the list may stop before it). */
  sessionEvents(sessionId: string, scope: Scope, limit: number): Promise<SessionEvents>;
  list(query: AuditListQuery, scope: Scope, options?: AuditListOptions): Promise<Page<AuditListItemWithBody>>;
  get(id: string, scope: Scope): Promise<StoredAuditEvent | null>;
}

// ---- stats buckets ----

export interface StatsWriter {
  /** Adds one event's contribution to its minute bucket and its hour roll-up; `position` makes
   *  replays harmless. */
  add(contribution: StatsBucket, position: string): void;
}

export interface StatsFilter {
  project_id?: string;
  service_name?: string;
  environment?: string;
  /** Bucket minutes from..to, inclusive, epoch ms. */
  from: number;
  to: number;
  /** Whether whole hours may come from the hour roll-up (not when the timeline is per minute). */
  hourly: boolean;
}

export interface ServiceKey { project_id: string; service_name: string }

export interface ServiceBaselineRow { service_name: string; first_minute: number; sum: number; sum_squares: number }

export interface StatsQueries {
  buckets(filter: StatsFilter, scope: Scope): Promise<StatsBucket[]>;
  /** The volume baselines of a project's services: their per-minute event counts (all
   *  environments together) over the minutes [from, to), epoch ms, summarised as the first minute
   *  with events and the sum and sum of squares of the counts. Services without events in the
   *  range are absent. */
  serviceBaselines(projectId: string, from: number, to: number): Promise<ServiceBaselineRow[]>;
  /** Every service with events in the minutes from `from` (epoch ms) on: how many, and its last
   *  event and that event's environment. Whole hours come from the hour roll-up. */
  serviceActivity(from: number): Promise<ServiceActivity[]>;
}

// ---- anomaly windows: 10-second buckets for the windowed rules ----

/** What one http event contributes to the anomaly windows. */
export interface WindowContribution {
  project_id: string;
  service_name: string;
  environment: string;
  identifier: string;
  method: string;
  status_code?: number | undefined;
  /** Epoch ms. */
  timestamp: number;
}

export interface AnomalyWindowsWriter {
  /** Adds the event to its service's 10-second bucket and, for a 401, to its identifier's.
   *  Buckets older than WINDOW_RETENTION_MS before the newest event are dropped as the
   *  projection goes, so the read model stays small. */
  add(contribution: WindowContribution, position: string): void;
}

export interface AnomalyWindowsQueries {
  /** Buckets from..to (bucket starts, inclusive) of every service with at least `minTotal`
   *  events in them. */
  serviceSeries(from: number, to: number, minTotal: number): Promise<ServiceSeries[]>;
  /** Buckets from..to of every identifier with at least `minCount` 401 answers in them. */
  authFailureSeries(from: number, to: number, minCount: number): Promise<AuthFailureSeries[]>;
}

// ---- anomalies: per-project settings and open alerts ----

export interface ProjectAnomalySettings { project_id: string; overrides: AnomalyOverrides; updated_at: string }
export type OpenAlertView = OpenAlert & { project_id: string; detected_at: string };

export interface AnomaliesWriter {
  settingsUpdated(projectId: string, changes: AnomalySettingsPatch, updatedAt: string): void;
  detected(alert: OpenAlertView): void;
  cleared(projectId: string, alertId: string): void;
}

export interface AnomaliesQueries {
  /** The projects that changed their settings, with what they changed. */
  allSettings(): Promise<ProjectAnomalySettings[]>;
  settingsOf(projectId: string): Promise<ProjectAnomalySettings | null>;
  /** Alerts raised and not cleared, oldest first. */
  openAlerts(): Promise<OpenAlertView[]>;
}

// ---- orphans ----

export interface OrphansWriter {
  /** A browser-side event carrying a request_id. */
  browserEvent(item: AuditListItem, requestId: string): void;
  /** A backend event carrying a request_id. */
  backendEvent(projectId: string, requestId: string, timestamp: number): void;
}

export interface OrphansQuery {
  project_id?: string;
  service_name?: string;
  start_date?: string;
  end_date?: string;
  /** Only browser events older than this (epoch ms) are judged: younger ones may still be matched. */
  settledBefore: number;
  page: number;
  limit: number;
}

export interface OrphansQueries {
  /** Unmatched browser events, newest first, as list items plus their request_id. */
  list(query: OrphansQuery, scope: Scope): Promise<Page<AuditListItem & { request_id: string }>>;
}

// ---- derived sessions ----

export interface SessionKey { project_id: string; identifier: string; service_name: string }

export interface DerivedSessionsWriter {
  /** An http event of `key` at `timestamp` (ms); `position` makes replays harmless. */
  event(key: SessionKey, timestamp: number, position: string): void;
}

export interface DerivedSessionsQuery {
  identifier?: string;
  service_name?: string;
  /** Inclusive bounds on session_start, ISO 8601. */
  start_date?: string;
  end_date?: string;
  page: number;
  limit: number;
}

/** SPEC 2.6, plus project_id. */
export interface DerivedSession extends SessionSummary {
  project_id: string;
}

export interface DerivedSessionsQueries {
  /** Sessions newest first (session_start desc). */
  list(query: DerivedSessionsQuery, scope: Scope): Promise<Page<DerivedSession>>;
}

// ---- monitors and their check history ----

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
}

export interface MonitorsQueries {
  /** Oldest first, within scope (and the project, when given). */
  list(scope: Scope, projectId?: string): Promise<MonitorView[]>;
  get(id: string, scope: Scope): Promise<MonitorView | null>;
  countInProject(projectId: string): Promise<number>;
  /** Newest first. */
  history(id: string, limit: number): Promise<CheckView[]>;
}

// ---- notification channels, and the deliveries made to them ----

/** A channel as the API shows it: the webhook URL or push endpoint, never a secret or key. */
export interface ChannelView {
  id: string;
  project_id: string;
  type: 'webhook' | 'webpush';
  /** The webhook URL or the push endpoint. */
  url: string;
  has_secret: boolean;
  events: ChannelEvents;
  active: boolean;
  deactivated_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface ChannelsWriter {
  created(view: ChannelView, target: ChannelTarget): void;
  updated(id: string, changes: { active?: boolean; events?: ChannelEvents }, updatedAt: string): void;
  deactivated(id: string, reason: string, at: string): void;
  deleted(id: string): void;
}

export interface ChannelsQueries {
  list(scope: Scope, projectId?: string): Promise<ChannelView[]>;
  get(id: string, scope: Scope): Promise<ChannelView | null>;
  /** Active channels of a project that opted in to `kind`, with their targets (for delivery). */
  targets(projectId: string, kind: 'healthcheck' | 'alert'): Promise<Array<{ id: string; target: ChannelTarget }>>;
}

export interface DeliveryRecord { event_id: string; channel_id: string; ok: boolean; attempts: number; detail: string | null; at: string }

export interface DeliveriesWriter {
  /** Idempotent per (event, channel). */
  recorded(delivery: DeliveryRecord): void;
}

export interface DeliveriesQueries {
  /** The channels an event was already handled for (delivered, or given up on). */
  handled(eventId: string): Promise<Set<string>>;
  forEvent(eventId: string): Promise<DeliveryRecord[]>;
}

// ---- access: projects, API keys, users ----

export interface ProjectView { id: string; name: string; created_at: string }
export interface ApiKeyView {
  id: string; project_id: string; name: string; prefix: string; created_at: string; revoked_at: string | null;
}
export interface UserView {
  id: string; email: string; role: Role; project_ids: string[]; created_at: string;
}
export interface UserCredentials extends UserView { password_hash: string }

export interface AccessWriter {
  projectCreated(p: ProjectView): void;
  apiKeyIssued(k: ApiKeyView & { key_hash: string }): void;
  apiKeyRevoked(keyId: string, revokedAt: string): void;
  userRegistered(u: UserCredentials): void;
}

export interface AccessQueries {
  /** The project of an active (not revoked) key, by the SHA-256 hex of the key. */
  projectOfKey(keyHash: string): Promise<string | null>;
  listProjects(scope: Scope): Promise<ProjectView[]>;
  getProject(id: string, scope: Scope): Promise<ProjectView | null>;
  listApiKeys(projectId: string): Promise<ApiKeyView[]>;
  userByEmail(email: string): Promise<UserCredentials | null>;
  listUsers(): Promise<UserView[]>;
  countUsers(): Promise<number>;
}

export interface ReadModels {
  readonly leases: Leases;
  readonly auditEvents: AuditEventsQueries;
  readonly derivedSessions: DerivedSessionsQueries;
  readonly stats: StatsQueries;
  readonly orphans: OrphansQueries;
  readonly access: AccessQueries;
  readonly monitors: MonitorsQueries;
  readonly channels: ChannelsQueries;
  readonly deliveries: DeliveriesQueries;
  readonly anomalyWindows: AnomalyWindowsQueries;
  readonly anomalies: AnomaliesQueries;
  readonly stores: {
    readonly auditEvents: ProjectionStore<AuditEventsWriter>;
    readonly derivedSessions: ProjectionStore<DerivedSessionsWriter>;
    readonly stats: ProjectionStore<StatsWriter>;
    readonly orphans: ProjectionStore<OrphansWriter>;
    readonly access: ProjectionStore<AccessWriter>;
    readonly monitors: ProjectionStore<MonitorsWriter>;
    readonly channels: ProjectionStore<ChannelsWriter>;
    readonly deliveries: ProjectionStore<DeliveriesWriter>;
    readonly anomalyWindows: ProjectionStore<AnomalyWindowsWriter>;
    readonly anomalies: ProjectionStore<AnomaliesWriter>;
  };
  close(): Promise<void>;
}
