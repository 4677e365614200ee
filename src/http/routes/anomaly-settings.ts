import { updateAnomalySettings } from '../../commands/anomalies.ts';
import { effectiveSettings } from '../../domain/anomaly-settings.ts';
import type { RouteDeps } from '../deps.ts';
import type { AnomalySettingsAnswer } from '../operations/answers.ts';
import type { anomalySettingsOperations } from '../operations/anomaly-settings.ts';
import { type Handlers, ok } from '../operations/operation.ts';

/** Every rule's fields: the project's own values over the deployment's defaults. */
const settingsOf = async (deps: RouteDeps, projectId: string): Promise<AnomalySettingsAnswer> => {
  const own = await deps.readModels.anomalies.settingsOf(projectId);
  return {
    project_id: projectId,
    ...effectiveSettings(deps.anomalyDefaults, own?.overrides ?? {}),
    updated_at: own?.updated_at ?? null,
  };
};

export const anomalySettingsHandlers: Handlers<typeof anomalySettingsOperations, RouteDeps> = {
  get: async ({ resource: project }, deps) => ok(await settingsOf(deps, project.id)),
  update: async ({ resource: project, body: patch, command }, deps) => {
    const { position } = await updateAnomalySettings(deps.commands, project.id, patch, deps.anomalyDefaults, command);
    await deps.caughtUp(['anomalies'], position);
    return ok(await settingsOf(deps, project.id));
  },
};
