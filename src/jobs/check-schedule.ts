import { HEARTBEAT_WATCH_SECONDS } from '../domain/heartbeat.ts';
import { retryIntervalSeconds } from '../domain/monitor.ts';
import type { MonitorSchedule, MonitorView } from '../views/monitors/port.ts';

/** When each monitor is checked next: pure, no timers and no I/O (the runner keeps the timers).
 *
 *  Monitors are spread over SHARDS shards by their id; a worker checks the monitors of the shards
 *  it holds (each shard is an Agenda job, so one worker at a time holds it). A monitor is due one
 *  interval after its previous check started, give or take a tenth toward its phase
 *  (`nextInPhase`), or one retry interval after it while a change of state is unconfirmed. A new monitor, a monitor
 *  enabled again, and one given a new interval are due at once. */

/** How many shards the monitors are spread over: at most this many workers share the checks. */
export const SHARDS = 16;

/** The shard of a monitor: FNV-1a of its id, so every worker computes the same one. */
export const shardOf = (monitorId: string): number => fnv1a(monitorId) % SHARDS;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Monitors overdue when a worker takes their shard (after a restart, a worker's death) are
 *  checked within this long (or their interval, if shorter), spread by id rather than all at once:
 *  10,000 monitors checked in the same second would be a burst against their targets, and their
 *  checks would stay bunched from then on. */
export const CATCH_UP_MS = 10_000;

/** Where a monitor falls within a window (its phase within its interval, its place in the
 *  catch-up window): by its id, so the same on every worker. */
const offsetOf = (monitorId: string, windowMs: number): number =>
  Math.floor(((fnv1a(monitorId) % 1009) / 1009) * windowMs);

/** How far a check may move from one interval after the previous one, toward its phase. */
export const PHASE_DRIFT = 0.1;

/** When a monitor is checked next after a check started at `startedAt`: one interval after it,
 *  moved by at most a tenth of the interval toward the monitor's phase (an offset within the
 *  interval, by its id: the same on every worker). A monitor's checks fall at its phase within
 *  five checks, and from then on exactly one interval apart; every gap is within 10 % of the
 *  interval meanwhile. Monitors created in the same second (a config applied, an import), or all
 *  checked at once after a restart, would otherwise stay together for good: each interval a burst
 *  against their targets and the process's event loop. */
export const nextInPhase = (monitorId: string, startedAt: number, intervalMs: number): number => {
  const due = startedAt + intervalMs;
  const phase = offsetOf(monitorId, intervalMs);
  let ahead = (((phase - due) % intervalMs) + intervalMs) % intervalMs;
  if (ahead > intervalMs / 2) ahead -= intervalMs;
  const most = Math.floor(intervalMs * PHASE_DRIFT);
  return due + Math.max(-most, Math.min(most, ahead));
};

/** What the schedule reads of a monitor in the monitors read model. */
export type ScheduledMonitor = Omit<MonitorSchedule, 'type'> & Partial<Pick<MonitorSchedule, 'type'>>;

/** How often a monitor is looked at: its interval, or for a heartbeat monitor the watch period. */
export const jobIntervalSeconds = (
  m: Pick<MonitorView, 'interval_seconds'> & Partial<Pick<MonitorView, 'type'>>,
): number => (m.type === 'heartbeat' ? Math.min(HEARTBEAT_WATCH_SECONDS, m.interval_seconds) : m.interval_seconds);

export interface Due {
  /** Epoch ms. */
  at: number;
  /** Whether `at` follows a previous check (then how late a check starts is measured). */
  scheduled: boolean;
}

/** When a monitor is due, from the read model alone (a worker taking over a shard): one interval
 *  after its last check (which was in phase, but for its lateness: this worker's next check is in
 *  phase again), or one retry interval while its last check disagrees with its status (a
 *  change not yet confirmed); at once when it was never checked or changed since (a new interval,
 *  enabled again). */
export const dueFromView = (m: ScheduledMonitor, now: number): Due => {
  if (m.last_checked_at === null) return { at: now, scheduled: false };
  const last = Date.parse(m.last_checked_at);
  if (last < Date.parse(m.updated_at)) return { at: now, scheduled: false };
  const failed = m.last_error !== null;
  const unconfirmed = m.type !== 'heartbeat' && ((m.status === 'UP' && failed) || (m.status === 'DOWN' && !failed));
  const waitS = unconfirmed ? retryIntervalSeconds(m) : jobIntervalSeconds(m);
  return { at: last + waitS * 1000, scheduled: true };
};

/** One monitor in a worker's schedule. */
export interface Entry {
  readonly id: string;
  readonly shard: number;
  intervalMs: number;
  due: Due;
  /** When this worker last started a check of it (epoch ms), or null. */
  startedAt: number | null;
  /** Its last check in the read model at the last comparison (epoch ms), or null. */
  viewCheckedAt: number | null;
}

export type Changed = { kind: 'added' | 'rescheduled' | 'removed'; entry: Entry };

/** The monitors a worker may check and when each is due. `sync` follows the read model, `checked`
 *  records a check this worker made; both answer what changed, for the runner's timers. */
export class CheckSchedule {
  readonly entries = new Map<string, Entry>();

  /** Brings the entries in step with the enabled monitors of the read model: a new one (or one
   *  enabled again) is added due from the read model, one with a new interval is due at once, a
   *  paused or deleted one is removed. */
  sync(monitors: readonly ScheduledMonitor[], now: number): Changed[] {
    const changes: Changed[] = [];
    const seen = new Set<string>();
    for (const m of monitors) {
      if (!m.enabled) continue;
      seen.add(m.id);
      const intervalMs = jobIntervalSeconds(m) * 1000;
      const viewCheckedAt = m.last_checked_at === null ? null : Date.parse(m.last_checked_at);
      const entry = this.entries.get(m.id);
      if (entry === undefined) {
        const added: Entry = {
          id: m.id,
          shard: shardOf(m.id),
          intervalMs,
          due: dueFromView(m, now),
          startedAt: null,
          viewCheckedAt,
        };
        this.entries.set(m.id, added);
        changes.push({ kind: 'added', entry: added });
        continue;
      }
      entry.viewCheckedAt = viewCheckedAt;
      if (entry.intervalMs !== intervalMs) {
        entry.intervalMs = intervalMs;
        entry.due = { at: now, scheduled: false };
        changes.push({ kind: 'rescheduled', entry });
      }
    }
    for (const [id, entry] of this.entries) {
      if (seen.has(id)) continue;
      this.entries.delete(id);
      changes.push({ kind: 'removed', entry });
    }
    return changes;
  }

  /** A worker taking over a shard after another may have held it: an entry whose last check in
   *  the read model is newer than this worker's is due from the read model; one already overdue
   *  is checked within CATCH_UP_MS, spread (its lateness then is the takeover's, not measured). */
  takeOver(shard: number, monitors: ReadonlyMap<string, ScheduledMonitor>, now: number): void {
    for (const entry of this.entries.values()) {
      if (entry.shard !== shard) continue;
      const m = monitors.get(entry.id);
      if (m === undefined) continue;
      const viewCheckedAt = m.last_checked_at === null ? null : Date.parse(m.last_checked_at);
      entry.viewCheckedAt = viewCheckedAt;
      if (viewCheckedAt !== null && (entry.startedAt === null || viewCheckedAt > entry.startedAt))
        entry.due = dueFromView(m, now);
      if (entry.due.at < now)
        entry.due = { at: now + offsetOf(entry.id, Math.min(entry.intervalMs, CATCH_UP_MS)), scheduled: false };
    }
  }

  /** This worker started a check of `id` at `startedAt`; `retryAt`: when to check again sooner
   *  than the interval (an unconfirmed change), or null. */
  checked(id: string, startedAt: number, retryAt: number | null): Entry | null {
    const entry = this.entries.get(id);
    if (entry === undefined) return null;
    entry.startedAt = startedAt;
    entry.due = { at: retryAt ?? nextInPhase(id, startedAt, entry.intervalMs), scheduled: true };
    return entry;
  }
}
