import type { ExpiredRange } from '../../domain/retention.ts';
import type { Page } from '../../domain/page.ts';
import type { Scope } from '../../domain/scope.ts';
import type { AuditListItem } from '../audit-events/port.ts';

export interface OrphansWriter {
  /** A browser-side event carrying a request_id. */
  browserEvent(item: AuditListItem, requestId: string): void;
  /** A backend event carrying a request_id. */
  backendEvent(projectId: string, requestId: string, timestamp: number): void;
  /** Drops the project's requests from before `range.before` (retention); the projection calls it
   *  on the last page of a removal. */
  expire(range: ExpiredRange): void;
  /** Gives the project's browser requests of `identifier` the erased identifier and no e-mail,
   *  as recording their erased events would have (erasure). */
  erase(projectId: string, identifier: string): void;
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
