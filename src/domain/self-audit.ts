import { maskedOptions, type StoredOptions } from './monitor-options.ts';
import { optionsIn } from './monitor.ts';
import { AUDIT_EVENT_TYPE, type StoredAuditEvent } from './audit-event.ts';
import { publicSettingsOf } from './channel-target.ts';
import { identifierDigest } from './retention.ts';
import type { DomainEvent, EventMetadata, EventType } from './events.ts';
import { type Change, STATUS_CHANGES, statusChangeOf } from './self-audit-status.ts';
import { SINK_CHANGES, sinkChangeOf } from './self-audit-sinks.ts';
import { FACTOR_CHANGES, factorChangeOf } from './self-audit-factors.ts';
import { SESSION_CHANGES, sessionChangeOf } from './self-audit-sessions.ts';

/** watchlog audits itself: logins, exports and every change made through it (users and their
 *  grants, projects, API keys, channels, sinks, monitors, status pages, settings) are audit events of `event_type`
 *  `system.access` in a built-in project, `watchlog`, that admins and auditors see. Logins and
 *  exports are recorded as they happen (they change nothing else); changes are the rows the
 *  audit-events projection derives from their own events, so nothing is written twice. */

/** The built-in project's id, the same in every deployment. */
export const WATCHLOG_PROJECT_ID = '00000000-0000-4000-8000-00000000a0d1';
export const WATCHLOG_PROJECT_NAME = 'watchlog';
const SERVICE = 'watchlog';
/** The path of login rows: the brute_force rule counts their failures per identifier. */
export const LOGIN_PATH = '/v1/auth/login';

const common = {
  project_id: WATCHLOG_PROJECT_ID,
  event_type: AUDIT_EVENT_TYPE.access,
  service_name: SERVICE,
  environment: 'production',
  source: 'backend' as const,
};

/** Identifiers are at most 100 characters (SPEC 2.1). */
const identifierOf = (who: string) => who.slice(0, 100);

export interface LoginAttemptRecord {
  readonly email: string;
  readonly ok: boolean;
  readonly address: string;
  readonly userAgent?: string;
  /** `wrong_credentials`, `throttled` and `wrong_factor`, or why a single sign-on was refused. */
  readonly reason?: string;
  readonly userId?: string;
  /** What was checked: the password (absent: the password), a second factor, or a passkey alone. */
  readonly factor?: 'totp' | 'recovery_code' | 'passkey';
  /** The password was right, and the sign-in waits for a second factor (or its enrolment). */
  readonly pending?: 'second_factor' | 'enrolment';
  /** How the user signed in (`password`, `totp`, `recovery_code`, `passkey`, `oidc:<provider>`)
   *  and the session started. */
  readonly method?: string;
  readonly sessionId?: string;
  /** Where the sign-in came: `POST /v1/auth/login` unless said. */
  readonly path?: string;
  readonly requestId: string;
  readonly at: Date;
}

/** A login attempt: 200, 401 (wrong e-mail or password, or a disabled account; a wrong second
 *  factor) or 429 (refused by the throttle); the identifier is the e-mail tried. */
export const loginAccessEvent = (id: string, a: LoginAttemptRecord): StoredAuditEvent => ({
  ...common,
  id,
  timestamp: a.at.toISOString(),
  method: a.path === undefined ? 'POST' : 'GET',
  path: a.path ?? LOGIN_PATH,
  status_code: a.ok ? 200 : a.reason === 'throttled' ? 429 : 401,
  identifier: identifierOf(a.email),
  ip: a.address,
  request_id: a.requestId,
  ...(a.userAgent ? { user_agent: a.userAgent.slice(0, 512) } : {}),
  request_body: {
    action: 'login',
    ok: a.ok,
    ...(a.reason ? { reason: a.reason } : {}),
    ...(a.userId ? { user_id: a.userId } : {}),
    ...(a.factor ? { factor: a.factor } : {}),
    ...(a.pending ? { pending: a.pending } : {}),
    ...(a.method ? { method: a.method } : {}),
    ...(a.sessionId ? { session_id: a.sessionId } : {}),
  },
});

