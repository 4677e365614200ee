import type { ExpiredRange } from '../../domain/retention.ts';
import type { Page } from '../../domain/page.ts';
import type { Scope } from '../../domain/scope.ts';
import type { SessionSummary } from '../../domain/sessions.ts';

export interface SessionKey {
  project_id: string;
  identifier: string;
  service_name: string;
}

export interface DerivedSessionsWriter {
  /** An http event of `key` at `timestamp` (ms); `position` makes replays harmless. */
  event(key: SessionKey, timestamp: number, position: string): void;
  /** Drops the project's sessions that ended before `range.before` (retention). */
  expire(range: ExpiredRange): void;
  /** Drops every session of `identifier` in the project (erasure). */
  erase(projectId: string, identifier: string): void;
}

export interface DerivedSessionsQuery {
  project_id?: string;
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
