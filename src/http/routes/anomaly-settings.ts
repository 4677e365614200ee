import type Router from '@koa/router';
import { AnomalySettingsPatch, effectiveSettings } from '../../domain/anomaly-settings.ts';
import { updateAnomalySettings } from '../../commands/anomalies.ts';
import { commandContext, principalOf, requireRole, visibleOr404 } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { decodeOrThrow } from '../middleware/errors.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import type { AnomalySettingsAnswer } from '../responses.ts';

/** A project's anomaly settings: every rule's fields, the project's own values over the
 *  deployment's defaults. Everyone who sees the project reads them; admins and members change
 *  them with a partial update. */
export const anomalySettingsRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const path = '/v1/projects/:id/anomaly-settings';
  const settingsOf = async (projectId: string): Promise<AnomalySettingsAnswer> => {
    const own = await deps.readModels.anomalies.settingsOf(projectId);
    return {
      project_id: projectId,
      ...effectiveSettings(deps.anomalyDefaults, own?.overrides ?? {}),
      updated_at: own?.updated_at ?? null,
    };
  };

  router.get(path, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleOr404(ctx.params.id, 'project', (uuid) =>
      deps.readModels.access.getProject(uuid, principal.scope),
    );
    ctx.body = await settingsOf(project.id);
  });

  router.put(path, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleOr404(ctx.params.id, 'project', (uuid) =>
      deps.readModels.access.getProject(uuid, principal.scope),
    );
    requireRole(principal, 'admin', 'member');
    const patch = decodeOrThrow(AnomalySettingsPatch, await readJsonBody(ctx, deps), 'anomaly settings');
    const { position } = await updateAnomalySettings(
      deps.commands,
      project.id,
      patch,
      deps.anomalyDefaults,
      commandContext(principal, ctx.state.correlationId, deps.now),
    );
    await deps.caughtUp(['anomalies'], position);
    ctx.body = await settingsOf(project.id);
  });
};
