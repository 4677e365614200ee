import type { DomainEvent, EventType } from './events.ts';
import type { Change } from './self-audit-status.ts';

/** The `system.access` rows of sessions ending (self-audit.ts builds the row): who ended whose
 *  session and why; a rotated refresh token shown again (`refresh_reused`) is recorded the same
 *  way, its actor the service. A session's start is its sign-in's own row. */

export const SESSION_CHANGES: readonly EventType[] = ['SessionEnded'];

export const sessionChangeOf = (event: DomainEvent): Change | null => {
  if (event.type !== 'SessionEnded') return null;
  const { session_id, user_id, reason } = event.data;
  return {
    action: reason === 'refresh_reused' ? 'session.refresh_reused' : 'session.ended',
    method: reason === 'refresh_reused' ? 'POST' : 'DELETE',
    path: reason === 'refresh_reused' ? '/v1/auth/refresh' : `/v1/auth/sessions/${session_id}`,
    status: reason === 'refresh_reused' ? 401 : 204,
    details: { session_id, user_id, reason },
  };
};
