import type { Logger } from 'pino';
import type { CommandDeps } from '../commands/handle.ts';
import { loadMonitor, recordCheck, watchHeartbeat } from '../commands/monitors.ts';
import { probe } from '../checks/probe.ts';
import type { EgressPolicy } from '../checks/egress.ts';
import { decideTransition, retryIntervalSeconds, type MonitorState } from '../domain/monitor.ts';
import { NO_JOB_METRICS, type CheckOutcome, type JobMetrics } from './metrics.ts';

export interface MonitorCheckDeps extends CommandDeps {
  readonly egress: EgressPolicy;
  /** Where checks are counted and timed (default: nowhere). */
  readonly metrics?: JobMetrics;
  /** Whether a maintenance window covers a monitor at a time (maintenance-windows.ts; default:
   *  none ever does). */
  readonly maintenance?: { covers(projectId: string, monitorId: string, at: Date): Promise<boolean> };
}

export interface MonitorCheckOptions {
  now: () => Date;
  /** When this worker started (epoch ms): a failure within a monitor's first interval after it is
   *  checked again before it may take the monitor DOWN. */
  startedAt: number;
  /** How long to wait before that second look. */
  recheckDelayMs: number;
}

/** One check of a monitor, as a worker makes it: reads the monitor from its stream, checks it (a
 *  heartbeat monitor: looks for a missed beat), records the result. `latenessSeconds`: how long
 *  after its schedule it started, for the metrics (null when unknown). Resolves to when to check
 *  again sooner than the interval (a failure or recovery not yet confirmed), or null. */
export const checkMonitor = async (
  deps: MonitorCheckDeps,
  logger: Logger,
  options: MonitorCheckOptions,
  monitorId: string,
  latenessSeconds: number | null = null,
): Promise<Date | null> => {
  const metrics = deps.metrics ?? NO_JOB_METRICS;
  let outcome: CheckOutcome | null = null;
  const ctx = { actor: 'system:monitor', correlationId: monitorId, now: options.now };
  try {
    const loaded = await loadMonitor(deps, monitorId);
    const { state } = loaded;
    if (state.id === null || state.deleted || !state.settings.enabled) return null;
    const covered = (at: Date) => deps.maintenance?.covers(state.projectId, monitorId, at) ?? Promise.resolve(false);
    if (state.settings.type === 'heartbeat') {
      const handled = await watchHeartbeat(deps, monitorId, ctx, loaded, await covered(options.now()));
      outcome = handled === null ? 'up' : 'down';
      logTransitions(logger, monitorId, handled?.events ?? []);
      return retryAt(handled?.state ?? state);
    }
    let probed = await probe(state.settings, deps.egress, options.now);
    // Within its first interval after a restart, a failure that would take a monitor DOWN is
    // checked again first: what failed may be what restarted with watchlog (its own health
    // endpoint, a service started beside it), and a DOWN and UP pair would page people for it.
    const sinceStart = options.now().getTime() - options.startedAt;
    if (
      sinceStart < state.settings.interval_seconds * 1000 &&
      decideTransition(state, probed.result)?.type === 'MonitorWentDown'
    ) {
      logger.debug(
        { monitor_id: monitorId, error: probed.result.error },
        'a check failed just after a restart; checking again before going DOWN',
      );
      await new Promise((r) => setTimeout(r, options.recheckDelayMs));
      probed = await probe(state.settings, deps.egress, options.now);
    }
    const { result, refused } = probed;
    // Judged at the check's own time: a check that began inside a window is the window's.
    const inMaintenance = await covered(new Date(result.checked_at));
    const handled = await recordCheck(deps, monitorId, result, ctx, loaded, inMaintenance);
    outcome = result.ok ? 'up' : refused ? 'blocked' : 'down';
    metrics.checked(outcome, result.response_ms / 1000, latenessSeconds);
    logTransitions(logger, monitorId, handled.events);
    return retryAt(handled.state);
  } catch (error) {
    if (outcome === null) metrics.checked('error', null, null);
    throw error;
  }
};

const logTransitions = (logger: Logger, monitorId: string, events: ReadonlyArray<{ type: string }>): void => {
  for (const e of events) {
    if (e.type === 'MonitorWentDown' || e.type === 'MonitorCameUp')
      logger.info({ monitor_id: monitorId, transition: e.type }, 'monitor state changed');
  }
};

/** While a change of state is unconfirmed, the next check comes after the retry interval. */
const retryAt = (state: MonitorState): Date | null => {
  if (state.streak === null) return null;
  return new Date(Date.now() + retryIntervalSeconds(state.settings) * 1000);
};
