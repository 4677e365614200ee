import type { OpenAlert } from '../../domain/anomaly.ts';
import type { AnomalyOverrides, AnomalySettingsPatch } from '../../domain/anomaly-settings.ts';

/** Per-project anomaly settings and the alerts still open. */

export interface ProjectAnomalySettings {
  project_id: string;
  overrides: AnomalyOverrides;
  updated_at: string;
}
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
