import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import type { Page } from '../../domain/page.ts';
import type { Scope } from '../../domain/scope.ts';
import type { SearchQuery } from '../../domain/search.ts';
import type { SessionActivity, SessionEvents } from '../../domain/sessions.ts';
import type { StatsBucket } from '../../domain/stats.ts';
import type { ExpiredRange, RedactableQuery, RowRef } from '../../domain/retention.ts';

export const SORT_FIELDS = [
  'timestamp',
  'status_code',
  'response_time',
  'path',
  'method',
  'service_name',
  'identifier',
  'environment',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface AuditFilter {
  project_id?: string;
  service_name?: string;
  /** Exact path; for system.alert events the rule. */
  path?: string;
  /** Paths that start with this. */
  path_prefix?: string;
  tenant_id?: string;
  /** A parsed `q`: every term holds for each event (src/domain/search.ts). */
  search?: SearchQuery;
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
  /** Drops the rows a RetentionApplied removed (src/domain/retention.ts). */
  expire(range: ExpiredRange): void;
  /** Replaces the project's rows of `identifier` at positions up to `through` by their erased
   *  form (`eraseAuditEvent`), as recording the erased event would have made them. */
  erase(projectId: string, identifier: string, through: string): void;
}

export interface AuditListOptions {
  /** Adds each event's request_body (null when absent): an alert's rule-specific fields. */
  withRequestBody?: boolean;
}

export type AuditListItemWithBody = AuditListItem & { request_body?: Record<string, unknown> | null };

/** The http events a statistics range counts, in exact bounds. */
export interface StatsEventsFilter {
  project_id?: string;
  service_name?: string;
  environment?: string;
  tenant_id?: string;
  /** One identifier's events: a viewer token narrowed to it. */
  identifier?: string;
  path?: string;
  path_prefix?: string;
  /** Epoch ms, both inclusive. */
  from: number;
  to: number;
}

export interface AuditEventsQueries {
  /** The stats contribution (`bucketOf`) of each http event in the range: the partial minutes at
   *  the edges of a statistics range, whose buckets would count events outside it. Meant for
   *  short ranges (the events of a minute or two). */
  statsContributions(filter: StatsEventsFilter, scope: Scope): Promise<StatsBucket[]>;
  /** How many events match. */
  count(filter: AuditFilter, scope: Scope): Promise<number>;
  /** The matching full events, newest first, at most `limit`, in batches read from a cursor so
   *  memory stays flat whatever the size. */
  exportBatches(filter: AuditFilter, scope: Scope, limit: number): AsyncIterable<StoredAuditEvent[]>;
  /** Events carrying `sessionId`, oldest first (at most `limit`), how many there are and when
   *  the last one happened (the list may stop before it). */
  sessionEvents(sessionId: string, scope: Scope, limit: number): Promise<SessionEvents>;
  /** The matching http events, newest first, at most `limit`: derived sessions of a filter the
   *  derived-sessions read model does not keep (a tenant, a path). */
  sessionActivity(filter: AuditFilter, scope: Scope, limit: number): Promise<SessionActivity[]>;
  list(query: AuditListQuery, scope: Scope, options?: AuditListOptions): Promise<Page<AuditListItemWithBody>>;
  get(id: string, scope: Scope): Promise<StoredAuditEvent | null>;
  /** Up to `limit` rows retention or an erasure takes, after `after` in (ts, position) order. */
  redactable(query: RedactableQuery, after: RowRef | null, limit: number): Promise<RowRef[]>;
}