/** Whether a `system.access` row is a failed login, which the brute_force rule counts. */
export const isFailedLogin = (e: Pick<StoredAuditEvent, 'event_type' | 'path' | 'status_code'>): boolean =>
  e.event_type === AUDIT_EVENT_TYPE.access && e.path === LOGIN_PATH && (e.status_code === 401 || e.status_code === 429);

export interface ExportRecord {
  /** Who exported: `user:<id>`, or `key:<id>` for a key with the read scope. */
  readonly actor: string;
  readonly format: 'csv' | 'json';
  readonly filters: Readonly<Record<string, string | number>>;
  /** How many events the export holds: those matching when it started, at most the limit. */
  readonly rows: number;
  readonly address: string;
  readonly requestId: string;
  readonly at: Date;
}

export const exportAccessEvent = (id: string, e: ExportRecord): StoredAuditEvent => ({
  ...common,
  id,
  timestamp: e.at.toISOString(),
  method: 'GET',
  path: '/v1/audit/export',
  status_code: 200,
  identifier: identifierOf(e.actor),
  ip: e.address,
  request_id: e.requestId,
  request_body: { action: 'export', format: e.format, filters: { ...e.filters }, rows: e.rows },
});

export interface ViewerTokenRecord {
  /** Who asked: `user:<id>`, or `key:<id>` for a key with the viewer:issue scope. */
  readonly actor: string;
  readonly projectId: string;
  readonly tokenId: string;
  readonly tenantId: string;
  readonly identifier: string | null;
  readonly hidden: readonly string[];
  readonly expiresAt: string;
  readonly address: string;
  readonly requestId: string;
  readonly at: Date;
}

/** A viewer token given out: who may now read which tenant's trail, until when (never the token). */
export const viewerTokenAccessEvent = (id: string, v: ViewerTokenRecord): StoredAuditEvent => ({
  ...common,
  id,
  timestamp: v.at.toISOString(),
  method: 'POST',
  path: `/v1/projects/${v.projectId}/viewer-tokens`,
  status_code: 201,
  identifier: identifierOf(v.actor),
  ip: v.address,
  request_id: v.requestId,
  request_body: {
    action: 'viewer_token.issued',
    project_id: v.projectId,
    token_id: v.tokenId,
    tenant_id: v.tenantId,
    identifier: v.identifier,
    hidden_fields: [...v.hidden],
    expires_at: v.expiresAt,
  },
});

/** What a change is, as the row shows it: never a password hash, a key hash, a webhook secret or
 *  push keys. */
