import { deleteIncident, openIncident, postIncidentUpdate } from '../../commands/incidents.ts';
import type { RouteDeps } from '../deps.ts';
import type { incidentOperations } from '../operations/incidents.ts';
import { created, type Handlers, noBody, ok } from '../operations/operation.ts';
import { requireProjectMonitors } from './status-pages.ts';

export const incidentHandlers: Handlers<typeof incidentOperations, RouteDeps> = {
  list: async ({ query: { page = 1, limit = 20, project_id, open }, principal }, deps) =>
    ok(
      await deps.readModels.incidents.list(principal.scope, {
        page,
        limit,
        ...(project_id === undefined ? {} : { projectId: project_id }),
        ...(open === undefined ? {} : { open: open === 'true' }),
      }),
    ),
  create: async ({ body, command }, deps) => {
    await requireProjectMonitors(
      deps,
      body.project_id,
      'incident',
      (body.monitor_ids ?? []).map((id, i) => ({ path: `monitor_ids.${i}`, id })),
    );
    const { id, position } = await openIncident(deps.commands, body, command);
    await deps.caughtUp(['incidents'], position);
    return created((await deps.readModels.incidents.get(id, { all: true }))!);
  },
  get: ({ resource }) => ok(resource),
  postUpdate: async ({ resource, body, command }, deps) => {
    const { position } = await postIncidentUpdate(deps.commands, resource.id, body, command);
    await deps.caughtUp(['incidents'], position);
    return created((await deps.readModels.incidents.get(resource.id, { all: true }))!);
  },
  remove: async ({ resource, command }, deps) => {
    const { position } = await deleteIncident(deps.commands, resource.id, command);
    await deps.caughtUp(['incidents'], position);
    return noBody(204);
  },
};
