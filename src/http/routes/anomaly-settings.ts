import type Router from '@koa/router';
import { AnomalySettingsPatch, effectiveSettings } from '../../domain/anomaly-settings.ts';
import { settingsView, updateAnomalySettings } from '../../commands/anomalies.ts';
import { commandContext, principalOf, requireRole, visibleOr404 } from '../auth.ts';
import { readJsonBody } from '../body.ts';
import { decodeOrThrow } from '../errors.ts';
import type { RouteDeps } from '../app.ts';
import type { AppState } from '../state.ts';

/** A project's anomaly settings: every rule's fields, the project's own values over the
 *  deployment's defaults. Everyone who sees the project reads them; admins and members change
 *  them with a partial update. */
export const anomalySettingsRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const path = '/v1/projects/:id/anomaly-settings';

  router.get(path, ...deps.jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const project = await visibleOr404(ctx.params.id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));
    const own = await deps.readModels.anomalies.settingsOf(project.id);
    ctx.body = settingsView(project.id, effectiveSettings(deps.anomalyDefaults, own?.overrides ?? {}), own?.updated_at ?? null);
  });

  router.put(path, ...deps.jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const project = await visibleOr404(ctx.params.id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));
    requireRole(principal, 'admin', 'member');
    const patch = decodeOrThrow(AnomalySettingsPatch, await readJsonBody(ctx, deps.bodyLimitBytes), 'anomaly settings');
    ctx.body = await updateAnomalySettings(deps.commands, project.id, patch, deps.anomalyDefaults, commandContext(principal, ctx.state.correlationId, deps.now));
  });
};
