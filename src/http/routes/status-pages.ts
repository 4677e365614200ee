import { createStatusPage, deleteStatusPage, updateStatusPage } from '../../commands/status-pages.ts';
import { invalid } from '../../domain/errors.ts';
import type { StatusPageCreateInput, StatusPageUpdateInput } from '../../domain/status-page.ts';
import type { RouteDeps } from '../deps.ts';
import type { Handlers } from '../operations/operation.ts';
import type { statusPageOperations } from '../operations/status-pages.ts';
import { projectResourceHandlers } from './project-resource.ts';

/** The monitors named by `paths` that are not monitors of the project: a page may show only its
 *  own project's monitors (a 400 naming each, never another project's monitor). */
export const requireProjectMonitors = async (
  deps: RouteDeps,
  projectId: string,
  what: string,
  named: ReadonlyArray<{ path: string; id: string }>,
): Promise<void> => {
  if (named.length === 0) return;
  const own = new Set((await deps.readModels.monitors.list({ all: true }, projectId)).map((m) => m.id));
  const faults = named
    .filter((n) => !own.has(n.id))
    .map((n) => ({ path: n.path, message: 'is not a monitor of the project' }));
  if (faults.length > 0) throw invalid(what, faults);
};

const groupMonitors = (input: StatusPageCreateInput | StatusPageUpdateInput) =>
  (input.groups ?? []).flatMap((group, g) =>
    group.monitor_ids.map((id, i) => ({ path: `groups.${g}.monitor_ids.${i}`, id })),
  );

const pages = projectResourceHandlers({
  readModel: 'statusPages',
  list: (deps, scope, projectId) => deps.readModels.statusPages.list(scope, projectId),
  get: (deps, id) => deps.readModels.statusPages.get(id, { all: true }),
  commands: { create: createStatusPage, update: updateStatusPage, remove: deleteStatusPage },
});

export const statusPageHandlers: Handlers<typeof statusPageOperations, RouteDeps> = {
  ...pages,
  create: async (call, deps) => {
    await requireProjectMonitors(deps, call.body.project_id, 'status page', groupMonitors(call.body));
    return pages.create(call, deps);
  },
  update: async (call, deps) => {
    await requireProjectMonitors(deps, call.resource.project_id, 'status page', groupMonitors(call.body));
    return pages.update(call, deps);
  },
};
