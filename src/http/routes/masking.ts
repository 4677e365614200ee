import type Router from '@koa/router';
import { MaskingRulesBody, compileMaskingRules } from '../../domain/masking-rules.ts';
import { scanLimitChars } from '../../domain/masking.ts';
import { setMaskingRules } from '../../commands/projects.ts';
import { commandContext, principalOf, requireRole, visibleOr404 } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { decodeOrThrow } from '../middleware/errors.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { MaskingAnswer } from '../responses.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

/** A project's own masking rules, over the built-in ones: extra key names and value patterns.
 *  Everyone who sees the project reads them; admins and members replace them. */
export const maskingRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const path = '/v1/projects/:id/masking';
  const viewOf = async (projectId: string): Promise<MaskingAnswer> => {
    const own = await deps.readModels.masking.rulesOf(projectId);
    const values = own && compileMaskingRules(own)?.values;
    return {
      project_id: projectId,
      keys: own?.keys ?? [],
      patterns: own?.patterns ?? [],
      scan_limit_chars: values ? scanLimitChars(values.cost) : null,
      updated_at: own?.updated_at ?? null,
    };
  };

  router.get(path, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleOr404(ctx.params.id, 'project', (uuid) =>
      deps.readModels.access.getProject(uuid, principal.scope),
    );
    ctx.body = await viewOf(project.id);
  });

  router.put(path, ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await visibleOr404(ctx.params.id, 'project', (uuid) =>
      deps.readModels.access.getProject(uuid, principal.scope),
    );
    requireRole(principal, 'admin', 'member');
    const rules = decodeOrThrow(MaskingRulesBody, await readJsonBody(ctx, deps), 'masking rules');
    const { position } = await setMaskingRules(
      deps.commands,
      project.id,
      rules,
      commandContext(principal, ctx.state.correlationId, deps.now),
    );
    await deps.caughtUp(['masking'], position);
    deps.maskingRules.invalidate(project.id);
    ctx.body = await viewOf(project.id);
  });
};
