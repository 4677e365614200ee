import { requestErasure, setRetention } from '../../commands/retention.ts';
import { notFound } from '../../domain/errors.ts';
import { PERSONAL_FIELDS, identifierDigest } from '../../domain/retention.ts';
import { RedactionUnsupportedError } from '../../log/event-log.ts';
import type { ErasureView } from '../../views/retention/port.ts';
import type { RouteDeps } from '../deps.ts';
import { HttpError } from '../middleware/errors.ts';
import type { ErasureAnswer, RetentionAnswer } from '../operations/answers.ts';
import { MAX_PAGE_SIZE } from '../operations/common.ts';
import { type Handlers, accepted, ok } from '../operations/operation.ts';
import type { retentionOperations } from '../operations/retention.ts';

const erasureAnswer = (e: ErasureView): ErasureAnswer => ({ ...e, fields: [...PERSONAL_FIELDS] });

const retentionOf = async (deps: RouteDeps, projectId: string): Promise<RetentionAnswer> => {
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

const erasureOf = async (deps: RouteDeps, projectId: string, erasureId: string): Promise<ErasureAnswer> => {
  const found = await deps.readModels.retention.erasure(projectId, erasureId);
  if (!found) throw notFound('erasure');
  return erasureAnswer(found);
};

export const retentionHandlers: Handlers<typeof retentionOperations, RouteDeps> = {
  get: async ({ resource: project }, deps) => ok(await retentionOf(deps, project.id)),

  set: async ({ resource: project, body: { retention_days }, command }, deps) => {
    const { position } = await setRetention(deps.commands, project.id, retention_days, command);
    await deps.caughtUp(['retention'], position);
    return ok(await retentionOf(deps, project.id));
  },

  // An erasure is a job (src/jobs/erasure.ts): the request is recorded and answered at once,
  // and its status resource says when every read model shows it. A repeat of a request still
  // pending answers that request rather than queueing another.
  requestErasure: async ({ resource: project, body: { identifier }, command }, deps) => {
    const digest = identifierDigest(identifier);
    const pending = (await deps.readModels.retention.erasures(project.id, { page: 1, limit: MAX_PAGE_SIZE })).data.find(
      (e) => e.status === 'pending' && e.identifier_sha256 === digest,
    );
    let erasureId = pending?.id;
    if (!erasureId) {
      try {
        const request = await requestErasure(deps.commands, project.id, identifier, command);
        if (request.position !== null) await deps.caughtUp(['retention'], request.position);
        erasureId = request.erasure_id;
      } catch (error) {
        if (error instanceof RedactionUnsupportedError) throw new HttpError(409, 'unsupported', error.message);
        throw error;
      }
    }
    return accepted(
      { ...(await erasureOf(deps, project.id, erasureId)), identifier },
      { Location: `/v1/projects/${project.id}/erasures/${erasureId}` },
    );
  },

  listErasures: async ({ resource: project, query }, deps) => {
    const page = await deps.readModels.retention.erasures(project.id, {
      page: query.page ?? 1,
      limit: query.limit ?? 20,
    });
    return ok({ ...page, data: page.data.map(erasureAnswer) });
  },

  getErasure: async ({ resource: project, params: { erasureId } }, deps) =>
    ok(await erasureOf(deps, project.id, erasureId)),
};
