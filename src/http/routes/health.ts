import type { RouteDeps } from '../deps.ts';
import type { healthOperations } from '../operations/health.ts';
import { type Handlers, ok } from '../operations/operation.ts';

export const healthHandlers: Handlers<typeof healthOperations, RouteDeps> = {
  liveness: () => ok({ status: 'ok' as const }),
  readiness: async (_, deps) => {
    const readiness = await deps.readiness();
    const body = { status: readiness.ready ? ('ready' as const) : ('not_ready' as const), ...readiness.checks };
    return readiness.ready ? ok(body) : { status: 503, body };
  },
};
