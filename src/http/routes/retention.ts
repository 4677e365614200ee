import type Router from '@koa/router';
import { ErasureBody, PERSONAL_FIELDS, RetentionBody } from '../../domain/retention.ts';
import { eraseIdentifier, setRetention } from '../../commands/retention.ts';
import { RedactionUnsupportedError } from '../../log/event-log.ts';
import { HttpError, decodeOrThrow } from '../middleware/errors.ts';
import { commandContext, principalOf, requireRole, visibleOr404 } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import type { ErasureAnswer, RetentionAnswer } from '../responses.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

/** A project's retention (how long its ingested events are kept) and erasure requests (docs/retention.md).
 *  Everyone who sees the project reads the setting; only admins change it or erase. */
export const retentionRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const viewOf = async (projectId: string): Promise<RetentionAnswer> => {
    const r = await deps.readModels.retention.retentionOf(projectId);
    return {
      project_id: projectId, retention_days: r?.retention_days ?? null, updated_at: r?.updated_at || null, last_applied_at: r?.last_applied_at ?? null,
      last_cutoff: r?.last_cutoff ?? null, removed_total: r?.removed_total ?? 0, erased_total: r?.erased_total ?? 0,
    };
  };
  const projectOf = (ctx: { params: Record<string, string | undefined>; state: AppState }) =>
    visibleOr404(ctx.params.id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principalOf(ctx.state).scope));

  router.get('/v1/projects/:id/retention', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = await viewOf((await projectOf(ctx)).id);
  });

  router.put('/v1/projects/:id/retention', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await projectOf(ctx);
    requireRole(principal, 'admin');
    const { retention_days } = decodeOrThrow(RetentionBody, await readJsonBody(ctx, deps), 'retention settings');
    const { position } = await setRetention(deps.commands, project.id, retention_days, commandContext(principal, ctx.state.correlationId, deps.now));
    await deps.caughtUp(['retention'], position);
    ctx.body = await viewOf(project.id);
  });

  router.post('/v1/projects/:id/erasures', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await projectOf(ctx);
    requireRole(principal, 'admin');
    const { identifier } = decodeOrThrow(ErasureBody, await readJsonBody(ctx, deps), 'erasure request');
    const context = commandContext(principal, ctx.state.correlationId, deps.now);
    let erasure;
    try {
      erasure = await eraseIdentifier(
        {
          log: deps.commands.log, settled: (position) => deps.caughtUp(['auditEvents'], position),
          redactable: (query, after, limit) => deps.readModels.auditEvents.redactable(query, after, limit),
        },
        project.id, identifier, context,
      );
    } catch (error) {
      if (error instanceof RedactionUnsupportedError) throw new HttpError(409, 'unsupported', error.message);
      throw error;
    }
    await deps.caughtUp(['auditEvents', 'derivedSessions', 'orphans', 'retention'], erasure.position);
    const answer: ErasureAnswer = {
      project_id: project.id, identifier, erased: erasure.erased, through_position: erasure.through_position, fields: [...PERSONAL_FIELDS],
      erased_at: erasure.erased_at,
    };
    ctx.body = answer;
  });
};
