/** Each project's retention setting and what retention and erasure did (src/domain/retention.ts),
 *  for the settings API and the retention job. */

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

export interface RetentionWriter {
  retentionSet(projectId: string, retentionDays: number | null, at: string): void;
  /** `position`: the event's, so that an adapter whose batches may be replayed counts it once. */
  retentionApplied(projectId: string, cutoff: string, removed: number, at: string, position: string): void;
  identifierErased(projectId: string, erased: number, position: string): void;
}

export interface RetentionQueries {
  /** Null for a project that never set retention nor had an identifier erased. */
  retentionOf(projectId: string): Promise<ProjectRetention | null>;
  /** The projects that keep events for a limited time. */
  limited(): Promise<Array<{ project_id: string; retention_days: number }>>;
}