const changeOf = (event: DomainEvent): Change | null => {
  switch (event.type) {
    case 'ProjectCreated':
      return {
        action: 'project.created',
        method: 'POST',
        path: '/v1/projects',
        status: 201,
        details: { project_id: event.data.project_id, name: event.data.name },
      };
    case 'ApiKeyIssued': {
      const { project_id, key_id, name, prefix, allowed_origins = [], rate_limit = null } = event.data;
      const { scopes = ['ingest'], expires_at = null } = event.data;
      return {
        action: 'api_key.issued',
        method: 'POST',
        path: `/v1/projects/${project_id}/api-keys`,
        status: 201,
        details: { project_id, key_id, name, prefix, scopes, expires_at, allowed_origins, rate_limit },
      };
    }
    case 'ApiKeyRestricted': {
      const { project_id, key_id, allowed_origins, rate_limit, scopes = ['ingest'], expires_at = null } = event.data;
      return {
        action: 'api_key.restricted',
        method: 'PUT',
        path: `/v1/projects/${project_id}/api-keys/${key_id}`,
        status: 200,
        details: { project_id, key_id, scopes, expires_at, allowed_origins, rate_limit },
      };
    }
    case 'ApiKeyRevoked': {
      const { project_id, key_id } = event.data;
      return {
        action: 'api_key.revoked',
        method: 'DELETE',
        path: `/v1/projects/${project_id}/api-keys/${key_id}`,
        status: 204,
        details: { project_id, key_id },
      };
    }
    case 'MaskingRulesSet': {
      const { project_id, keys, patterns } = event.data;
      return {
        action: 'masking.set',
        method: 'PUT',
        path: `/v1/projects/${project_id}/masking`,
        status: 200,
        details: { project_id, keys, patterns },
      };
    }
    case 'AnomalySettingsUpdated': {
      const { project_id, changes } = event.data;
      return {
        action: 'anomaly_settings.updated',
        method: 'PUT',
        path: `/v1/projects/${project_id}/anomaly-settings`,
        status: 200,
        details: { project_id, changes },
      };
    }
    case 'UserRegistered': {
      const { user_id, email, role, project_ids } = event.data;
      return {
        action: 'user.registered',
        method: 'POST',
        path: '/v1/users',
        status: 201,
        details: { user_id, email, role, project_ids },
      };
    }
    case 'UserAccessChanged': {
      const { user_id, role, project_ids } = event.data;
      return {
        action: 'user.access_changed',
        method: 'PUT',
        path: `/v1/users/${user_id}`,
        status: 200,
        details: { user_id, role, project_ids },
      };
    }
    case 'UserDisabled':
      return {
        action: 'user.disabled',
        method: 'DELETE',
        path: `/v1/users/${event.data.user_id}`,
        status: 204,
        details: { user_id: event.data.user_id },
      };
    case 'UserEnabled':
      return {
        action: 'user.enabled',
        method: 'PUT',
        path: `/v1/users/${event.data.user_id}`,
        status: 200,
        details: { user_id: event.data.user_id },
      };
    case 'UserPasswordChanged':
      return {
        action: 'user.password_changed',
        method: 'POST',
        path: `/v1/users/${event.data.user_id}/password`,
        status: 204,
        details: { user_id: event.data.user_id },
      };
    case 'ChannelCreated': {
      const { channel_id, project_id, target, events, active } = event.data;
      const where =
        target.type === 'webpush' ? { endpoint: target.subscription.endpoint } : { url: publicSettingsOf(target).url };
      return {
        action: 'channel.created',
        method: 'POST',
        path: '/v1/channels',
        status: 201,
        details: { channel_id, project_id, type: target.type, ...where, events, active },
      };
    }
    case 'ChannelUpdated': {
      const { channel_id, project_id, changes } = event.data;
      return {
        action: 'channel.updated',
        method: 'PUT',
        path: `/v1/channels/${channel_id}`,
        status: 200,
        details: { channel_id, project_id, changes },
      };
    }
    case 'ChannelDeleted': {
      const { channel_id, project_id } = event.data;
      return {
        action: 'channel.deleted',
        method: 'DELETE',
        path: `/v1/channels/${channel_id}`,
        status: 204,
        details: { channel_id, project_id },
      };
    }
    case 'ChannelDeactivated': {
      const { channel_id, project_id, reason } = event.data;
      return {
        action: 'channel.deactivated',
        method: 'PUT',
        path: `/v1/channels/${channel_id}`,
        status: 200,
        details: { channel_id, project_id, reason },
      };
    }
    case 'DeliveryRetryRequested': {
      const { delivery_id, channel_id } = event.data;
      return {
        action: 'delivery.retry_requested',
        method: 'POST',
        path: `/v1/deliveries/${delivery_id}/retry`,
        status: 202,
        details: { delivery_id, channel_id },
      };
    }
    case 'MonitorCreated': {
      const { monitor_id, project_id, name, url, interval_seconds, timeout_seconds, expected_status, enabled } =
        event.data;
      // The options by name only: their values may hold credentials.
      const options = Object.keys(optionsIn(event.data));
      return {
        action: 'monitor.created',
        method: 'POST',
        path: '/v1/monitors',
        status: 201,
        details: {
          monitor_id,
          project_id,
          name,
          url,
          interval_seconds,
          timeout_seconds,
          expected_status,
          enabled,
          ...(event.data.type === undefined ? {} : { type: event.data.type }),
          ...(options.length === 0 ? {} : { options }),
        },
      };
    }
    case 'MonitorUpdated': {
      const { monitor_id, project_id, changes } = event.data;
      return {
        action: 'monitor.updated',
        method: 'PUT',
        path: `/v1/monitors/${monitor_id}`,
        status: 200,
        // Header values and credentials as the API answers them: masked.
        details: { monitor_id, project_id, changes: maskedOptions(changes as StoredOptions) },
      };
    }
    case 'MonitorDeleted': {
      const { monitor_id, project_id } = event.data;
      return {
        action: 'monitor.deleted',
        method: 'DELETE',
        path: `/v1/monitors/${monitor_id}`,
        status: 204,
        details: { monitor_id, project_id },
      };
    }
    case 'RetentionSet': {
      const { project_id, retention_days } = event.data;
      return {
        action: 'retention.set',
        method: 'PUT',
        path: `/v1/projects/${project_id}/retention`,
        status: 200,
        details: { project_id, retention_days },
      };
    }
    // The identifier is not copied here: the rows name it by its SHA-256, which lets an auditor
    // who knows it confirm the erasure without this project holding it again.
    case 'ErasureRequested': {
      const { project_id, erasure_id, identifier, through_position } = event.data;
      return {
        action: 'erasure.requested',
        method: 'POST',
        path: `/v1/projects/${project_id}/erasures`,
        status: 202,
        details: { project_id, erasure_id, identifier_sha256: identifierDigest(identifier), through_position },
      };
    }
    case 'IdentifierErased': {
      const { project_id, identifier, through_position, erased, erasure_id } = event.data;
      return {
        action: 'identifier.erased',
        method: 'POST',
        path: `/v1/projects/${project_id}/erasures`,
        status: 200,
        details: {
          project_id,
          ...(erasure_id ? { erasure_id } : {}),
          identifier_sha256: identifierDigest(identifier),
          through_position,
          erased,
        },
      };
    }
    default:
      return statusChangeOf(event) ?? sinkChangeOf(event) ?? factorChangeOf(event) ?? sessionChangeOf(event);
  }
};

