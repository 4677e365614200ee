import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { recordFindings } from '../commands/anomalies.ts';
import { effectiveSettings, type AnomalyOverrides, type AnomalySettings } from '../domain/anomaly-settings.ts';
import {
  BUCKET_MS,
  RATE_WINDOW_SECS,
  alertKey,
  baselineOf,
  baselineRange,
  bruteForceOver,
  currentRate,
  decideAlerts,
  enabledRules,
  errorRateOver,
  massDeleteOver,
  silentServiceOf,
  volumeSpikeOf,
  windowEnds,
  windowStart,
  type Finding,
  type ServiceSeries,
} from '../domain/anomaly.ts';
import type { EventLog } from '../log/event-log.ts';
import type { ReadModels } from '../views/read-models.ts';
import type { RepeatingJob } from './worker-jobs.ts';
import { NO_JOB_METRICS, type JobMetrics } from './metrics.ts';

export const ANOMALY_SCAN_JOB = 'anomaly-scan';
const DAY_MS = 86_400_000;

/** Items by project (Map.groupBy arrives only in Node 21). */
const byProjectOf = <T>(items: Iterable<T>, projectOf: (item: T) => string): Map<string, T[]> => {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(projectOf(item));
    if (group) group.push(item);
    else groups.set(projectOf(item), [item]);
  }
  return groups;
};

export interface AnomalyScanDeps {
  log: EventLog;
  readModels: ReadModels;
  /** Resolves true once the read models the scan reads (windows, stats, anomalies) have applied
   *  the log up to `position`. */
  caughtUp: (position: string) => Promise<boolean>;
  defaults: AnomalySettings;
  /** The scan's interval: each scan evaluates every window position since the previous one. */
  intervalMs: number;
  logger: Logger;
  /** Where scans are counted and timed (default: nowhere). */
  metrics?: JobMetrics;
}

export interface ScanReport {
  /** Set when the read models were too far behind the log to judge (a replay): nothing decided. */
  skipped: boolean;
  findings: number;
  raised: Finding[];
  cleared: number;
  ms: number;
}

/** One anomaly scan at `now`: reads the small aggregates the projections keep (10-second
 *  windows, per-minute and per-hour stats), runs the pure rules on them, and hands each project's
 *  findings to the command that raises and clears alerts. Never reads events. */
