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
export interface SessionEvents { total: number; lastTimestamp: string | null; events: SessionEvent[] }

/** SPEC 2.7: an explicit session, summarised from the events that carry its session_id. */
export interface ExplicitSession {
  session_id: string;
  identifier: string;
  service_name: string;
  session_start: string;
  session_end: string;
  duration_seconds: number;
  event_count: number;
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
    events: found.events.map(({ id, method, path, status_code, timestamp }) => ({ id, method, path, status_code, timestamp })),
  };
};
