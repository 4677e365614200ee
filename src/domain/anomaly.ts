/** The five anomaly rules (SPEC 6.2) as pure functions of small windows of counts, and the
 *  no-storm rule that turns findings into alerts. The scan that feeds them, and the events they
 *  become, are built on top (issue 6). */

export type RuleName = 'volume_spike' | 'error_rate' | 'brute_force' | 'mass_delete' | 'silent_service';

export interface AnomalySettings {
  volume_spike: { enabled: boolean; z_threshold: number; baseline_minutes: number; min_baseline_minutes: number; min_rate: number };
  error_rate: { enabled: boolean; threshold_percent: number; window_secs: number; min_events: number };
  brute_force: { enabled: boolean; threshold: number; window_secs: number };
  mass_delete: { enabled: boolean; threshold: number; window_secs: number };
  silent_service: { enabled: boolean; threshold_minutes: number; min_events_24h: number };
}

export const DEFAULT_ANOMALY_SETTINGS: AnomalySettings = {
  volume_spike: { enabled: true, z_threshold: 3, baseline_minutes: 60, min_baseline_minutes: 30, min_rate: 20 },
  error_rate: { enabled: true, threshold_percent: 25, window_secs: 300, min_events: 20 },
  brute_force: { enabled: true, threshold: 10, window_secs: 60 },
  mass_delete: { enabled: true, threshold: 50, window_secs: 60 },
  silent_service: { enabled: true, threshold_minutes: 15, min_events_24h: 10 },
};

const round2 = (n: number) => Math.round(n * 100) / 100;

/** `current`: events in the last minute. `baseline`: events per minute of the minutes before,
 *  oldest first, starting at the service's first event in the baseline window (so a new service
 *  has a short baseline, not a long run of zeros). The spread has a floor of 1 event/minute: a
 *  perfectly steady baseline has no spread, and any uptick would otherwise be infinitely unusual. */
export const volumeSpike = (current: number, baseline: readonly number[], s: AnomalySettings['volume_spike']) => {
  if (!s.enabled || baseline.length < s.min_baseline_minutes || current < s.min_rate) return null;
  const mean = baseline.reduce((a, b) => a + b, 0) / baseline.length;
  const variance = baseline.reduce((a, b) => a + (b - mean) ** 2, 0) / baseline.length;
  const z = (current - mean) / Math.max(Math.sqrt(variance), 1);
  if (z <= s.z_threshold) return null;
  return { current_rate: current, baseline_mean: round2(mean), z_score: round2(z), threshold: s.z_threshold };
};

/** Errors (4xx + 5xx) and total events over the rule's window. */
export const errorRate = (errors: number, total: number, s: AnomalySettings['error_rate']) => {
  if (!s.enabled || total < s.min_events) return null;
  const percent = (errors / total) * 100;
  if (percent <= s.threshold_percent) return null;
  return { error_rate: round2(percent), threshold: s.threshold_percent, errors, total, window_secs: s.window_secs };
};

/** 401 answers to one identifier over the rule's window. */
export const bruteForce = (identifier: string, count: number, s: AnomalySettings['brute_force']) =>
  s.enabled && count >= s.threshold ? { identifier, count, window_secs: s.window_secs, threshold: s.threshold } : null;

/** DELETE requests of one service over the rule's window. */
export const massDelete = (count: number, s: AnomalySettings['mass_delete']) =>
  s.enabled && count >= s.threshold ? { count, threshold: s.threshold, window_secs: s.window_secs } : null;

/** A service with enough events in the last 24 h that has gone quiet for longer than the threshold. */
export const silentService = (lastEventAt: number, events24h: number, now: number, s: AnomalySettings['silent_service']) => {
  if (!s.enabled || events24h < s.min_events_24h) return null;
  const silentMs = now - lastEventAt;
  if (silentMs <= s.threshold_minutes * 60_000) return null;
  return { silence_minutes: Math.floor(silentMs / 60_000), threshold_minutes: s.threshold_minutes, last_event_at: new Date(lastEventAt).toISOString() };
};

/** A rule's subject within a project: the service, or for brute_force the identifier. */
export interface Finding { rule: RuleName; project_id: string; subject: string; service_name: string; body: Record<string, unknown> }

export const alertKey = (f: Pick<Finding, 'rule' | 'project_id' | 'subject'>) => `${f.project_id}\u0000${f.rule}\u0000${f.subject}`;

/** No storms: a finding raises an alert only when no alert for the same rule × project × subject
 *  is open; an open alert whose condition no longer holds is cleared, so the next finding raises
 *  again. `open` is derived from the log (alerts raised and cleared), so a restart raises nothing
 *  twice. Only the rules that were evaluated (`evaluated`) may clear: a disabled rule keeps its
 *  alerts open rather than flapping. */
export const decideAlerts = (findings: readonly Finding[], open: ReadonlySet<string>, evaluated: ReadonlySet<RuleName>) => {
  const found = new Map(findings.map((f) => [alertKey(f), f]));
  const raise = [...found.entries()].filter(([key]) => !open.has(key)).map(([, f]) => f);
  const clear = [...open].filter((key) => !found.has(key) && evaluated.has(key.split('\u0000')[1] as RuleName));
  return { raise, clear };
};
