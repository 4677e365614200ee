/** Each project's own masking rules (issue 11), as the last MaskingRulesSet left them: read by
 *  the settings API and, through a short cache, by ingest. */

export interface ProjectMaskingRules {
  project_id: string;
  keys: string[];
  patterns: string[];
  updated_at: string;
}

export interface MaskingWriter {
  rulesSet(rules: ProjectMaskingRules): void;
}

export interface MaskingQueries {
  /** Null for a project that never set rules. */
  rulesOf(projectId: string): Promise<ProjectMaskingRules | null>;
}
