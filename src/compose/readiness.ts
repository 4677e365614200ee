import type { Logger } from 'pino';
import { comparePositions } from '../log/event-log.ts';
import type { ReadModelKey } from '../views/read-models.ts';
import type { ReadModelReadiness, Readiness } from '../http/operations/answers.ts';
import type { Runtime } from './runtime.ts';

/** The read models the API answers from: each must be caught up, with a projector on it. */
export const API_READ_MODELS: readonly ReadModelKey[] = [
  'access',
  'auditEvents',
  'derivedSessions',
  'stats',
  'orphans',
  'monitors',
  'channels',
  'anomalies',
  'masking',
  'otlp',
  'tree',
  'deliveries',
  'retention',
  'maintenances',
  'statusPages',
  'incidents',
  'subscribers',
  'factors',
];

/** Readiness: the API can serve. The bootstrap is done (the admin can log in), the log takes
 *  appends (its writer runs), and every read model the API answers from has a live projector and
 *  is no further behind the log than `maxLagMs` (measured from the recorded time of the oldest
 *  event it has not applied, so a steady stream of new events is not "behind"). The lag is read on
 *  `clock`, the clock that stamps `recorded_at`; leases expire on the wall clock, as they are taken. */
export const readinessProbe =
  (
    runtime: Pick<Runtime, 'log' | 'readModels'>,
    options: {
      maxLagMs: number;
      bootstrapped: () => boolean;
      readModels?: readonly ReadModelKey[];
      clock?: () => Date;
    },
  ) =>
  async (): Promise<Readiness> => {
    const now = Date.now();
    const recordedNow = options.clock?.().getTime() ?? now;
    const health = runtime.log.health();
    const head = await runtime.log.headPosition();
    const readModels: Record<string, ReadModelReadiness> = {};
    for (const key of options.readModels ?? API_READ_MODELS) {
      const store = runtime.readModels.stores[key];
      const position = await store.checkpoint();
      let lagMs = 0;
      if (comparePositions(position, head) < 0) {
        const [next] = await runtime.log.readAll(position, 1);
        if (next) lagMs = Math.max(0, recordedNow - Date.parse(next.metadata.recorded_at));
      }
      const lease = await runtime.readModels.leases.holderOf(store.name);
      const projector = lease !== null && lease.expiresAt >= now;
      readModels[store.name] = { ok: projector && lagMs <= options.maxLagMs, lag_ms: lagMs, position, projector };
    }
    const checks: Readiness['checks'] = {
      bootstrap: { ok: options.bootstrapped() },
      log: health.ok ? { ok: true, head } : { ok: false, head, reason: health.reason, since: health.since },
      read_models: readModels,
    };
    return { ready: checks.bootstrap.ok && checks.log.ok && Object.values(readModels).every((r) => r.ok), checks };
  };

/** An `api` process has no projector of its own: says once, loudly, when no projector holds the
 *  leases of the read models it answers from (a worker is needed), and once when one does again. */
export const watchForProjectors = (
  runtime: Pick<Runtime, 'readModels'>,
  logger: Logger,
  everyMs: number,
): { stop(): void } => {
  let missing: string[] = [];
  const look = async () => {
    const now = Date.now();
    const names = API_READ_MODELS.map((key) => runtime.readModels.stores[key].name);
    const held = await Promise.all(
      names.map(async (name) => ((await runtime.readModels.leases.holderOf(name))?.expiresAt ?? 0) >= now),
    );
    const none = names.filter((_, i) => !held[i]);
    if (none.length > 0 && missing.length === 0) {
      logger.warn(
        { projections: none },
        'no projector runs these read models: start a `watchlog worker` (this `api` process does not ' +
          'project), or changes will not show and readiness stays false',
      );
    } else if (none.length === 0 && missing.length > 0) logger.info('projectors run every read model again');
    missing = none;
  };
  const timer = setInterval(
    () => void look().catch((err: unknown) => logger.warn({ err }, 'could not read the projection leases')),
    everyMs,
  );
  timer.unref();
  // The first look waits one period: a worker starting beside this process needs that long.
  return { stop: () => clearInterval(timer) };
};
