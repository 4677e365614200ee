import type { MaintenanceSettings } from '../../domain/maintenance.ts';
import type { Scope } from '../../domain/scope.ts';

export type MaintenanceView = MaintenanceSettings & {
  id: string;
  project_id: string;
  /** The occurrence open now, as the maintenance clock last recorded it; null when closed. */
  open: { start: string; end: string } | null;
  created_at: string;
  updated_at: string;
};

export interface MaintenancesWriter {
  scheduled(view: MaintenanceView): void;
  updated(id: string, changes: Partial<MaintenanceSettings>, updatedAt: string): void;
  deleted(id: string): void;
  started(id: string, open: { start: string; end: string }): void;
  ended(id: string): void;
}

export interface MaintenancesQueries {
  /** Oldest first, within scope (and the project, when given). */
  list(scope: Scope, projectId?: string): Promise<MaintenanceView[]>;
  get(id: string, scope: Scope): Promise<MaintenanceView | null>;
  /** Every window of every project: what the maintenance clock watches. */
  all(): Promise<MaintenanceView[]>;
  /** A project's windows (a status page shows the open and upcoming ones). */
  ofProject(projectId: string): Promise<MaintenanceView[]>;
  /** The open windows that cover this monitor (a window for "all" covers every monitor of its
   *  project). */
  openFor(projectId: string, monitorId: string): Promise<MaintenanceView[]>;
}
