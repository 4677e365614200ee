import type { DomainEvent, EventType } from './events.ts';
import type { Change } from './self-audit-status.ts';

/** The `system.access` rows of sessions ending and of single sign-on providers changing
 *  (self-audit.ts builds the row): who ended whose session and why, a rotated refresh token shown
 *  again (`refresh_reused`, its actor the service), who configured which provider (never its
 *  client secret). A session's start is its sign-in's own row. */

export const SESSION_CHANGES: readonly EventType[] = ['SessionEnded', 'SsoProviderSaved', 'SsoProviderDeleted'];

export const sessionChangeOf = (event: DomainEvent): Change | null => {
  switch (event.type) {
    case 'SessionEnded': {
      const { session_id, user_id, reason } = event.data;
      const reused = reason === 'refresh_reused';
      return {
        action: reused ? 'session.refresh_reused' : 'session.ended',
        method: reused ? 'POST' : 'DELETE',
        path: reused ? '/v1/auth/refresh' : `/v1/auth/sessions/${session_id}`,
        status: reused ? 401 : 204,
        details: { session_id, user_id, reason },
      };
    }
    case 'SsoProviderSaved': {
      const { provider_id, client_secret: _, saved_at: __, ...settings } = event.data;
      return {
        action: 'sso_provider.saved',
        method: 'PUT',
        path: `/v1/settings/sso/${provider_id}`,
        status: 200,
        details: { provider_id, ...settings },
      };
    }
    case 'SsoProviderDeleted':
      return {
        action: 'sso_provider.deleted',
        method: 'DELETE',
        path: `/v1/settings/sso/${event.data.provider_id}`,
        status: 204,
        details: { provider_id: event.data.provider_id },
      };
    default:
      return null;
  }
};
