import { createSink, deleteSink, updateSink } from '../../commands/sinks.ts';
import { notFound } from '../../domain/errors.ts';
import type { SinkView } from '../../views/sinks/port.ts';
import type { RouteDeps } from '../deps.ts';
import { type Handlers, created, noBody, ok } from '../operations/operation.ts';
import type { SinkAnswer, sinkOperations } from '../operations/sinks.ts';

const answerOf = async (deps: RouteDeps, view: SinkView): Promise<SinkAnswer> => {
  const { degraded: _, ...rest } = view;
  const { state, ...status } = await deps.sinkStatus(view);
  return { ...rest, state, ...status };
};

const sinkOf = async (deps: RouteDeps, projectId: string, sinkId: string): Promise<SinkView> => {
  const view = await deps.readModels.sinks.get(projectId, sinkId);
  if (view === null) throw notFound('sink');
  return view;
};

/** A project's log sinks; every change answers once the read model shows it. */
export const sinkHandlers: Handlers<typeof sinkOperations, RouteDeps> = {
  list: async ({ resource: project }, deps) =>
    ok(await Promise.all((await deps.readModels.sinks.list(project.id)).map((v) => answerOf(deps, v)))),

  create: async ({ resource: project, body, command }, deps) => {
    const { id, position } = await createSink(deps.commands, project.id, body, command);
    await deps.caughtUp(['sinks'], position);
    return created(await answerOf(deps, await sinkOf(deps, project.id, id)));
  },

  get: async ({ resource: project, params: { sinkId } }, deps) =>
    ok(await answerOf(deps, await sinkOf(deps, project.id, sinkId))),

  update: async ({ resource: project, params: { sinkId }, body, command }, deps) => {
    await sinkOf(deps, project.id, sinkId);
    const { position } = await updateSink(deps.commands, sinkId, body, command);
    await deps.caughtUp(['sinks'], position);
    return ok(await answerOf(deps, await sinkOf(deps, project.id, sinkId)));
  },

  remove: async ({ resource: project, params: { sinkId }, command }, deps) => {
    await sinkOf(deps, project.id, sinkId);
    const { position } = await deleteSink(deps.commands, sinkId, command);
    await deps.caughtUp(['sinks'], position);
    return noBody(204);
  },
};
