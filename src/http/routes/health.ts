import type Router from '@koa/router';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

export interface ReadModelReadiness {
  ok: boolean;
  /** How long the oldest event it has not applied has been in the log; 0 when caught up. */
  lag_ms: number;
  /** Its checkpoint: the log position it has applied. */
  position: string | null;
  /** Whether a live projector holds its lease (none: no worker runs it). */
  projector: boolean;
}

export interface Readiness {
  ready: boolean;
  checks: {
    bootstrap: { ok: boolean };
    log: { ok: boolean; head: string | null; reason?: string; since?: string };
    read_models: Record<string, ReadModelReadiness>;
  };
}

/** Liveness (`/healthz`: the process answers) apart from readiness (`/readyz`: a request would
 *  succeed now), so a platform restarts what is dead and routes only to what is ready. */
export const healthRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const readiness = await deps.readiness();
    ctx.status = readiness.ready ? 200 : 503;
    ctx.body = { status: readiness.ready ? 'ready' : 'not_ready', ...readiness.checks };
  });
};
