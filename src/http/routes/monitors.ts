import { runCheck } from '../../checks/probe.ts';
import {
  createMonitor,
  deleteMonitor,
  heartbeatTokenHash,
  recordBeat,
  updateMonitor,
} from '../../commands/monitors.ts';
import { DomainError } from '../../domain/errors.ts';
import type { MonitorView } from '../../views/monitors/port.ts';
import type { RouteDeps } from '../deps.ts';
import { HISTORY_DEFAULT_LIMIT, type monitorOperations } from '../operations/monitors.ts';
import { created, type Handlers, noBody, ok } from '../operations/operation.ts';
import { inMaintenance, monitorAnswers } from '../operations/resources.ts';

/** SPEC 4.10: monitors, their check history, a check on demand, and heartbeats. Every monitor
 *  answered carries its uptime at the service clock's now, its secrets masked. */

const answerOne = async (deps: RouteDeps, view: MonitorView) =>
  (await monitorAnswers(deps.readModels, [view], deps.now()))[0]!;

/** Read-your-writes: the monitor once the read model shows the command's events. */
const viewAfter = async (deps: RouteDeps, id: string, position: string | null) => {
  await deps.caughtUp(['monitors'], position);
  return (await deps.readModels.monitors.get(id, { all: true }))!;
};

export const monitorHandlers: Handlers<typeof monitorOperations, RouteDeps> = {
  list: async ({ query, principal }, deps) =>
    ok(
      await monitorAnswers(
        deps.readModels,
        await deps.readModels.monitors.list(principal.scope, query.project_id),
        deps.now(),
      ),
    ),

  create: async ({ body, command, ctx }, deps) => {
    const { id, position, heartbeatToken } = await createMonitor(deps.commands, body, command);
    const answer = await answerOne(deps, await viewAfter(deps, id, position));
    if (heartbeatToken === null) return created(answer);
    const base = deps.publicUrl ?? `${ctx.protocol}://${ctx.host}`;
    return created({
      ...answer,
      heartbeat_token: heartbeatToken,
      heartbeat_url: `${base}/v1/heartbeat/${heartbeatToken}`,
    });
  },

  get: async ({ resource }, deps) => ok(await answerOne(deps, resource)),

  update: async ({ resource, body, command }, deps) => {
    const { position } = await updateMonitor(deps.commands, resource.id, body, command);
    return ok(await answerOne(deps, await viewAfter(deps, resource.id, position)));
  },

  remove: async ({ resource, command }, deps) => {
    const { position } = await deleteMonitor(deps.commands, resource.id, command);
    await deps.caughtUp(['monitors'], position);
    return noBody(204);
  },

  history: async ({ resource: monitor, query: { limit = HISTORY_DEFAULT_LIMIT } }, deps) =>
    ok(await deps.readModels.monitors.history(monitor.id, limit)),

  /** One check now, with the monitor's settings; nothing is recorded and no state changes. */
  test: async ({ resource: monitor }, deps) => {
    if (monitor.type === 'heartbeat')
      throw new DomainError('conflict', 'a heartbeat monitor is not checked: its job sends beats');
    const { status_code, error, ...rest } = await runCheck(monitor, deps.egress, deps.now);
    return ok({ ...rest, status_code: status_code ?? null, error: error ?? null });
  },

  beat: async ({ params, query }, deps) => beatHandler(params.token, query, deps),
  beatPost: async ({ params, query }, deps) => beatHandler(params.token, query, deps),
};

const beatHandler = async (
  token: string,
  query: { status?: 'up' | 'down'; msg?: string; ping?: number },
  deps: RouteDeps,
) => {
  const monitor = await deps.readModels.monitors.byHeartbeatToken(heartbeatTokenHash(token));
  if (monitor === null) throw new DomainError('not_found', 'heartbeat monitor not found');
  // A beat is a check: under a maintenance window it is recorded as one, out of uptime and unnotified.
  const covered = await inMaintenance(deps.readModels.maintenances, [monitor], deps.now());
  const status = await recordBeat(
    deps.commands,
    monitor.id,
    { down: query.status === 'down', message: query.msg, responseMs: query.ping },
    { actor: 'system:heartbeat', correlationId: monitor.id, now: deps.now },
    covered.has(monitor.id),
  );
  return ok({ status });
};
