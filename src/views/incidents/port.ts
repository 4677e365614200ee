import type { AutoOpened, IncidentImpact, IncidentStatus } from '../../domain/incident.ts';
import type { Page, PageRequest } from '../../domain/page.ts';
import type { Scope } from '../../domain/scope.ts';

export interface IncidentUpdateView {
  id: string;
  status: IncidentStatus;
  message: string;
  /** Set when this update changed the impact. */
  impact: IncidentImpact | null;
  at: string;
}

export interface IncidentView {
  id: string;
  project_id: string;
  title: string;
  status: IncidentStatus;
  impact: IncidentImpact;
  monitor_ids: string[];
  /** Opened by a status page on its own, for this monitor's DOWN. */
  auto: AutoOpened | null;
  created_at: string;
  updated_at: string;
  /** When the last update said resolved; null while open. */
  resolved_at: string | null;
  /** Oldest first. */
  updates: IncidentUpdateView[];
}

export interface IncidentsWriter {
  opened(view: IncidentView): void;
  /** Adds an update (once per update id) and sets the incident's status, impact and times. */
  updated(id: string, update: IncidentUpdateView): void;
  deleted(id: string): void;
}

export interface IncidentsQueries {
  /** Newest first, within scope (and the project, when given); `open`: only unresolved ones. */
  list(scope: Scope, request: PageRequest & { projectId?: string; open?: boolean }): Promise<Page<IncidentView>>;
  get(id: string, scope: Scope): Promise<IncidentView | null>;
  /** A project's incidents that are open, or were resolved at or after `since`, newest first
   *  (at most `limit`): what a status page shows. */
  shownSince(projectId: string, since: string, limit: number): Promise<IncidentView[]>;
  /** Open incidents a status page opened for this monitor's DOWN. */
  openAuto(monitorId: string): Promise<IncidentView[]>;
}
