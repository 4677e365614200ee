import type Router from '@koa/router';
import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { CHECKS_KEPT, MonitorCreateInput, MonitorUpdateInput } from '../../domain/monitor.ts';
import { createMonitor, deleteMonitor, updateMonitor } from '../../commands/monitors.ts';
import { runCheck } from '../../checks/http-probe.ts';
import { commandContext, principalOf, requireRole, visibleOr404, type Principal } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { decodeOrThrow } from '../middleware/errors.ts';
import { IntFromString, singleValued } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

export const HISTORY_DEFAULT_LIMIT = 50;

const ListQuery = t.exact(t.partial({ project_id: Uuid }));
const HistoryQuery = t.exact(t.partial({ limit: IntFromString(`integer 1-${CHECKS_KEPT}`, 1, CHECKS_KEPT) }));

/** SPEC 4.10. Everyone reads the monitors of the projects they see; admins and members change
 *  them; auditors only read. A monitor of a project the caller cannot see is 404. */
export const monitorRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const jwt = deps.jwt;
  const context = (principal: Principal, correlationId: string) => commandContext(principal, correlationId, deps.now);
  const visibleMonitor = (principal: Principal, id: string | undefined) =>
    visibleOr404(id, 'monitor', (uuid) => deps.readModels.monitors.get(uuid, principal.scope));
  /** The monitor as the read model shows it once it has applied the command's events. */
  const viewAfter = async (id: string, position: string | null) => {
    await deps.caughtUp(['monitors'], position);
    return deps.readModels.monitors.get(id, { all: true });
  };

  router.get('/v1/monitors', ...jwt, async (ctx) => {
    const { project_id } = decodeOrThrow(ListQuery, singleValued(ctx.query), 'query');
    ctx.body = await deps.readModels.monitors.list(principalOf(ctx.state).scope, project_id);
  });

  router.post('/v1/monitors', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin', 'member');
    const input = decodeOrThrow(MonitorCreateInput, await readJsonBody(ctx, deps.bodyLimitBytes), 'monitor');
    await visibleOr404(input.project_id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));
    const { id, position } = await createMonitor(deps.commands, input, context(principal, ctx.state.correlationId));
    ctx.status = 201;
    ctx.body = await viewAfter(id, position);
  });

  router.get('/v1/monitors/:id', ...jwt, async (ctx) => {
    ctx.body = await visibleMonitor(principalOf(ctx.state), ctx.params.id);
  });

  router.put('/v1/monitors/:id', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const monitor = await visibleMonitor(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const input = decodeOrThrow(MonitorUpdateInput, await readJsonBody(ctx, deps.bodyLimitBytes), 'monitor');
    const { position } = await updateMonitor(deps.commands, monitor.id, input, context(principal, ctx.state.correlationId));
    ctx.body = await viewAfter(monitor.id, position);
  });

  router.delete('/v1/monitors/:id', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const monitor = await visibleMonitor(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const { position } = await deleteMonitor(deps.commands, monitor.id, context(principal, ctx.state.correlationId));
    await deps.caughtUp(['monitors'], position);
    ctx.status = 204;
  });

  router.get('/v1/monitors/:id/history', ...jwt, async (ctx) => {
    const monitor = await visibleMonitor(principalOf(ctx.state), ctx.params.id);
    const { limit = HISTORY_DEFAULT_LIMIT } = decodeOrThrow(HistoryQuery, singleValued(ctx.query), 'query');
    ctx.body = await deps.readModels.monitors.history(monitor.id, limit);
  });

  /** One check now, with the monitor's settings; nothing is recorded and no state changes. */
  router.post('/v1/monitors/:id/test', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const monitor = await visibleMonitor(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const result = await runCheck(monitor, deps.now);
    ctx.body = { checked_at: result.checked_at, status_code: result.status_code ?? null, response_ms: result.response_ms, ok: result.ok, error: result.error ?? null };
  });
};