export const scanAnomalies = async (deps: AnomalyScanDeps, nowDate: Date): Promise<ScanReport> => {
  const started = performance.now();
  const now = nowDate.getTime();
  const report = (skipped: boolean, findings: Finding[], raised: Finding[] = [], cleared = 0): ScanReport => ({
    skipped,
    findings: findings.length,
    raised,
    cleared,
    ms: Math.round(performance.now() - started),
  });

  // Read models behind the log (a replay after a rebuild or a new read store) would make every
  // service look silent and every window empty: judge only what has been projected.
  const head = await deps.log.headPosition();
  if (head !== null && !(await deps.caughtUp(head))) {
    deps.logger.warn({ head }, 'anomaly scan skipped: read models are still catching up with the log');
    return report(true, []);
  }

  const overrides = new Map<string, AnomalyOverrides>(
    (await deps.readModels.anomalies.allSettings()).map((s) => [s.project_id, s.overrides]),
  );
  const effective = new Map<string, AnomalySettings>();
  const settingsOf = (projectId: string): AnomalySettings => {
    let s = effective.get(projectId);
    if (!s) {
      const own = overrides.get(projectId);
      s = own ? effectiveSettings(deps.defaults, own) : deps.defaults;
      effective.set(projectId, s);
    }
    return s;
  };
  // What any project may need: the longest windows and the lowest thresholds bound the reads.
  const every = [deps.defaults, ...[...overrides.keys()].map(settingsOf)];
  const ends = windowEnds(now, Math.min(deps.intervalMs, 3_600_000) + BUCKET_MS);
  const lastEnd = ends[ends.length - 1]!;
  const findings: Finding[] = [];
  const found = (f: Finding | null) => f && findings.push(f);

  // error_rate, mass_delete, and volume_spike's current rate, per service.
  const minTotal = Math.min(
    ...every.flatMap((s) => [
      s.error_rate.enabled ? s.error_rate.min_events : Infinity,
      s.mass_delete.enabled ? s.mass_delete.threshold : Infinity,
      s.volume_spike.enabled ? s.volume_spike.min_rate : Infinity,
    ]),
  );
  const spikes: Array<{ series: ServiceSeries; current: number }> = [];
  if (Number.isFinite(minTotal)) {
    const longest = Math.max(
      RATE_WINDOW_SECS,
      ...every.flatMap((s) => [s.error_rate.window_secs, s.mass_delete.window_secs]),
    );
    for (const series of await deps.readModels.anomalyWindows.serviceSeries(
      windowStart(ends, longest),
      lastEnd,
      minTotal,
    )) {
      const s = settingsOf(series.project_id);
      found(errorRateOver(series, ends, s.error_rate));
      found(massDeleteOver(series, ends, s.mass_delete));
      const current = currentRate(series, ends);
      if (s.volume_spike.enabled && current >= s.volume_spike.min_rate) spikes.push({ series, current });
    }
  }

  // volume_spike: the baselines of the services busy enough to spike, per project (its own
  // baseline length), summarised by the stats read model.
  for (const [projectId, candidates] of byProjectOf(spikes, (spike) => spike.series.project_id)) {
    const s = settingsOf(projectId).volume_spike;
    const { from, to } = baselineRange(ends, s.baseline_minutes);
    const baselines = new Map(
      (await deps.readModels.stats.serviceBaselines(projectId, from, to)).map((b) => [b.service_name, b]),
    );
    for (const { series, current } of candidates) {
      const b = baselines.get(series.service_name);
      found(
        volumeSpikeOf(
          series,
          current,
          b ? baselineOf(b.first_minute, b.sum, b.sum_squares, to) : { minutes: 0, sum: 0, sum_squares: 0 },
          s,
        ),
      );
    }
  }

  // brute_force, per identifier: only identifiers with enough 401s in the whole range are read.
  const minFailures = Math.min(...every.map((s) => (s.brute_force.enabled ? s.brute_force.threshold : Infinity)));
  if (Number.isFinite(minFailures)) {
    const longest = Math.max(...every.map((s) => s.brute_force.window_secs));
    for (const series of await deps.readModels.anomalyWindows.authFailureSeries(
      windowStart(ends, longest),
      lastEnd,
      minFailures,
    )) {
      found(bruteForceOver(series, ends, settingsOf(series.project_id).brute_force));
    }
  }

  // silent_service, from the stats: each service's last event and its events in the last 24 h.
  if (every.some((s) => s.silent_service.enabled)) {
    for (const activity of await deps.readModels.stats.serviceActivity(now - DAY_MS)) {
      found(silentServiceOf(activity, now, settingsOf(activity.project_id).silent_service));
    }
  }

  // Per project: only where the read model's open alerts say something changes is the log read
  // and the decision made again, on the stream, by the command.
  const byProject = byProjectOf(findings, (f) => f.project_id);
  const openByProject = byProjectOf(await deps.readModels.anomalies.openAlerts(), (alert) => alert.project_id);
  const ctx = { actor: 'system:anomaly-scan', correlationId: randomUUID(), now: () => nowDate };
  const raised: Finding[] = [];
  let cleared = 0;
  for (const projectId of new Set([...byProject.keys(), ...openByProject.keys()])) {
    const projectFindings = byProject.get(projectId) ?? [];
    const evaluated = enabledRules(settingsOf(projectId));
    const change = decideAlerts(
      projectFindings,
      new Set((openByProject.get(projectId) ?? []).map(alertKey)),
      evaluated,
    );
    if (change.raise.length === 0 && change.clear.length === 0) continue;
    const result = await recordFindings(deps, projectId, projectFindings, evaluated, ctx);
    for (const f of result.raised) {
      deps.logger.info(
        { project_id: projectId, rule: f.rule, subject: f.subject, service_name: f.service_name, details: f.details },
        'anomaly detected',
      );
    }
    raised.push(...result.raised);
    cleared += result.cleared;
  }
  return report(false, findings, raised, cleared);
};

/** The scan as the worker's repeating Agenda job: one worker at a time runs it. */
export const anomalyScanJob = (deps: AnomalyScanDeps, now: () => Date): RepeatingJob => ({
  name: ANOMALY_SCAN_JOB,
  everyMs: deps.intervalMs,
  async run() {
    const metrics = deps.metrics ?? NO_JOB_METRICS;
    const started = performance.now();
    let result: ScanReport;
    try {
      result = await scanAnomalies(deps, now());
    } catch (error) {
      metrics.scanned('failed', (performance.now() - started) / 1000);
      throw error;
    }
    metrics.scanned(result.skipped ? 'skipped' : 'done', (performance.now() - started) / 1000);
    deps.logger.debug(
      { ms: result.ms, findings: result.findings, raised: result.raised.length, cleared: result.cleared },
      'anomaly scan done',
    );
  },
});
