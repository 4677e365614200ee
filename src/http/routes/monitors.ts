import { runCheck } from '../../checks/probe.ts';
import { createMonitor, deleteMonitor, updateMonitor } from '../../commands/monitors.ts';
import type { RouteDeps } from '../deps.ts';
import { HISTORY_DEFAULT_LIMIT, type monitorOperations } from '../operations/monitors.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import { withUptime } from '../operations/resources.ts';
import { projectResourceHandlers } from './project-resource.ts';

/** SPEC 4.10: monitors, their check history, and a check on demand. Every monitor answered
 *  carries its uptime at the service clock's now. */
export const monitorHandlers: Handlers<typeof monitorOperations, RouteDeps> = {
  ...projectResourceHandlers({
    readModel: 'monitors',
    list: async (deps, scope, projectId) =>
      withUptime(deps.readModels.monitors, await deps.readModels.monitors.list(scope, projectId), deps.now()),
    get: async (deps, id) => {
      const view = await deps.readModels.monitors.get(id, { all: true });
      return view && (await withUptime(deps.readModels.monitors, [view], deps.now()))[0]!;
    },
    commands: { create: createMonitor, update: updateMonitor, remove: deleteMonitor },
  }),

  history: async ({ resource: monitor, query: { limit = HISTORY_DEFAULT_LIMIT } }, deps) =>
    ok(await deps.readModels.monitors.history(monitor.id, limit)),

  /** One check now, with the monitor's settings; nothing is recorded and no state changes. */
  test: async ({ resource: monitor }, deps) => {
    const result = await runCheck(monitor, deps.egress, deps.now);
    return ok({
      checked_at: result.checked_at,
      status_code: result.status_code ?? null,
      response_ms: result.response_ms,
      ok: result.ok,
      error: result.error ?? null,
    });
  },
};
