import { randomUUID } from 'node:crypto';
import {
  applyPatch, assertValidSettings, effectiveSettings, type AnomalySettings, type AnomalySettingsPatch,
} from '../domain/anomaly-settings.ts';
import { decideAlerts, evolveAnomalies, initialAnomalies, type AnomalyState, type Finding, type RuleName } from '../domain/anomaly.ts';
import { assertProjectExists, evolveProject, initialProject } from '../domain/project.ts';
import { WrongExpectedRevisionError, type NewEvent } from '../log/event-log.ts';
import { loadAggregate, newEvent, type CommandContext, type CommandDeps } from './context.ts';
import { projectStream } from './projects.ts';

export const anomaliesStream = (projectId: string) => `anomalies-${projectId}`;

export const loadAnomalies = (deps: Pick<CommandDeps, 'log'>, projectId: string) =>
  loadAggregate(deps.log, anomaliesStream(projectId), initialAnomalies, evolveAnomalies);

/** A project's anomaly settings as the API shows them: every field, the project's own values
 *  over the deployment's defaults. */
export type AnomalySettingsView = AnomalySettings & { project_id: string; updated_at: string | null };

export const settingsView = (projectId: string, settings: AnomalySettings, updatedAt: string | null): AnomalySettingsView =>
  ({ project_id: projectId, ...settings, updated_at: updatedAt });

/** The scan appends alerts to the same stream: a conflicting append is decided again. */
const MAX_ATTEMPTS = 5;

/** Loads the project's anomalies stream, lets `decide` choose the events to append (none:
 *  nothing is appended) and appends them at the revision they were decided on; when the scan or
 *  another request appended first, decides again on the new state. */
const decideAndAppend = async <T>(
  deps: Pick<CommandDeps, 'log'>, projectId: string, decide: (state: AnomalyState) => { events: NewEvent[]; result: T },
): Promise<{ result: T; position: string | null }> => {
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadAnomalies(deps, projectId);
    const { events, result } = decide(state);
    if (events.length === 0) return { result, position: null };
    try {
      const { position } = await deps.log.append(anomaliesStream(projectId), events, revision);
      return { result, position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
};

/** Changes a project's settings (a partial update; null puts a field back to the default). The
 *  result must be consistent as a whole (validation_error naming the field otherwise). */
export const updateAnomalySettings = async (
  deps: CommandDeps, projectId: string, patch: AnomalySettingsPatch, defaults: AnomalySettings, ctx: CommandContext,
): Promise<AnomalySettingsView> => {
  const { state: project } = await loadAggregate(deps.log, projectStream(projectId), initialProject, evolveProject);
  assertProjectExists(project);
  const { result, position } = await decideAndAppend(deps, projectId, (state) => {
    const settings = effectiveSettings(defaults, applyPatch(state.overrides, patch));
    assertValidSettings(settings);
    const updatedAt = ctx.now().toISOString();
    return {
      events: [newEvent('AnomalySettingsUpdated', { project_id: projectId, changes: patch, updated_at: updatedAt }, ctx)],
      result: settingsView(projectId, settings, updatedAt),
    };
  });
  if (position !== null) await deps.anomaliesSettled(position);
  return result;
};

/** Turns one project's scan findings into alerts: an AnomalyDetected for each finding without an
 *  open alert, an AnomalyCleared for each open alert of an evaluated rule that was not found
 *  again. Decided on the state in the log and appended at its revision, so two scans racing (or
 *  a restart) never raise the same alert twice. */
export const recordFindings = async (
  deps: Pick<CommandDeps, 'log'>, projectId: string, findings: readonly Finding[], evaluated: ReadonlySet<RuleName>, ctx: CommandContext,
): Promise<{ raised: Finding[]; cleared: number }> => {
  const { result } = await decideAndAppend(deps, projectId, (state) => {
    const { raise, clear } = decideAlerts(findings, new Set(state.open.keys()), evaluated);
    const at = ctx.now().toISOString();
    const events = [
      ...clear.map((key) => {
        const open = state.open.get(key)!;
        return newEvent('AnomalyCleared', { alert_id: open.alert_id, project_id: projectId, rule: open.rule, subject: open.subject, cleared_at: at }, ctx);
      }),
      ...raise.map((f) => newEvent('AnomalyDetected', {
        alert_id: randomUUID(), project_id: projectId, rule: f.rule, subject: f.subject, service_name: f.service_name,
        environment: f.environment, detected_at: at, details: f.details,
      }, ctx)),
    ];
    return { events, result: { raised: raise, cleared: clear.length } };
  });
  return result;
};
