import type Router from '@koa/router';
import * as t from 'io-ts';
import { CHECKS_KEPT, MonitorCreateInput, MonitorUpdateInput } from '../../domain/monitor.ts';
import { createMonitor, deleteMonitor, updateMonitor } from '../../commands/monitors.ts';
import { runCheck } from '../../checks/http-probe.ts';
import { principalOf, requireRole } from '../middleware/auth.ts';
import { IntFromString, NoParameters, readQuery } from '../middleware/query.ts';
import type { Scope } from '../../domain/scope.ts';
import type { MonitorResponse, MonitorView } from '../../views/monitors/port.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { projectResourceRoutes } from './project-resource.ts';

export const HISTORY_DEFAULT_LIMIT = 50;

export const HistoryQuery = t.exact(t.partial({ limit: IntFromString(1, CHECKS_KEPT) }));

/** SPEC 4.10: monitors, their check history, and a check on demand. */
export const monitorRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  // A URL whose host is a literal address the egress policy denies could never be checked.
  const url = ({ url }: { url?: string }) => {
    const refused = url === undefined ? null : deps.egress.literalRefusal(url);
    return refused === null ? [] : [{ path: 'url', message: refused }];
  };
  const monitors = deps.readModels.monitors;
  const withUptime = async (views: MonitorView[]): Promise<MonitorResponse[]> => {
    const uptime = await monitors.uptime(
      views.map((v) => v.id),
      deps.now(),
    );
    return views.map((v) => ({ ...v, ...(uptime.get(v.id) ?? { uptime_24h: null, uptime_7d: null }) }));
  };
  // Every monitor the routes answer carries its uptime at the service clock's now.
  const queries = {
    list: async (scope: Scope, projectId?: string) => withUptime(await monitors.list(scope, projectId)),
    get: async (id: string, scope: Scope) => {
      const view = await monitors.get(id, scope);
      return view && (await withUptime([view]))[0]!;
    },
  };
  const { visible } = projectResourceRoutes(router, deps, {
    path: '/v1/monitors',
    what: 'monitor',
    readModel: 'monitors',
    queries,
    inputs: [MonitorCreateInput, MonitorUpdateInput],
    commands: { create: createMonitor, update: updateMonitor, remove: deleteMonitor },
    problems: { create: url, update: url },
  });

  router.get('/v1/monitors/:id/history', ...deps.jwt, async (ctx) => {
    const monitor = await visible(principalOf(ctx.state), ctx.params.id);
    const { limit = HISTORY_DEFAULT_LIMIT } = readQuery(ctx.query, HistoryQuery);
    ctx.body = await deps.readModels.monitors.history(monitor.id, limit);
  });

  /** One check now, with the monitor's settings; nothing is recorded and no state changes. */
  router.post('/v1/monitors/:id/test', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const monitor = await visible(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const result = await runCheck(monitor, deps.egress, deps.now);
    ctx.body = {
      checked_at: result.checked_at,
      status_code: result.status_code ?? null,
      response_ms: result.response_ms,
      ok: result.ok,
      error: result.error ?? null,
    };
  });
};