/** The event types that are changes made through watchlog. */
export const AUDITED_CHANGES: readonly EventType[] = [
  'ProjectCreated',
  'ApiKeyIssued',
  'ApiKeyRestricted',
  'ApiKeyRevoked',
  'MaskingRulesSet',
  'AnomalySettingsUpdated',
  'UserRegistered',
  'UserAccessChanged',
  'UserDisabled',
  'UserEnabled',
  'UserPasswordChanged',
  'ChannelCreated',
  'ChannelUpdated',
  'ChannelDeleted',
  'ChannelDeactivated',
  'DeliveryRetryRequested',
  'MonitorCreated',
  'MonitorUpdated',
  'MonitorDeleted',
  'RetentionSet',
  'ErasureRequested',
  'IdentifierErased',
  ...STATUS_CHANGES,
  ...SINK_CHANGES,
  ...FACTOR_CHANGES,
  ...SESSION_CHANGES,
];

/** A change as its `system.access` row, keyed by the event's id: who (the actor of its metadata),
 *  when (when it was recorded), what, and the request it came from. Null for other events, and
 *  for the creation of the built-in project itself. */
export const changeAccessEvent = (id: string, event: DomainEvent, metadata: EventMetadata): StoredAuditEvent | null => {
  if (event.type === 'ProjectCreated' && event.data.project_id === WATCHLOG_PROJECT_ID) return null;
  const change = changeOf(event);
  if (!change) return null;
  return {
    ...common,
    id,
    timestamp: metadata.recorded_at,
    method: change.method,
    path: change.path.slice(0, 255),
    status_code: change.status,
    identifier: identifierOf(metadata.actor),
    request_id: metadata.correlation_id,
    request_body: { action: change.action, ...change.details },
  };
};
