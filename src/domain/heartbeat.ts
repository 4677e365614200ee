import type { CheckResult, MonitorState } from './monitor.ts';
import { OPTION_DEFAULTS } from './monitor-options.ts';

/** Heartbeat (push) monitors: a job says it is alive by calling its URL; the monitor fails when
 *  no beat arrives within `interval_seconds` + `grace_seconds`. Pure. */

/** How often the worker looks for missed beats, whatever the monitor's interval: a miss is seen
 *  at most this long (plus the scheduler's poll) after its deadline. */
export const HEARTBEAT_WATCH_SECONDS = 10;

/** What a beat records: a pass, or the failure the job reports (`?status=down&msg=…`). */
export interface BeatReport {
  down: boolean;
  message?: string | undefined;
  /** How long the job took, as it says (`ping`, ms). */
  responseMs?: number | undefined;
}

export const beatResult = (at: Date, report: BeatReport): CheckResult => ({
  checked_at: at.toISOString(),
  ok: !report.down,
  response_ms: report.responseMs ?? 0,
  heartbeat: 'beat',
  ...(report.down
    ? { error: `the job reported a failure${report.message ? `: ${report.message.slice(0, 500)}` : ''}` }
    : {}),
});

/** The failed check to record when a beat is overdue at `now`, or null. `last`: the monitor's
 *  newest check. After a miss, the next miss is recorded one interval later (a miss per interval
 *  while no beat comes, so `down_after` counts intervals). Waiting starts when the monitor was
 *  created or enabled again. */
export const missedBeat = (
  state: MonitorState,
  last: Pick<CheckResult, 'checked_at' | 'heartbeat'> | null,
  now: Date,
): CheckResult | null => {
  if (state.id === null || state.deleted || !state.settings.enabled || state.armedAt === null) return null;
  const s = state.settings;
  const intervalMs = s.interval_seconds * 1000;
  const graceSeconds = s.grace_seconds ?? OPTION_DEFAULTS.grace_seconds;
  const windowMs = intervalMs + graceSeconds * 1000;
  const armed = Date.parse(state.armedAt);
  const lastAt = last === null ? null : Date.parse(last.checked_at);
  const since = lastAt === null || lastAt < armed ? armed : lastAt;
  const wait = last?.heartbeat === 'missed' && since === lastAt ? intervalMs : windowMs;
  if (now.getTime() - since < wait) return null;
  return {
    checked_at: now.toISOString(),
    ok: false,
    response_ms: 0,
    heartbeat: 'missed',
    error: `no heartbeat within ${s.interval_seconds} s + ${graceSeconds} s grace`,
  };
};
