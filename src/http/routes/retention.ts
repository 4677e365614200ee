import type Router from '@koa/router';
import * as t from 'io-ts';
import { ErasureBody, PERSONAL_FIELDS, RetentionBody, identifierDigest } from '../../domain/retention.ts';
import { requestErasure, setRetention } from '../../commands/retention.ts';
import { RedactionUnsupportedError } from '../../log/event-log.ts';
import { HttpError, decodeOrThrow } from '../middleware/errors.ts';
import { commandContext, principalOf, requireRole, visibleOr404 } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { IntFromString, NoParameters, readQuery } from '../middleware/query.ts';
import type { ErasureAnswer, ErasuresAnswer, RetentionAnswer } from '../responses.ts';
import type { ErasureView } from '../../views/retention/port.ts';
import { MAX_PAGE_SIZE } from './audit.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

export const ErasuresQuery = t.exact(
  t.partial({ page: IntFromString(1, Number.MAX_SAFE_INTEGER), limit: IntFromString(1, MAX_PAGE_SIZE) }),
);

const erasureAnswer = (e: ErasureView): ErasureAnswer => ({ ...e, fields: [...PERSONAL_FIELDS] });

/** A project's retention (how long its ingested events are kept) and erasure requests (docs/retention.md).
 *  Everyone who sees the project reads the setting; only admins change it, or ask for and
 *  read erasures. */
export const retentionRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const viewOf = async (projectId: string): Promise<RetentionAnswer> => {
    const r = await deps.readModels.retention.retentionOf(projectId);
    return {
      project_id: projectId,
      retention_days: r?.retention_days ?? null,
      updated_at: r?.updated_at || null,
      last_applied_at: r?.last_applied_at ?? null,
      last_cutoff: r?.last_cutoff ?? null,
      removed_total: r?.removed_total ?? 0,
      erased_total: r?.erased_total ?? 0,
    };
  };
  const erasureOf = async (projectId: string, erasureId: string | undefined): Promise<ErasureAnswer> =>
    erasureAnswer(
      await visibleOr404(erasureId, 'erasure', (uuid) => deps.readModels.retention.erasure(projectId, uuid)),
    );
  const projectOf = (ctx: { params: Record<string, string | undefined>; state: AppState }) =>
    visibleOr404(ctx.params.id, 'project', (uuid) =>
      deps.readModels.access.getProject(uuid, principalOf(ctx.state).scope),
    );

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
    const { position } = await setRetention(
      deps.commands,
      project.id,
      retention_days,
      commandContext(principal, ctx.state.correlationId, deps.now),
    );
    await deps.caughtUp(['retention'], position);
    ctx.body = await viewOf(project.id);
  });

  // An erasure is a job (src/jobs/erasure.ts): the request is recorded and answered at once,
  // and its status resource says when every read model shows it. A repeat of a request still
  // pending answers that request rather than queueing another.
  router.post('/v1/projects/:id/erasures', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await projectOf(ctx);
    requireRole(principal, 'admin');
    const { identifier } = decodeOrThrow(ErasureBody, await readJsonBody(ctx, deps), 'erasure request');
    const digest = identifierDigest(identifier);
    const pending = (await deps.readModels.retention.erasures(project.id, { page: 1, limit: MAX_PAGE_SIZE })).data.find(
      (e) => e.status === 'pending' && e.identifier_sha256 === digest,
    );
    let erasureId = pending?.id;
    if (!erasureId) {
      try {
        const request = await requestErasure(
          deps.commands,
          project.id,
          identifier,
          commandContext(principal, ctx.state.correlationId, deps.now),
        );
        if (request.position !== null) await deps.caughtUp(['retention'], request.position);
        erasureId = request.erasure_id;
      } catch (error) {
        if (error instanceof RedactionUnsupportedError) throw new HttpError(409, 'unsupported', error.message);
        throw error;
      }
    }
    ctx.status = 202;
    ctx.set('Location', `/v1/projects/${project.id}/erasures/${erasureId}`);
    ctx.body = { ...(await erasureOf(project.id, erasureId)), identifier };
  });

  router.get('/v1/projects/:id/erasures', ...deps.jwt, async (ctx) => {
    const query = readQuery(ctx.query, ErasuresQuery);
    const principal = principalOf(ctx.state);
    const project = await projectOf(ctx);
    requireRole(principal, 'admin');
    const page = await deps.readModels.retention.erasures(project.id, {
      page: query.page ?? 1,
      limit: query.limit ?? 20,
    });
    ctx.body = { ...page, data: page.data.map(erasureAnswer) } satisfies ErasuresAnswer;
  });

  router.get('/v1/projects/:id/erasures/:erasureId', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const project = await projectOf(ctx);
    requireRole(principal, 'admin');
    ctx.body = await erasureOf(project.id, ctx.params.erasureId);
  });
};
