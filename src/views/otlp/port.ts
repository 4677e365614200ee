import type { OtlpSettings } from '../../domain/otlp-mapping.ts';

/** Each project's OTLP settings, as the last OtlpSettingsSet left them: read by the settings API
 *  and, through a short cache, by OTLP ingest. */

export interface ProjectOtlpSettings extends OtlpSettings {
  project_id: string;
  updated_at: string;
}

export interface OtlpWriter {
  settingsSet(settings: ProjectOtlpSettings): void;
}

export interface OtlpQueries {
  /** Null for a project that never set them (the defaults apply). */
  settingsOf(projectId: string): Promise<ProjectOtlpSettings | null>;
}
