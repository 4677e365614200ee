import { deleteMaintenance, scheduleMaintenance, updateMaintenance } from '../../commands/maintenances.ts';
import type { MaintenanceMonitors } from '../../domain/maintenance.ts';
import { upcoming } from '../../domain/maintenance-schedule.ts';
import type { MaintenanceView } from '../../views/maintenances/port.ts';
import type { RouteDeps } from '../deps.ts';
import type { maintenanceOperations } from '../operations/maintenances.ts';
import { created, type Handlers, noBody, ok } from '../operations/operation.ts';
import { requireProjectMonitors } from './status-pages.ts';

const NEXT_HORIZON_MS = 90 * 86_400_000;
const NEXT_COUNT = 5;

/** A window as answered: with its next occurrences at the service clock's now. */
const answerOf = (view: MaintenanceView, now: Date) => ({
  ...view,
  next: upcoming(view.schedule, now.getTime(), NEXT_HORIZON_MS, NEXT_COUNT).map((o) => ({
    start: new Date(o.start).toISOString(),
    end: new Date(o.end).toISOString(),
  })),
});

const named = (monitorIds: MaintenanceMonitors | undefined) =>
  monitorIds === undefined || monitorIds === 'all' ? [] : monitorIds.map((id, i) => ({ path: `monitor_ids.${i}`, id }));

const viewAfter = async (deps: RouteDeps, id: string, position: string | null) => {
  await deps.caughtUp(['maintenances'], position);
  return answerOf((await deps.readModels.maintenances.get(id, { all: true }))!, deps.now());
};

export const maintenanceHandlers: Handlers<typeof maintenanceOperations, RouteDeps> = {
  list: async ({ query, principal }, deps) => {
    const now = deps.now();
    return ok(
      (await deps.readModels.maintenances.list(principal.scope, query.project_id)).map((v) => answerOf(v, now)),
    );
  },
  create: async ({ body, command }, deps) => {
    await requireProjectMonitors(deps, body.project_id, 'maintenance window', named(body.monitor_ids));
    const { id, position } = await scheduleMaintenance(deps.commands, body, command);
    return created(await viewAfter(deps, id, position));
  },
  get: ({ resource }, deps) => ok(answerOf(resource, deps.now())),
  update: async ({ resource, body, command }, deps) => {
    await requireProjectMonitors(deps, resource.project_id, 'maintenance window', named(body.monitor_ids));
    const { position } = await updateMaintenance(deps.commands, resource.id, body, command);
    return ok(await viewAfter(deps, resource.id, position));
  },
  remove: async ({ resource, command }, deps) => {
    const { position } = await deleteMaintenance(deps.commands, resource.id, command);
    await deps.caughtUp(['maintenances'], position);
    return noBody(204);
  },
};
