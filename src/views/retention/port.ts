import type { Page, PageRequest } from '../../domain/page.ts';

/** Each project's retention setting, what retention and erasure did, and the erasure requests
 *  (src/domain/retention.ts), for the settings API and the retention and erasure jobs. */

export interface ProjectRetention {
  project_id: string;
  /** Null: events are kept for ever. */
  retention_days: number | null;
  updated_at: string;
  /** The last run that removed events, if any. */
  last_applied_at: string | null;
  last_cutoff: string | null;
  /** Events removed by retention, and erased, since the project began. */
  removed_total: number;
  erased_total: number;
}

/** An erasure request and how it went. The identifier is named by its SHA-256 only: the request
 *  in the log is where the erasure job reads it. */
export interface ErasureView {
  id: string;
  project_id: string;
  identifier_sha256: string;
  status: 'pending' | 'done';
  requested_at: string;
  /** The log head when it was requested: the events it erases are those up to here. */
  through_position: string;
  /** How many events it erased and when, once done. */
  erased: number | null;
  erased_at: string | null;
}

/** A request the erasure job has to carry out, and where the log holds it. */
export interface PendingErasure {
  erasure_id: string;
  project_id: string;
  request_position: string;
}

export interface RetentionWriter {
  retentionSet(projectId: string, retentionDays: number | null, at: string): void;
  /** `position`: the event's, so that an adapter whose batches may be replayed counts it once. */
  retentionApplied(projectId: string, cutoff: string, removed: number, at: string, position: string): void;
  erasureRequested(request: Omit<ErasureView, 'status' | 'erased' | 'erased_at'>, position: string): void;
  /** `done`: the request it completes, if it came from one. */
  identifierErased(
    projectId: string,
    erased: number,
    position: string,
    done?: { erasure_id: string; erased_at: string },
  ): void;
}

export interface RetentionQueries {
  /** Null for a project that never set retention nor had an identifier erased. */
  retentionOf(projectId: string): Promise<ProjectRetention | null>;
  /** The projects that keep events for a limited time. */
  limited(): Promise<Array<{ project_id: string; retention_days: number }>>;
  erasure(projectId: string, erasureId: string): Promise<ErasureView | null>;
  /** The project's erasure requests, newest first. */
  erasures(projectId: string, page: PageRequest): Promise<Page<ErasureView>>;
  /** Every project's requests not done yet, oldest first. */
  pendingErasures(): Promise<PendingErasure[]>;
}
