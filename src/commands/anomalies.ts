import type { AnomalySettings, AnomalySettingsPatch } from '../domain/anomaly-settings.ts';
import { anomaliesDecider, type Finding, type RuleName } from '../domain/anomaly.ts';
import { anomaliesStream } from '../domain/streams.ts';
import { handle, type CommandContext, type CommandDeps } from './handle.ts';
import { newEventId } from './event-ids.ts';
import { requireProject } from './projects.ts';

/** Changes a project's settings (a partial update; null puts a field back to the default). The
 *  result must be consistent as a whole (validation_error naming the field otherwise). */
export const updateAnomalySettings = async (
  deps: CommandDeps,
  projectId: string,
  patch: AnomalySettingsPatch,
  defaults: AnomalySettings,
  ctx: CommandContext,
) => {
  await requireProject(deps, projectId);
  return handle(
    deps,
    anomaliesStream(projectId),
    anomaliesDecider,
    {
      type: 'UpdateAnomalySettings',
      project_id: projectId,
      patch,
      defaults,
      at: ctx.now().toISOString(),
    },
    ctx,
  );
};

/** Turns one project's scan findings into alerts raised and cleared, decided on the stream and
 *  appended at its revision: two scans racing (or a restart) never raise the same alert twice. */
export const recordFindings = async (
  deps: CommandDeps,
  projectId: string,
  findings: readonly Finding[],
  evaluated: ReadonlySet<RuleName>,
  ctx: CommandContext,
) => {
  const handled = await handle(
    deps,
    anomaliesStream(projectId),
    anomaliesDecider,
    {
      type: 'RecordFindings',
      project_id: projectId,
      findings,
      evaluated,
      at: ctx.now().toISOString(),
      newAlertId: newEventId,
    },
    ctx,
  );
  const raised = handled.events.flatMap((e) => (e.type === 'AnomalyDetected' ? [e.data] : []));
  return { ...handled, raised, cleared: handled.events.length - raised.length };
};
