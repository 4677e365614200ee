/** An event of an explicit session, with what the summary needs. */
export interface SessionEvent {
  id: string;
  method: string;
  path: string;
  status_code: number | null;
  timestamp: string;
  identifier: string;
  service_name: string;
}

/** The first events of a session (oldest first), how many there are, and when the last happened. */
export interface SessionEvents {
  total: number;
  lastTimestamp: string | null;
  events: SessionEvent[];
}

/** What derived (SPEC 2.6) and explicit (SPEC 2.7) sessions both say of themselves. */
export interface SessionSummary {
  identifier: string;
  service_name: string;
  session_start: string;
  session_end: string;
  duration_seconds: number;
  event_count: number;
}

/** SPEC 2.7: an explicit session, summarised from the events that carry its session_id. */
export interface ExplicitSession extends SessionSummary {
  session_id: string;
  events: Array<Pick<SessionEvent, 'id' | 'method' | 'path' | 'status_code' | 'timestamp'>>;
}

/** Null when no event carries the id. identifier and service_name are the first event's (a
 *  session spanning several services or users keeps the one that opened it). */
export const summarizeExplicitSession = (sessionId: string, found: SessionEvents): ExplicitSession | null => {
  const first = found.events[0];
  if (!first || found.lastTimestamp === null) return null;
  const start = Date.parse(first.timestamp);
  const end = Date.parse(found.lastTimestamp);
  return {
    session_id: sessionId,
    identifier: first.identifier,
    service_name: first.service_name,
    session_start: first.timestamp,
    session_end: found.lastTimestamp,
    duration_seconds: Math.floor((end - start) / 1000),
    event_count: found.total,
    events: found.events.map(({ id, method, path, status_code, timestamp }) => ({
      id,
      method,
      path,
      status_code,
      timestamp,
    })),
  };
};

// ---- derived sessions (SPEC 3.3) ----

/** More than this much inactivity starts a new session; exactly this much stays in it. */
export const SESSION_GAP_MS = 30 * 60 * 1000;

/** A derived session of one identifier in one service: times in epoch milliseconds. */
export interface SessionSpan {
  start: number;
  end: number;
  count: number;
}

/** Whether an event at `ts` belongs with `span` (within the gap of either end, or inside). */
export const touches = (span: SessionSpan, ts: number): boolean =>
  span.end >= ts - SESSION_GAP_MS && span.start <= ts + SESSION_GAP_MS;

/** Adds an event to the spans it touches (at most two: the spans of one key are separated by
 *  more than the gap) and returns the one span they become. Because sessions are the runs of
 *  the sorted timestamps split at gaps over 30 minutes, merging this way gives the same sessions
 *  whatever order events arrive in, so a late event lands in (or joins) the right session. */
export const mergeEvent = (touching: readonly SessionSpan[], ts: number): SessionSpan =>
  touching.reduce(
    (merged, s) => ({
      start: Math.min(merged.start, s.start),
      end: Math.max(merged.end, s.end),
      count: merged.count + s.count,
    }),
    { start: ts, end: ts, count: 1 },
  );

/** All of a key's spans after one more event, sorted by start. */
export const addEvent = (spans: readonly SessionSpan[], ts: number): SessionSpan[] => {
  const touching = spans.filter((s) => touches(s, ts));
  return [...spans.filter((s) => !touches(s, ts)), mergeEvent(touching, ts)].sort((a, b) => a.start - b.start);
};

/** SPEC 2.6's times of a derived session. */
export const sessionTimes = (span: SessionSpan): Omit<SessionSummary, 'identifier' | 'service_name'> => ({
  session_start: new Date(span.start).toISOString(),
  session_end: new Date(span.end).toISOString(),
  duration_seconds: Math.floor((span.end - span.start) / 1000),
  event_count: span.count,
});

/** An http event as derived sessions see it. */
export interface SessionActivity {
  project_id: string;
  identifier: string;
  service_name: string;
  /** Epoch ms. */
  ts: number;
}

/** SPEC 3.3's sessions of a set of events (those a filter chose), newest first: per project ×
 *  identifier × service, the runs of timestamps split where more than SESSION_GAP_MS pass. */
export const sessionsOfEvents = (
  events: readonly SessionActivity[],
): Array<SessionSummary & { project_id: string }> => {
  const byKey = new Map<string, { first: SessionActivity; times: number[] }>();
  for (const e of events) {
    const key = JSON.stringify([e.project_id, e.identifier, e.service_name]);
    const group = byKey.get(key) ?? byKey.set(key, { first: e, times: [] }).get(key)!;
    group.times.push(e.ts);
  }
  const sessions: Array<SessionSummary & { project_id: string }> = [];
  for (const { first, times } of byKey.values()) {
    times.sort((a, b) => a - b);
    let span = null as SessionSpan | null;
    const close = (s: SessionSpan) =>
      sessions.push({
        project_id: first.project_id,
        identifier: first.identifier,
        service_name: first.service_name,
        ...sessionTimes(s),
      });
    for (const ts of times) {
      if (span && ts - span.end <= SESSION_GAP_MS) span = { ...span, end: ts, count: span.count + 1 };
      else {
        if (span) close(span);
        span = { start: ts, end: ts, count: 1 };
      }
    }
    if (span) close(span);
  }
  return sessions.sort((a, b) => b.session_start.localeCompare(a.session_start));
};
