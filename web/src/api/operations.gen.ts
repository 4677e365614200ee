// Generated from the server's operation table (src/http/operations/) by `npm run api-types`, which
// `npm run build` runs; a test fails when it is not current. Do not edit.

/** The most monitors a project may have (src/domain/monitor.ts): a 409 past it. */
export const MONITORS_PER_PROJECT = 10;

export type AnomalySettings = {
  project_id: string;
  volume_spike: {
    enabled: boolean;
    z_threshold: number;
    baseline_minutes: number;
    min_baseline_minutes: number;
    min_rate: number;
  };
  error_rate: {
    enabled: boolean;
    threshold_percent: number;
    window_secs: number;
    min_events: number;
  };
  brute_force: {
    enabled: boolean;
    threshold: number;
    window_secs: number;
  };
  mass_delete: {
    enabled: boolean;
    threshold: number;
    window_secs: number;
  };
  silent_service: {
    enabled: boolean;
    threshold_minutes: number;
    min_events_24h: number;
  };
  updated_at: string | null;
};

export type AnomalySettingsPatch = {
  volume_spike?: {
    enabled?: boolean | null;
    z_threshold?: number | null;
    baseline_minutes?: number | null;
    min_baseline_minutes?: number | null;
    min_rate?: number | null;
  };
  error_rate?: {
    enabled?: boolean | null;
    threshold_percent?: number | null;
    window_secs?: number | null;
    min_events?: number | null;
  };
  brute_force?: {
    enabled?: boolean | null;
    threshold?: number | null;
    window_secs?: number | null;
  };
  mass_delete?: {
    enabled?: boolean | null;
    threshold?: number | null;
    window_secs?: number | null;
  };
  silent_service?: {
    enabled?: boolean | null;
    threshold_minutes?: number | null;
    min_events_24h?: number | null;
  };
};

export type ApiKey = {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  scopes: Array<'ingest' | 'read' | 'stream' | 'viewer:issue' | 'config'>;
  expires_at: string | null;
  allowed_origins: Array<string>;
  rate_limit: number | null;
  project_id: string;
  revoked_at: string | null;
  last_used_at: string | null;
};

export type AuditEvent = {
  id: string;
  project_id: string;
  event_type:
    | 'http'
    | 'system.alert'
    | 'system.healthcheck.down'
    | 'system.healthcheck.up'
    | 'system.healthcheck.certificate_expiring'
    | 'system.access'
    | 'system.maintenance.started'
    | 'system.maintenance.ended';
  timestamp: string;
  path: string;
  method: string;
  identifier: string;
  service_name: string;
  environment: string;
  source: 'backend' | 'browser';
  status_code?: number;
  response_time?: number;
  user_email?: string;
  user_name?: string;
  user_roles?: Array<string>;
  user_type?: string;
  tenant_id?: string;
  ip?: string;
  user_agent?: string;
  request_id?: string;
  query_params?: Record<string, unknown>;
  path_params?: Record<string, unknown>;
  request_body?: Record<string, unknown>;
  response_body?: Record<string, unknown>;
  error_message?: string;
  session_id?: string;
};

export type AuditEventInput = {
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  identifier: string;
  service_name: string;
  environment: 'production' | 'staging' | 'development';
  status_code?: number | null;
  response_time?: number | null;
  user_email?: string | null;
  user_name?: string | null;
  user_roles?: Array<string> | null;
  user_type?: string | null;
  tenant_id?: string | null;
  ip?: string | null;
  user_agent?: string | null;
  request_id?: string | null;
  query_params?: Record<string, unknown> | null;
  path_params?: Record<string, unknown> | null;
  request_body?: Record<string, unknown> | null;
  response_body?: Record<string, unknown> | null;
  error_message?: string | null;
  session_id?: string | null;
  source?: 'backend' | 'browser' | null;
};

export type AuditListItem = {
  id: string;
  project_id: string;
  event_type:
    | 'http'
    | 'system.alert'
    | 'system.healthcheck.down'
    | 'system.healthcheck.up'
    | 'system.healthcheck.certificate_expiring'
    | 'system.access'
    | 'system.maintenance.started'
    | 'system.maintenance.ended';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  status_code: number | null;
  response_time: number | null;
  identifier: string;
  user_email: string | null;
  service_name: string;
  environment: 'production' | 'staging' | 'development';
  timestamp: string;
};

export type Channel = {
  id: string;
  project_id: string;
  type: 'webhook' | 'webpush' | 'slack' | 'discord' | 'teams' | 'email' | 'pagerduty' | 'ntfy';
  name: string | null;
  url: string;
  has_secret: boolean;
  settings: Record<string, unknown>;
  events: Array<'healthcheck' | 'alert'>;
  project_scope: 'project' | 'all';
  quiet_minutes: number;
  active: boolean;
  deactivated_reason: string | null;
  degraded: boolean;
  degraded_reason: string | null;
  degraded_since: string | null;
  created_at: string;
  updated_at: string;
  managed_by?: string;
};

export type ChannelCreate =
  | {
      project_id: string;
      type: 'webhook';
      url: string;
      secret?: string;
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'webpush';
      subscription: {
        endpoint: string;
        keys: {
          p256dh: string;
          auth: string;
        };
      };
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'slack';
      url: string;
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'discord';
      url: string;
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'teams';
      url: string;
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'email';
      smtp: {
        host: string;
        port?: number;
        security?: 'starttls' | 'tls' | 'none';
        username?: string;
        password?: string;
        reject_unauthorized?: boolean;
        ca?: string;
      };
      from: string;
      to: Array<string>;
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'pagerduty';
      routing_key: string;
      url?: string;
      severity?: 'critical' | 'error' | 'warning' | 'info';
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    }
  | {
      project_id: string;
      type: 'ntfy';
      topic: string;
      url?: string;
      token?: string;
      name?: string;
      events?: Array<'healthcheck' | 'alert'>;
      active?: boolean;
      project_scope?: 'project' | 'all';
      quiet_minutes?: number;
      managed_by?: string;
    };

export type ChannelUpdate = {
  active?: boolean;
  events?: Array<'healthcheck' | 'alert'>;
  name?: string | null;
  quiet_minutes?: number;
  managed_by?: string;
};

export type Check = {
  checked_at: string;
  status_code: number | null;
  response_ms: number;
  ok: boolean;
  error: string | null;
  assertions?: Array<{
    source:
      | 'status'
      | 'body'
      | 'json'
      | 'header'
      | 'response_time'
      | 'certificate_expiry_days'
      | 'dns_records';
    op:
      | 'equals'
      | 'not_equals'
      | 'contains'
      | 'not_contains'
      | 'matches'
      | 'lt'
      | 'lte'
      | 'gt'
      | 'gte'
      | 'exists'
      | 'not_exists';
    passed: boolean;
    received: string | null;
    path?: string;
    value?: string | number | boolean | null;
  }>;
  certificate?: {
    valid_from: string;
    valid_to: string;
    issuer: string;
    subject: string;
    names: Array<string>;
  };
  dns_records?: Array<string>;
  heartbeat?: 'beat' | 'missed';
  in_maintenance?: true;
};

export type DerivedSession = {
  project_id: string;
  identifier: string;
  service_name: string;
  session_start: string;
  session_end: string;
  duration_seconds: number;
  event_count: number;
};

export type ErrorDetail = {
  path: string;
  message: string;
};

export type ExplicitSession = {
  session_id: string;
  identifier: string;
  service_name: string;
  session_start: string;
  session_end: string;
  duration_seconds: number;
  event_count: number;
  events: Array<{
    id: string;
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    path: string;
    status_code: number | null;
    timestamp: string;
  }>;
};

export type Incident = {
  id: string;
  project_id: string;
  title: string;
  status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
  impact: 'none' | 'minor' | 'major' | 'critical';
  monitor_ids: Array<string>;
  auto:
    | {
        monitor_id: string;
        down_event_id: string;
      }
    | null;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  updates: Array<{
    id: string;
    status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
    message: string;
    impact: 'none' | 'minor' | 'major' | 'critical' | null;
    at: string;
  }>;
};

export type IncidentCreate = {
  project_id: string;
  title: string;
  status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
  message: string;
  impact?: 'none' | 'minor' | 'major' | 'critical';
  monitor_ids?: Array<string>;
};

export type IncidentUpdate = {
  status: 'investigating' | 'identified' | 'monitoring' | 'resolved';
  message: string;
  impact?: 'none' | 'minor' | 'major' | 'critical';
};

export type Maintenance = {
  id: string;
  project_id: string;
  title: string;
  description: string | null;
  monitor_ids: 'all' | Array<string>;
  schedule:
    | {
        kind: 'once';
        starts_at: string;
        ends_at: string;
      }
    | {
        kind: 'recurring';
        rrule: string;
        starts_at: string;
        duration_minutes: number;
        timezone: string;
      };
  open:
    | {
        start: string;
        end: string;
      }
    | null;
  next: Array<{
    start: string;
    end: string;
  }>;
  created_at: string;
  updated_at: string;
  managed_by?: string;
};

export type MaintenanceCreate = {
  project_id: string;
  title: string;
  monitor_ids: 'all' | Array<string>;
  starts_at: string;
  description?: string | null;
  ends_at?: string;
  rrule?: string;
  duration_minutes?: number;
  timezone?: string;
  managed_by?: string;
};

export type MaintenanceUpdate = {
  title?: string;
  description?: string | null;
  monitor_ids?: 'all' | Array<string>;
  starts_at?: string;
  ends_at?: string;
  rrule?: string;
  duration_minutes?: number;
  timezone?: string;
  managed_by?: string;
};

export type MaskingRules = {
  project_id: string;
  keys: Array<string>;
  patterns: Array<string>;
  scan_limit_chars: number | null;
  updated_at: string | null;
};

export type MaskingRulesUpdate = {
  keys: Array<string>;
  patterns: Array<string>;
};

export type Monitor = {
  id: string;
  project_id: string;
  name: string;
  type: 'http' | 'tcp' | 'dns' | 'heartbeat';
  url: string;
  interval_seconds: number;
  timeout_seconds: number;
  expected_status: number;
  enabled: boolean;
  status: 'UP' | 'DOWN' | 'PENDING';
  status_since: string | null;
  last_checked_at: string | null;
  last_status_code: number | null;
  last_response_ms: number | null;
  last_error: string | null;
  last_certificate:
    | {
        valid_from: string;
        valid_to: string;
        issuer: string;
        subject: string;
        names: Array<string>;
      }
    | null;
  created_at: string;
  updated_at: string;
  uptime_24h: number | null;
  uptime_7d: number | null;
  uptime_30d: number | null;
  uptime_90d: number | null;
  avg_response_ms_24h: number | null;
  avg_response_ms_7d: number | null;
  avg_response_ms_30d: number | null;
  avg_response_ms_90d: number | null;
  in_maintenance: boolean;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string>;
  body?: string;
  content_type?: string;
  auth?:
    | {
        type: 'basic';
        username: string;
        password: string;
      }
    | {
        type: 'bearer';
        token: string;
      };
  max_redirects?: number;
  ignore_tls_errors?: boolean;
  accepted_statuses?: Array<string>;
  tls?: boolean;
  hostname?: string;
  record_type?: 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'NS';
  resolver?: string;
  grace_seconds?: number;
  assertions?: Array<{
    source:
      | 'status'
      | 'body'
      | 'json'
      | 'header'
      | 'response_time'
      | 'certificate_expiry_days'
      | 'dns_records';
    op:
      | 'equals'
      | 'not_equals'
      | 'contains'
      | 'not_contains'
      | 'matches'
      | 'lt'
      | 'lte'
      | 'gt'
      | 'gte'
      | 'exists'
      | 'not_exists';
    path?: string;
    value?: string | number | boolean | null;
  }>;
  down_after?: number;
  up_after?: number;
  public_badges?: boolean;
  retry_interval_seconds?: number;
  managed_by?: string;
  cert_expiry_warn_days?: Array<number>;
};

export type MonitorCreate = {
  project_id: string;
  name: string;
  url?: string;
  interval_seconds?: number;
  timeout_seconds?: number;
  expected_status?: number;
  enabled?: boolean;
  type?: 'http' | 'tcp' | 'dns' | 'heartbeat';
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  headers?: Record<string, string>;
  body?: string;
  content_type?: string;
  auth?:
    | {
        type: 'basic';
        username: string;
        password: string;
      }
    | {
        type: 'bearer';
        token: string;
      };
  max_redirects?: number;
  ignore_tls_errors?: boolean;
  accepted_statuses?: Array<string>;
  tls?: boolean;
  hostname?: string;
  record_type?: 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'NS';
  resolver?: string;
  grace_seconds?: number;
  assertions?: Array<{
    source:
      | 'status'
      | 'body'
      | 'json'
      | 'header'
      | 'response_time'
      | 'certificate_expiry_days'
      | 'dns_records';
    op:
      | 'equals'
      | 'not_equals'
      | 'contains'
      | 'not_contains'
      | 'matches'
      | 'lt'
      | 'lte'
      | 'gt'
      | 'gte'
      | 'exists'
      | 'not_exists';
    path?: string;
    value?: string | number | boolean | null;
  }>;
  down_after?: number;
  up_after?: number;
  public_badges?: boolean;
  retry_interval_seconds?: number;
  managed_by?: string;
  cert_expiry_warn_days?: Array<number>;
};

export type MonitorUpdate = {
  name?: string;
  url?: string;
  interval_seconds?: number;
  timeout_seconds?: number;
  expected_status?: number;
  enabled?: boolean;
  type?: 'http' | 'tcp' | 'dns' | 'heartbeat';
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | null;
  headers?: Record<string, string> | null;
  body?: string | null;
  content_type?: string | null;
  auth?:
    | {
        type: 'basic';
        username: string;
        password: string;
      }
    | {
        type: 'bearer';
        token: string;
      }
    | null;
  max_redirects?: number | null;
  ignore_tls_errors?: boolean | null;
  accepted_statuses?: Array<string> | null;
  tls?: boolean | null;
  hostname?: string | null;
  record_type?: 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'NS' | null;
  resolver?: string | null;
  grace_seconds?: number | null;
  assertions?:
    | Array<{
        source:
          | 'status'
          | 'body'
          | 'json'
          | 'header'
          | 'response_time'
          | 'certificate_expiry_days'
          | 'dns_records';
        op:
          | 'equals'
          | 'not_equals'
          | 'contains'
          | 'not_contains'
          | 'matches'
          | 'lt'
          | 'lte'
          | 'gt'
          | 'gte'
          | 'exists'
          | 'not_exists';
        path?: string;
        value?: string | number | boolean | null;
      }>
    | null;
  down_after?: number | null;
  up_after?: number | null;
  public_badges?: boolean | null;
  retry_interval_seconds?: number | null;
  managed_by?: string | null;
  cert_expiry_warn_days?: Array<number> | null;
};

export type Pagination = {
  page: number;
  limit: number;
  totalItems: number;
  totalPage: number;
};

export type Project = {
  id: string;
  name: string;
  created_at: string;
};

export type Statistics = {
  total: number;
  errors_4xx: number;
  errors_5xx: number;
  avg_response_time: number | null;
  p95_response_time: number | null;
  active_services: number;
  last_event_at: string | null;
  by_service: Array<{
    service_name: string;
    total: number;
    errors_4xx: number;
    errors_5xx: number;
    avg_response_time: number | null;
    p95_response_time: number | null;
    last_event_at: string | null;
  }>;
  by_status_class: {
    '1xx'?: number;
    '2xx'?: number;
    '3xx'?: number;
    '4xx'?: number;
    '5xx'?: number;
  };
  by_method: Record<string, number>;
  timeline: Array<{
    bucket: string;
    total: number;
    errors_4xx: number;
    errors_5xx: number;
    avg_response_time: number | null;
  }>;
};

export type StatusPage = {
  id: string;
  project_id: string;
  slug: string;
  title: string;
  description: string | null;
  groups: Array<{
    name: string;
    monitor_ids: Array<string>;
  }>;
  published: boolean;
  show_uptime_days: number;
  custom_domain: string | null;
  auto_incidents: boolean;
  created_at: string;
  updated_at: string;
  managed_by?: string;
};

export type StatusPageCreate = {
  project_id: string;
  slug: string;
  title: string;
  description?: string | null;
  groups?: Array<{
    name: string;
    monitor_ids: Array<string>;
  }>;
  published?: boolean;
  show_uptime_days?: number;
  custom_domain?: string | null;
  auto_incidents?: boolean;
  managed_by?: string;
};

export type StatusPageUpdate = {
  slug?: string;
  title?: string;
  description?: string | null;
  groups?: Array<{
    name: string;
    monitor_ids: Array<string>;
  }>;
  published?: boolean;
  show_uptime_days?: number;
  custom_domain?: string | null;
  auto_incidents?: boolean;
  managed_by?: string;
};

export type User = {
  id: string;
  email: string;
  role: 'admin' | 'member' | 'auditor';
  project_ids: Array<string>;
  disabled: boolean;
  tokens_valid_after: string | null;
  created_at: string;
};

/** Every operation: its path parameters, query, body, and the body of each of its answers. */
export interface Operations {
  /** Liveness */
  'GET /healthz': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        status: 'ok';
      };
    };
  };
  /** Readiness */
  'GET /readyz': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        status: 'ready' | 'not_ready';
        bootstrap: {
          ok: boolean;
        };
        log: {
          ok: boolean;
          head: string | null;
          reason?: string;
          since?: string;
        };
        read_models: {
          [key: string]: {
            ok: boolean;
            lag_ms: number;
            position: string | null;
            projector: boolean;
          };
        };
      };
      503:
        | {
            status: 'ready' | 'not_ready';
            bootstrap: {
              ok: boolean;
            };
            log: {
              ok: boolean;
              head: string | null;
              reason?: string;
              since?: string;
            };
            read_models: {
              [key: string]: {
                ok: boolean;
                lag_ms: number;
                position: string | null;
                projector: boolean;
              };
            };
          }
        | {
            error: {
              code: 'log_unavailable' | 'outcome_unknown' | 'shutting_down' | 'not_yet_visible';
              message: string;
              details: Array<ErrorDetail>;
            };
          };
    };
  };
  /** This description */
  'GET /v1/openapi.json': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        openapi: '3.1.0';
        info: Record<string, unknown>;
        jsonSchemaDialect: string;
        tags: Array<unknown>;
        paths: Record<string, unknown>;
        components: Record<string, unknown>;
      };
    };
  };
  /** The configuration file's schema */
  'GET /v1/config.schema.json': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        $schema: string;
        $id: string;
        title: string;
        description: string;
        type: 'object';
        properties: Record<string, unknown>;
        required: Array<string>;
        additionalProperties: boolean;
      };
    };
  };
  /** Record an applied configuration file */
  'POST /v1/config/applies': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      file: string;
      changes: Array<{
        action: 'create' | 'change' | 'replace' | 'delete';
        kind: string;
        project: string;
        name: string;
        fields: Array<string>;
      }>;
    };
    answers: {
      201: {
        id: string;
        request_id: string;
      };
    };
  };
  /** Ingest an event (SPEC 4.1) */
  'POST /v1/audit': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: AuditEventInput;
    answers: {
      202: {
        id: string;
      };
    };
  };
  /** List events (SPEC 4.2) */
  'GET /v1/audit': {
    params: Record<string, never>;
    query: {
      project_id?: string;
      service_name?: string;
      method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
      status_code?: number;
      environment?: 'production' | 'staging' | 'development';
      identifier?: string;
      start_date?: string;
      end_date?: string;
      event_type?:
        | 'http'
        | 'system.alert'
        | 'system.healthcheck.down'
        | 'system.healthcheck.up'
        | 'system.healthcheck.certificate_expiring'
        | 'system.access'
        | 'system.maintenance.started'
        | 'system.maintenance.ended';
      tenant_id?: string;
      path?: string;
      q?: string;
      page?: number;
      limit?: number;
      sort_by?:
        | 'timestamp'
        | 'status_code'
        | 'response_time'
        | 'path'
        | 'method'
        | 'service_name'
        | 'identifier'
        | 'environment';
      sort_order?: 'asc' | 'desc';
    };
    body: undefined;
    answers: {
      200: {
        data: Array<AuditListItem>;
        pagination: Pagination;
      };
    };
  };
  /** Ingest a batch of events */
  'POST /v1/audit/batch': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: Array<{
      path: string;
      method: 'GET' | 'POST' | 'PUT' | 'DELETE';
      identifier: string;
      service_name: string;
      environment: 'production' | 'staging' | 'development';
      status_code?: number | null;
      response_time?: number | null;
      user_email?: string | null;
      user_name?: string | null;
      user_roles?: Array<string> | null;
      user_type?: string | null;
      tenant_id?: string | null;
      ip?: string | null;
      user_agent?: string | null;
      request_id?: string | null;
      query_params?: Record<string, unknown> | null;
      path_params?: Record<string, unknown> | null;
      request_body?: Record<string, unknown> | null;
      response_body?: Record<string, unknown> | null;
      error_message?: string | null;
      session_id?: string | null;
      source?: 'backend' | 'browser' | null;
      idempotency_key?: string;
    }>;
    answers: {
      202: {
        accepted: Array<{
          index: number;
          id: string;
          replayed?: true;
        }>;
        rejected: Array<{
          index: number;
          details: Array<ErrorDetail>;
        }>;
      };
    };
  };
  /** OTLP/HTTP traces */
  'POST /v1/otlp/v1/traces': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      resourceSpans?: Array<Record<string, unknown>>;
    };
    answers: {
      200: {
        partialSuccess?: {
          rejectedSpans: string;
          errorMessage: string;
        };
      };
    };
  };
  /** OTLP settings */
  'GET /v1/projects/:id/otlp': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        project_id: string;
        updated_at: string | null;
        identifier_attribute: string | null;
        default_environment: 'production' | 'staging' | 'development';
        unsupported_methods: 'skip' | 'nearest';
      };
    };
  };
  /** Replace OTLP settings */
  'PUT /v1/projects/:id/otlp': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      identifier_attribute: string | null;
      default_environment: 'production' | 'staging' | 'development';
      unsupported_methods: 'skip' | 'nearest';
    };
    answers: {
      200: {
        project_id: string;
        updated_at: string | null;
        identifier_attribute: string | null;
        default_environment: 'production' | 'staging' | 'development';
        unsupported_methods: 'skip' | 'nearest';
      };
    };
  };
  /** Statistics (SPEC 4.4) */
  'GET /v1/audit/stats': {
    params: Record<string, never>;
    query: {
      project_id?: string;
      service_name?: string;
      start_date?: string;
      end_date?: string;
      tenant_id?: string;
      path?: string;
      environment?: 'production' | 'staging' | 'development';
      interval?: 'minute' | 'hour' | 'day';
    };
    body: undefined;
    answers: {
      200: Statistics;
    };
  };
  /** Export events (SPEC 4.8) */
  'GET /v1/audit/export': {
    params: Record<string, never>;
    query: {
      project_id?: string;
      service_name?: string;
      method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
      status_code?: number;
      environment?: 'production' | 'staging' | 'development';
      identifier?: string;
      start_date?: string;
      end_date?: string;
      event_type?:
        | 'http'
        | 'system.alert'
        | 'system.healthcheck.down'
        | 'system.healthcheck.up'
        | 'system.healthcheck.certificate_expiring'
        | 'system.access'
        | 'system.maintenance.started'
        | 'system.maintenance.ended';
      tenant_id?: string;
      path?: string;
      q?: string;
      format?: 'csv' | 'json';
    };
    body: undefined;
    answers: {
      200: string;
    };
  };
  /** Anomaly alerts (SPEC 4.9) */
  'GET /v1/audit/anomalies': {
    params: Record<string, never>;
    query: {
      page?: number;
      limit?: number;
      project_id?: string;
      service_name?: string;
      start_date?: string;
      end_date?: string;
      rule?: 'volume_spike' | 'error_rate' | 'brute_force' | 'mass_delete' | 'silent_service';
    };
    body: undefined;
    answers: {
      200: {
        data: Array<{
          id: string;
          project_id: string;
          event_type:
            | 'http'
            | 'system.alert'
            | 'system.healthcheck.down'
            | 'system.healthcheck.up'
            | 'system.healthcheck.certificate_expiring'
            | 'system.access'
            | 'system.maintenance.started'
            | 'system.maintenance.ended';
          method: 'GET' | 'POST' | 'PUT' | 'DELETE';
          path: string;
          status_code: number | null;
          response_time: number | null;
          identifier: string;
          user_email: string | null;
          service_name: string;
          environment: 'production' | 'staging' | 'development';
          timestamp: string;
          request_body: Record<string, unknown> | null;
          open: boolean;
        }>;
        pagination: Pagination;
      };
    };
  };
  /** Orphan browser events (SPEC 4.5) */
  'GET /v1/audit/orphans': {
    params: Record<string, never>;
    query: {
      page?: number;
      limit?: number;
      project_id?: string;
      service_name?: string;
      start_date?: string;
      end_date?: string;
    };
    body: undefined;
    answers: {
      200: {
        data: Array<{
          id: string;
          project_id: string;
          event_type:
            | 'http'
            | 'system.alert'
            | 'system.healthcheck.down'
            | 'system.healthcheck.up'
            | 'system.healthcheck.certificate_expiring'
            | 'system.access'
            | 'system.maintenance.started'
            | 'system.maintenance.ended';
          method: 'GET' | 'POST' | 'PUT' | 'DELETE';
          path: string;
          status_code: number | null;
          response_time: number | null;
          identifier: string;
          user_email: string | null;
          service_name: string;
          environment: 'production' | 'staging' | 'development';
          timestamp: string;
          request_id: string;
        }>;
        pagination: Pagination;
      };
    };
  };
  /** Derived sessions (SPEC 4.6) */
  'GET /v1/audit/sessions': {
    params: Record<string, never>;
    query: {
      page?: number;
      limit?: number;
      project_id?: string;
      service_name?: string;
      start_date?: string;
      end_date?: string;
      tenant_id?: string;
      path?: string;
      identifier?: string;
    };
    body: undefined;
    answers: {
      200: Array<DerivedSession>;
    };
  };
  /** An explicit session (SPEC 4.7) */
  'GET /v1/audit/sessions/:session_id': {
    params: {
      session_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: ExplicitSession;
    };
  };
  /** An event (SPEC 4.3) */
  'GET /v1/audit/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: AuditEvent;
    };
  };
  /** Log in */
  'POST /v1/auth/login': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      email: string;
      password: string;
      cookie?: boolean;
    };
    answers: {
      200:
        | {
            token: string;
            expires_at: string;
            session_id?: string;
          }
        | {
            second_factor_required: true;
            challenge_token: string;
            expires_at: string;
            methods: Array<'totp' | 'recovery_code' | 'passkey'>;
          }
        | {
            enrolment_required: true;
            enrolment_token: string;
            expires_at: string;
          };
    };
  };
  /** The caller */
  'GET /v1/auth/me': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: User;
    };
  };
  /** Create a user */
  'POST /v1/users': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      email: string;
      password: string;
      role: 'admin' | 'member' | 'auditor';
      project_ids: Array<string>;
    };
    answers: {
      201: User;
    };
  };
  /** List users */
  'GET /v1/users': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<User>;
    };
  };
  /** Change a user */
  'PUT /v1/users/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      role?: 'admin' | 'member' | 'auditor';
      project_ids?: Array<string>;
      disabled?: boolean;
    };
    answers: {
      200: User;
    };
  };
  /** Disable a user */
  'DELETE /v1/users/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Set a password */
  'POST /v1/users/:id/password': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      password: string;
      current_password?: string;
    };
    answers: {
      204: undefined;
    };
  };
  /** Create a project */
  'POST /v1/projects': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      name: string;
    };
    answers: {
      201: Project;
    };
  };
  /** List projects */
  'GET /v1/projects': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<Project>;
    };
  };
  /** A project */
  'GET /v1/projects/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Project;
    };
  };
  /** Issue an API key */
  'POST /v1/projects/:id/api-keys': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      scopes?: Array<'ingest' | 'read' | 'stream' | 'viewer:issue' | 'config'>;
      expires_at?: string | null;
      allowed_origins?: Array<string>;
      rate_limit?: number | null;
    };
    answers: {
      201: {
        id: string;
        name: string;
        prefix: string;
        created_at: string;
        scopes: Array<'ingest' | 'read' | 'stream' | 'viewer:issue' | 'config'>;
        expires_at: string | null;
        allowed_origins: Array<string>;
        rate_limit: number | null;
        key: string;
      };
    };
  };
  /** List API keys */
  'GET /v1/projects/:id/api-keys': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<ApiKey>;
    };
  };
  /** Restrict an API key */
  'PUT /v1/projects/:id/api-keys/:keyId': {
    params: {
      id: string;
      keyId: string;
    };
    query: Record<string, never>;
    body: {
      scopes?: Array<'ingest' | 'read' | 'stream' | 'viewer:issue' | 'config'>;
      expires_at?: string | null;
      allowed_origins?: Array<string>;
      rate_limit?: number | null;
    };
    answers: {
      200: ApiKey;
    };
  };
  /** Revoke an API key */
  'DELETE /v1/projects/:id/api-keys/:keyId': {
    params: {
      id: string;
      keyId: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Finish a sign-in with a second factor */
  'POST /v1/auth/second-factor': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      challenge_token: string;
      totp_code?: string;
      recovery_code?: string;
    };
    answers: {
      200: {
        token: string;
        expires_at: string;
        session_id?: string;
      };
    };
  };
  /** Start a passkey sign-in */
  'POST /v1/auth/passkey/options': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      challenge_token?: string;
      cookie?: boolean;
    };
    answers: {
      200: {
        options: Record<string, unknown>;
        passkey_token: string;
        expires_at: string;
      };
    };
  };
  /** Sign in with a passkey */
  'POST /v1/auth/passkey': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      passkey_token: string;
      response: {
        id: string;
        rawId: string;
        type: 'public-key';
        response: Record<string, unknown>;
        clientExtensionResults?: Record<string, unknown>;
        authenticatorAttachment?: string;
      };
    };
    answers: {
      200: {
        token: string;
        expires_at: string;
        session_id?: string;
      };
    };
  };
  /** The caller's second factors */
  'GET /v1/auth/factors': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        totp_enrolled_at: string | null;
        recovery_codes_left: number;
        recovery_codes_generated_at: string | null;
        passkeys: Array<{
          id: string;
          name: string;
          created_at: string;
          last_used_at: string | null;
        }>;
        required: boolean;
      };
    };
  };
  /** Offer an authenticator app a secret */
  'POST /v1/auth/factors/totp': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        secret: string;
        otpauth_uri: string;
        qr_code: string;
        setup_token: string;
        expires_at: string;
      };
    };
  };
  /** Remove the authenticator app */
  'DELETE /v1/auth/factors/totp': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Enrol the authenticator app */
  'POST /v1/auth/factors/totp/confirm': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      setup_token: string;
      code: string;
    };
    answers: {
      200: {
        recovery_codes: Array<string> | null;
        sign_in:
          | {
              token: string;
              expires_at: string;
              session_id?: string;
            }
          | null;
      };
    };
  };
  /** New recovery codes */
  'POST /v1/auth/factors/recovery-codes': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        recovery_codes: Array<string>;
      };
    };
  };
  /** Start registering a passkey */
  'POST /v1/auth/factors/passkeys/options': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        options: Record<string, unknown>;
        registration_token: string;
        expires_at: string;
      };
    };
  };
  /** Register a passkey */
  'POST /v1/auth/factors/passkeys': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      registration_token: string;
      name: string;
      response: {
        id: string;
        rawId: string;
        type: 'public-key';
        response: Record<string, unknown>;
        clientExtensionResults?: Record<string, unknown>;
        authenticatorAttachment?: string;
      };
    };
    answers: {
      201: {
        recovery_codes: Array<string> | null;
        sign_in:
          | {
              token: string;
              expires_at: string;
              session_id?: string;
            }
          | null;
        passkey: {
          id: string;
          name: string;
          created_at: string;
          last_used_at: string | null;
        };
      };
    };
  };
  /** Rename a passkey */
  'PUT /v1/auth/factors/passkeys/:passkeyId': {
    params: {
      passkeyId: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
    };
    answers: {
      200: {
        id: string;
        name: string;
        created_at: string;
        last_used_at: string | null;
      };
    };
  };
  /** Remove a passkey */
  'DELETE /v1/auth/factors/passkeys/:passkeyId': {
    params: {
      passkeyId: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** The second-factor policy */
  'GET /v1/settings/second-factor': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        require: 'none' | 'admins' | 'everyone';
        updated_at: string | null;
      };
    };
  };
  /** Require a second factor */
  'PUT /v1/settings/second-factor': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: {
      require: 'none' | 'admins' | 'everyone';
    };
    answers: {
      200: {
        require: 'none' | 'admins' | 'everyone';
        updated_at: string | null;
      };
    };
  };
  /** Reset a user's second factors */
  'DELETE /v1/users/:id/factors': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Renew a dashboard session's token */
  'POST /v1/auth/refresh': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        token: string;
        expires_at: string;
        session_id?: string;
      };
    };
  };
  /** Sign out */
  'POST /v1/auth/logout': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** My sessions */
  'GET /v1/auth/sessions': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<{
        id: string;
        kind: 'cookie' | 'token';
        method: string;
        device: string;
        address: string;
        created_at: string;
        last_used_at: string;
        expires_at: string;
        current: boolean;
      }>;
    };
  };
  /** End all my other sessions */
  'DELETE /v1/auth/sessions': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        ended: number;
      };
    };
  };
  /** End one of my sessions */
  'DELETE /v1/auth/sessions/:sessionId': {
    params: {
      sessionId: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** A user's sessions */
  'GET /v1/users/:id/sessions': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<{
        id: string;
        kind: 'cookie' | 'token';
        method: string;
        device: string;
        address: string;
        created_at: string;
        last_used_at: string;
        expires_at: string;
        current: boolean;
      }>;
    };
  };
  /** End all of a user's sessions */
  'DELETE /v1/users/:id/sessions': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        ended: number;
      };
    };
  };
  /** Single sign-on providers */
  'GET /v1/auth/oidc/providers': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<{
        id: string;
        name: string;
      }>;
    };
  };
  /** Sign in through a provider */
  'GET /v1/auth/oidc/:provider/start': {
    params: {
      provider: string;
    };
    query: {
      next?: string;
    };
    body: undefined;
    answers: {
      302: undefined;
    };
  };
  /** The provider's redirect back */
  'GET /v1/auth/oidc/:provider/callback': {
    params: {
      provider: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      302: undefined;
    };
  };
  /** Configured providers */
  'GET /v1/settings/sso': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<{
        id: string;
        source: 'environment' | 'settings';
        name: string;
        issuer: string;
        client_id: string;
        scopes: Array<string>;
        allowed_domains: Array<string>;
        jit: boolean;
        claim: string | null;
        mappings: Array<{
          value: string;
          role: 'admin' | 'member' | 'auditor';
          project_ids: Array<string>;
        }>;
      }>;
    };
  };
  /** Create or replace a provider */
  'PUT /v1/settings/sso/:provider': {
    params: {
      provider: string;
    };
    query: Record<string, never>;
    body: {
      name: string;
      issuer: string;
      client_id: string;
      scopes: Array<string>;
      allowed_domains: Array<string>;
      jit: boolean;
      claim: string | null;
      mappings: Array<{
        value: string;
        role: 'admin' | 'member' | 'auditor';
        project_ids: Array<string>;
      }>;
      client_secret?: string;
    };
    answers: {
      200: {
        id: string;
        source: 'environment' | 'settings';
        name: string;
        issuer: string;
        client_id: string;
        scopes: Array<string>;
        allowed_domains: Array<string>;
        jit: boolean;
        claim: string | null;
        mappings: Array<{
          value: string;
          role: 'admin' | 'member' | 'auditor';
          project_ids: Array<string>;
        }>;
      };
    };
  };
  /** Remove a provider */
  'DELETE /v1/settings/sso/:provider': {
    params: {
      provider: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Issue a viewer token */
  'POST /v1/projects/:id/viewer-tokens': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      tenant_id: string;
      identifier?: string;
      expires_in?: number;
      fields?: Array<
        | 'user_email'
        | 'user_name'
        | 'user_roles'
        | 'user_type'
        | 'ip'
        | 'user_agent'
        | 'query_params'
        | 'path_params'
        | 'request_body'
        | 'response_body'
        | 'error_message'
        | 'request_id'
        | 'session_id'
        | 'response_time'>;
    };
    answers: {
      201: {
        token: string;
        expires_at: string;
        tenant_id: string;
        identifier: string | null;
        hidden_fields: Array<string>;
        allowed_origins: Array<string>;
      };
    };
  };
  /** The audit-log viewer, alone on a page */
  'GET /embed': {
    params: Record<string, never>;
    query: {
      token?: string;
      page_size?: string;
    };
    body: undefined;
    answers: {
      200: string;
    };
  };
  /** The embed page's script, stylesheet and the viewer */
  'GET /embed/:file': {
    params: {
      file: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** Anomaly settings */
  'GET /v1/projects/:id/anomaly-settings': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: AnomalySettings;
    };
  };
  /** Change anomaly settings */
  'PUT /v1/projects/:id/anomaly-settings': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: AnomalySettingsPatch;
    answers: {
      200: AnomalySettings;
    };
  };
  /** Masking rules */
  'GET /v1/projects/:id/masking': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: MaskingRules;
    };
  };
  /** Replace masking rules */
  'PUT /v1/projects/:id/masking': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: MaskingRulesUpdate;
    answers: {
      200: MaskingRules;
    };
  };
  /** Retention */
  'GET /v1/projects/:id/retention': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        project_id: string;
        retention_days: number | null;
        updated_at: string | null;
        last_applied_at: string | null;
        last_cutoff: string | null;
        removed_total: number;
        erased_total: number;
      };
    };
  };
  /** Set retention */
  'PUT /v1/projects/:id/retention': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      retention_days: number | null;
    };
    answers: {
      200: {
        project_id: string;
        retention_days: number | null;
        updated_at: string | null;
        last_applied_at: string | null;
        last_cutoff: string | null;
        removed_total: number;
        erased_total: number;
      };
    };
  };
  /** Ask for an identifier to be erased */
  'POST /v1/projects/:id/erasures': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: {
      identifier: string;
    };
    answers: {
      202: {
        id: string;
        project_id: string;
        identifier_sha256: string;
        status: 'pending' | 'done';
        requested_at: string;
        through_position: string;
        fields: Array<string>;
        erased: number | null;
        erased_at: string | null;
        identifier?: string;
      };
    };
  };
  /** Erasure requests */
  'GET /v1/projects/:id/erasures': {
    params: {
      id: string;
    };
    query: {
      page?: number;
      limit?: number;
    };
    body: undefined;
    answers: {
      200: {
        data: Array<{
          id: string;
          project_id: string;
          identifier_sha256: string;
          status: 'pending' | 'done';
          requested_at: string;
          through_position: string;
          fields: Array<string>;
          erased: number | null;
          erased_at: string | null;
          identifier?: string;
        }>;
        pagination: Pagination;
      };
    };
  };
  /** An erasure request */
  'GET /v1/projects/:id/erasures/:erasureId': {
    params: {
      id: string;
      erasureId: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        id: string;
        project_id: string;
        identifier_sha256: string;
        status: 'pending' | 'done';
        requested_at: string;
        through_position: string;
        fields: Array<string>;
        erased: number | null;
        erased_at: string | null;
        identifier?: string;
      };
    };
  };
  /** Log sinks */
  'GET /v1/projects/:id/sinks': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Array<{
        id: string;
        project_id: string;
        type: 'http' | 'splunk_hec' | 'elastic' | 'datadog' | 'syslog' | 'otlp_logs';
        name: string | null;
        active: boolean;
        filter: {
          event_type?: Array<
            | 'http'
            | 'system.alert'
            | 'system.healthcheck.down'
            | 'system.healthcheck.up'
            | 'system.healthcheck.certificate_expiring'
            | 'system.access'
            | 'system.maintenance.started'
            | 'system.maintenance.ended'>;
          service_name?: Array<string>;
        };
        settings: Record<string, unknown>;
        state: 'active' | 'degraded' | 'paused';
        degraded_reason: string | null;
        degraded_since: string | null;
        position: string | null;
        lag_records: number;
        lag_exact: boolean;
        lag_seconds: number;
        forwarded_total: number;
        last_forwarded_at: string | null;
        failures: number;
        last_error: string | null;
        last_error_at: string | null;
        created_at: string;
        updated_at: string;
      }>;
    };
  };
  /** Create a log sink */
  'POST /v1/projects/:id/sinks': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body:
      | {
          type: 'http';
          url: string;
          secret?: string;
          name?: string;
          active?: boolean;
          filter?: {
            event_type?: Array<
              | 'http'
              | 'system.alert'
              | 'system.healthcheck.down'
              | 'system.healthcheck.up'
              | 'system.healthcheck.certificate_expiring'
              | 'system.access'
              | 'system.maintenance.started'
              | 'system.maintenance.ended'>;
            service_name?: Array<string>;
          };
        }
      | {
          type: 'splunk_hec';
          url: string;
          token: string;
          index?: string;
          source?: string;
          sourcetype?: string;
          name?: string;
          active?: boolean;
          filter?: {
            event_type?: Array<
              | 'http'
              | 'system.alert'
              | 'system.healthcheck.down'
              | 'system.healthcheck.up'
              | 'system.healthcheck.certificate_expiring'
              | 'system.access'
              | 'system.maintenance.started'
              | 'system.maintenance.ended'>;
            service_name?: Array<string>;
          };
        }
      | {
          type: 'elastic';
          url: string;
          index: string;
          api_key?: string;
          username?: string;
          password?: string;
          name?: string;
          active?: boolean;
          filter?: {
            event_type?: Array<
              | 'http'
              | 'system.alert'
              | 'system.healthcheck.down'
              | 'system.healthcheck.up'
              | 'system.healthcheck.certificate_expiring'
              | 'system.access'
              | 'system.maintenance.started'
              | 'system.maintenance.ended'>;
            service_name?: Array<string>;
          };
        }
      | {
          type: 'datadog';
          api_key: string;
          url?: string;
          service?: string;
          tags?: Array<string>;
          name?: string;
          active?: boolean;
          filter?: {
            event_type?: Array<
              | 'http'
              | 'system.alert'
              | 'system.healthcheck.down'
              | 'system.healthcheck.up'
              | 'system.healthcheck.certificate_expiring'
              | 'system.access'
              | 'system.maintenance.started'
              | 'system.maintenance.ended'>;
            service_name?: Array<string>;
          };
        }
      | {
          type: 'syslog';
          host: string;
          port?: number;
          tls?: boolean;
          ca?: string;
          reject_unauthorized?: boolean;
          app_name?: string;
          name?: string;
          active?: boolean;
          filter?: {
            event_type?: Array<
              | 'http'
              | 'system.alert'
              | 'system.healthcheck.down'
              | 'system.healthcheck.up'
              | 'system.healthcheck.certificate_expiring'
              | 'system.access'
              | 'system.maintenance.started'
              | 'system.maintenance.ended'>;
            service_name?: Array<string>;
          };
        }
      | {
          type: 'otlp_logs';
          url: string;
          headers?: Record<string, string>;
          name?: string;
          active?: boolean;
          filter?: {
            event_type?: Array<
              | 'http'
              | 'system.alert'
              | 'system.healthcheck.down'
              | 'system.healthcheck.up'
              | 'system.healthcheck.certificate_expiring'
              | 'system.access'
              | 'system.maintenance.started'
              | 'system.maintenance.ended'>;
            service_name?: Array<string>;
          };
        };
    answers: {
      201: {
        id: string;
        project_id: string;
        type: 'http' | 'splunk_hec' | 'elastic' | 'datadog' | 'syslog' | 'otlp_logs';
        name: string | null;
        active: boolean;
        filter: {
          event_type?: Array<
            | 'http'
            | 'system.alert'
            | 'system.healthcheck.down'
            | 'system.healthcheck.up'
            | 'system.healthcheck.certificate_expiring'
            | 'system.access'
            | 'system.maintenance.started'
            | 'system.maintenance.ended'>;
          service_name?: Array<string>;
        };
        settings: Record<string, unknown>;
        state: 'active' | 'degraded' | 'paused';
        degraded_reason: string | null;
        degraded_since: string | null;
        position: string | null;
        lag_records: number;
        lag_exact: boolean;
        lag_seconds: number;
        forwarded_total: number;
        last_forwarded_at: string | null;
        failures: number;
        last_error: string | null;
        last_error_at: string | null;
        created_at: string;
        updated_at: string;
      };
    };
  };
  /** A log sink */
  'GET /v1/projects/:id/sinks/:sinkId': {
    params: {
      id: string;
      sinkId: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        id: string;
        project_id: string;
        type: 'http' | 'splunk_hec' | 'elastic' | 'datadog' | 'syslog' | 'otlp_logs';
        name: string | null;
        active: boolean;
        filter: {
          event_type?: Array<
            | 'http'
            | 'system.alert'
            | 'system.healthcheck.down'
            | 'system.healthcheck.up'
            | 'system.healthcheck.certificate_expiring'
            | 'system.access'
            | 'system.maintenance.started'
            | 'system.maintenance.ended'>;
          service_name?: Array<string>;
        };
        settings: Record<string, unknown>;
        state: 'active' | 'degraded' | 'paused';
        degraded_reason: string | null;
        degraded_since: string | null;
        position: string | null;
        lag_records: number;
        lag_exact: boolean;
        lag_seconds: number;
        forwarded_total: number;
        last_forwarded_at: string | null;
        failures: number;
        last_error: string | null;
        last_error_at: string | null;
        created_at: string;
        updated_at: string;
      };
    };
  };
  /** Change a log sink */
  'PUT /v1/projects/:id/sinks/:sinkId': {
    params: {
      id: string;
      sinkId: string;
    };
    query: Record<string, never>;
    body: {
      name?: string | null;
      active?: boolean;
      filter?: {
        event_type?: Array<
          | 'http'
          | 'system.alert'
          | 'system.healthcheck.down'
          | 'system.healthcheck.up'
          | 'system.healthcheck.certificate_expiring'
          | 'system.access'
          | 'system.maintenance.started'
          | 'system.maintenance.ended'>;
        service_name?: Array<string>;
      };
    };
    answers: {
      200: {
        id: string;
        project_id: string;
        type: 'http' | 'splunk_hec' | 'elastic' | 'datadog' | 'syslog' | 'otlp_logs';
        name: string | null;
        active: boolean;
        filter: {
          event_type?: Array<
            | 'http'
            | 'system.alert'
            | 'system.healthcheck.down'
            | 'system.healthcheck.up'
            | 'system.healthcheck.certificate_expiring'
            | 'system.access'
            | 'system.maintenance.started'
            | 'system.maintenance.ended'>;
          service_name?: Array<string>;
        };
        settings: Record<string, unknown>;
        state: 'active' | 'degraded' | 'paused';
        degraded_reason: string | null;
        degraded_since: string | null;
        position: string | null;
        lag_records: number;
        lag_exact: boolean;
        lag_seconds: number;
        forwarded_total: number;
        last_forwarded_at: string | null;
        failures: number;
        last_error: string | null;
        last_error_at: string | null;
        created_at: string;
        updated_at: string;
      };
    };
  };
  /** Delete a log sink */
  'DELETE /v1/projects/:id/sinks/:sinkId': {
    params: {
      id: string;
      sinkId: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** List monitors */
  'GET /v1/monitors': {
    params: Record<string, never>;
    query: {
      project_id?: string;
    };
    body: undefined;
    answers: {
      200: Array<Monitor>;
    };
  };
  /** Create a monitor */
  'POST /v1/monitors': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: MonitorCreate;
    answers: {
      201: {
        id: string;
        project_id: string;
        name: string;
        type: 'http' | 'tcp' | 'dns' | 'heartbeat';
        url: string;
        interval_seconds: number;
        timeout_seconds: number;
        expected_status: number;
        enabled: boolean;
        status: 'UP' | 'DOWN' | 'PENDING';
        status_since: string | null;
        last_checked_at: string | null;
        last_status_code: number | null;
        last_response_ms: number | null;
        last_error: string | null;
        last_certificate:
          | {
              valid_from: string;
              valid_to: string;
              issuer: string;
              subject: string;
              names: Array<string>;
            }
          | null;
        created_at: string;
        updated_at: string;
        uptime_24h: number | null;
        uptime_7d: number | null;
        uptime_30d: number | null;
        uptime_90d: number | null;
        avg_response_ms_24h: number | null;
        avg_response_ms_7d: number | null;
        avg_response_ms_30d: number | null;
        avg_response_ms_90d: number | null;
        in_maintenance: boolean;
        method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
        headers?: Record<string, string>;
        body?: string;
        content_type?: string;
        auth?:
          | {
              type: 'basic';
              username: string;
              password: string;
            }
          | {
              type: 'bearer';
              token: string;
            };
        max_redirects?: number;
        ignore_tls_errors?: boolean;
        accepted_statuses?: Array<string>;
        tls?: boolean;
        hostname?: string;
        record_type?: 'A' | 'AAAA' | 'CNAME' | 'MX' | 'TXT' | 'NS';
        resolver?: string;
        grace_seconds?: number;
        assertions?: Array<{
          source:
            | 'status'
            | 'body'
            | 'json'
            | 'header'
            | 'response_time'
            | 'certificate_expiry_days'
            | 'dns_records';
          op:
            | 'equals'
            | 'not_equals'
            | 'contains'
            | 'not_contains'
            | 'matches'
            | 'lt'
            | 'lte'
            | 'gt'
            | 'gte'
            | 'exists'
            | 'not_exists';
          path?: string;
          value?: string | number | boolean | null;
        }>;
        down_after?: number;
        up_after?: number;
        public_badges?: boolean;
        retry_interval_seconds?: number;
        managed_by?: string;
        cert_expiry_warn_days?: Array<number>;
        heartbeat_token?: string;
        heartbeat_url?: string;
      };
    };
  };
  /** A monitor */
  'GET /v1/monitors/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Monitor;
    };
  };
  /** Change a monitor */
  'PUT /v1/monitors/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: MonitorUpdate;
    answers: {
      200: Monitor;
    };
  };
  /** Delete a monitor */
  'DELETE /v1/monitors/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Check history */
  'GET /v1/monitors/:id/history': {
    params: {
      id: string;
    };
    query: {
      limit?: number;
    };
    body: undefined;
    answers: {
      200: Array<Check>;
    };
  };
  /** Check now */
  'POST /v1/monitors/:id/test': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Check;
    };
  };
  /** Send a heartbeat */
  'GET /v1/heartbeat/:token': {
    params: {
      token: string;
    };
    query: {
      status?: 'up' | 'down';
      msg?: string;
      ping?: number;
    };
    body: undefined;
    answers: {
      200: {
        status: 'recorded' | 'paused';
      };
    };
  };
  /** Send a heartbeat (POST) */
  'POST /v1/heartbeat/:token': {
    params: {
      token: string;
    };
    query: {
      status?: 'up' | 'down';
      msg?: string;
      ping?: number;
    };
    body: undefined;
    answers: {
      200: {
        status: 'recorded' | 'paused';
      };
    };
  };
  /** The Web Push key */
  'GET /v1/webpush/public-key': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        public_key: string;
      };
    };
  };
  /** List notification channels */
  'GET /v1/channels': {
    params: Record<string, never>;
    query: {
      project_id?: string;
    };
    body: undefined;
    answers: {
      200: Array<Channel>;
    };
  };
  /** Create a notification channel */
  'POST /v1/channels': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: ChannelCreate;
    answers: {
      201: Channel;
    };
  };
  /** A notification channel */
  'GET /v1/channels/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Channel;
    };
  };
  /** Change a notification channel */
  'PUT /v1/channels/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: ChannelUpdate;
    answers: {
      200: Channel;
    };
  };
  /** Delete a notification channel */
  'DELETE /v1/channels/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Send a test notification */
  'POST /v1/channels/:id/test': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        ok: boolean;
        status: number | null;
        response: string | null;
        error: string | null;
        duration_ms: number;
      };
    };
  };
  /** A channel's delivery log */
  'GET /v1/channels/:id/deliveries': {
    params: {
      id: string;
    };
    query: {
      page?: number;
      limit?: number;
      status?: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
    };
    body: undefined;
    answers: {
      200: {
        data: Array<{
          id: string;
          channel_id: string;
          channel_type: 'webhook' | 'webpush' | 'slack' | 'discord' | 'teams' | 'email' | 'pagerduty' | 'ntfy';
          project_id: string;
          event_id: string;
          event_type:
            | 'monitor.down'
            | 'monitor.up'
            | 'monitor.certificate_expiring'
            | 'anomaly.detected'
            | 'channel.test';
          title: string;
          status: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
          reason: string | null;
          attempts: Array<{
            attempt: number;
            at: string;
            outcome: 'delivered' | 'failed';
            status: number | null;
            error: string | null;
            response: string | null;
            duration_ms: number;
          }>;
          created_at: string;
          updated_at: string;
        }>;
        pagination: Pagination;
      };
    };
  };
  /** An event's deliveries */
  'GET /v1/deliveries': {
    params: Record<string, never>;
    query: {
      event_id: string;
    };
    body: undefined;
    answers: {
      200: Array<{
        id: string;
        channel_id: string;
        channel_type: 'webhook' | 'webpush' | 'slack' | 'discord' | 'teams' | 'email' | 'pagerduty' | 'ntfy';
        project_id: string;
        event_id: string;
        event_type:
          | 'monitor.down'
          | 'monitor.up'
          | 'monitor.certificate_expiring'
          | 'anomaly.detected'
          | 'channel.test';
        title: string;
        status: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
        reason: string | null;
        attempts: Array<{
          attempt: number;
          at: string;
          outcome: 'delivered' | 'failed';
          status: number | null;
          error: string | null;
          response: string | null;
          duration_ms: number;
        }>;
        created_at: string;
        updated_at: string;
      }>;
    };
  };
  /** A delivery */
  'GET /v1/deliveries/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        id: string;
        channel_id: string;
        channel_type: 'webhook' | 'webpush' | 'slack' | 'discord' | 'teams' | 'email' | 'pagerduty' | 'ntfy';
        project_id: string;
        event_id: string;
        event_type:
          | 'monitor.down'
          | 'monitor.up'
          | 'monitor.certificate_expiring'
          | 'anomaly.detected'
          | 'channel.test';
        title: string;
        status: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
        reason: string | null;
        attempts: Array<{
          attempt: number;
          at: string;
          outcome: 'delivered' | 'failed';
          status: number | null;
          error: string | null;
          response: string | null;
          duration_ms: number;
        }>;
        created_at: string;
        updated_at: string;
      };
    };
  };
  /** Send a failed delivery again */
  'POST /v1/deliveries/:id/retry': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      202: {
        id: string;
        channel_id: string;
        channel_type: 'webhook' | 'webpush' | 'slack' | 'discord' | 'teams' | 'email' | 'pagerduty' | 'ntfy';
        project_id: string;
        event_id: string;
        event_type:
          | 'monitor.down'
          | 'monitor.up'
          | 'monitor.certificate_expiring'
          | 'anomaly.detected'
          | 'channel.test';
        title: string;
        status: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
        reason: string | null;
        attempts: Array<{
          attempt: number;
          at: string;
          outcome: 'delivered' | 'failed';
          status: number | null;
          error: string | null;
          response: string | null;
          duration_ms: number;
        }>;
        created_at: string;
        updated_at: string;
      };
    };
  };
  /** List status pages */
  'GET /v1/status-pages': {
    params: Record<string, never>;
    query: {
      project_id?: string;
    };
    body: undefined;
    answers: {
      200: Array<StatusPage>;
    };
  };
  /** Create a status page */
  'POST /v1/status-pages': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: StatusPageCreate;
    answers: {
      201: StatusPage;
    };
  };
  /** A status page */
  'GET /v1/status-pages/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: StatusPage;
    };
  };
  /** Change a status page */
  'PUT /v1/status-pages/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: StatusPageUpdate;
    answers: {
      200: StatusPage;
    };
  };
  /** Delete a status page */
  'DELETE /v1/status-pages/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** A status page's e-mail subscribers */
  'GET /v1/status-pages/:id/subscribers': {
    params: {
      id: string;
    };
    query: {
      page?: number;
      limit?: number;
      status?: 'pending' | 'confirmed' | 'unsubscribed';
    };
    body: undefined;
    answers: {
      200: {
        data: Array<{
          id: string;
          page_id: string;
          project_id: string;
          email: string;
          status: 'pending' | 'confirmed' | 'unsubscribed';
          created_at: string;
          updated_at: string;
          requested_at: string;
          confirmed_at: string | null;
          unsubscribed_at: string | null;
          last_delivery:
            | {
                id: string;
                type:
                  | 'subscription.confirm'
                  | 'incident.opened'
                  | 'incident.updated'
                  | 'maintenance.scheduled'
                  | 'maintenance.started';
                status: 'pending' | 'delivered' | 'failed' | 'skipped' | 'cancelled';
                at: string;
              }
            | null;
        }>;
        pagination: Pagination;
        counts: {
          pending: number;
          confirmed: number;
          unsubscribed: number;
        };
      };
    };
  };
  /** Remove a subscriber */
  'DELETE /v1/status-pages/:id/subscribers/:subscriber_id': {
    params: {
      id: string;
      subscriber_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** List incidents */
  'GET /v1/incidents': {
    params: Record<string, never>;
    query: {
      page?: number;
      limit?: number;
      project_id?: string;
      open?: 'true' | 'false';
    };
    body: undefined;
    answers: {
      200: {
        data: Array<Incident>;
        pagination: Pagination;
      };
    };
  };
  /** Open an incident */
  'POST /v1/incidents': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: IncidentCreate;
    answers: {
      201: Incident;
    };
  };
  /** An incident with its updates */
  'GET /v1/incidents/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Incident;
    };
  };
  /** Delete an incident */
  'DELETE /v1/incidents/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** Post an incident update */
  'POST /v1/incidents/:id/updates': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: IncidentUpdate;
    answers: {
      201: Incident;
    };
  };
  /** A status page */
  'GET /status/:slug': {
    params: {
      slug: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A status page's incident history */
  'GET /status/:slug/history': {
    params: {
      slug: string;
    };
    query: {
      page?: number;
    };
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A status page's summary */
  'GET /status/:slug/summary.json': {
    params: {
      slug: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A status page's Atom feed */
  'GET /status/:slug/feed.atom': {
    params: {
      slug: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** The status pages' stylesheet and script */
  'GET /status-assets/:file': {
    params: {
      file: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A monitor's state as a badge */
  'GET /badge/:monitor_id/status.svg': {
    params: {
      monitor_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A monitor's uptime as a badge */
  'GET /badge/:monitor_id/uptime.svg': {
    params: {
      monitor_id: string;
    };
    query: {
      days?: number;
    };
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A monitor's response time as a badge */
  'GET /badge/:monitor_id/response.svg': {
    params: {
      monitor_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** A monitor's certificate expiry as a badge */
  'GET /badge/:monitor_id/certificate.svg': {
    params: {
      monitor_id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: string;
      304: undefined;
    };
  };
  /** Subscribe to a status page's news by e-mail */
  'POST /status/:slug/subscribe': {
    params: {
      slug: string;
    };
    query: Record<string, never>;
    body: {
      email: string;
    };
    answers: {
      200: string;
      202: {
        status: 'accepted';
        message: string;
      };
    };
  };
  /** A confirmation link's page */
  'GET /status/:slug/subscription/confirm': {
    params: {
      slug: string;
    };
    query: {
      id: string;
      token: string;
    };
    body: undefined;
    answers: {
      200: string;
    };
  };
  /** Confirm a subscription */
  'POST /status/:slug/subscription/confirm': {
    params: {
      slug: string;
    };
    query: {
      id: string;
      token: string;
    };
    body: undefined;
    answers: {
      200: string;
    };
  };
  /** An unsubscribe link's page */
  'GET /status/:slug/subscription/unsubscribe': {
    params: {
      slug: string;
    };
    query: {
      id: string;
      token: string;
    };
    body: undefined;
    answers: {
      200: string;
    };
  };
  /** Unsubscribe */
  'POST /status/:slug/subscription/unsubscribe': {
    params: {
      slug: string;
    };
    query: {
      id: string;
      token: string;
    };
    body: undefined;
    answers: {
      200: string;
      204: undefined;
    };
  };
  /** List maintenance windows */
  'GET /v1/maintenances': {
    params: Record<string, never>;
    query: {
      project_id?: string;
    };
    body: undefined;
    answers: {
      200: Array<Maintenance>;
    };
  };
  /** Schedule a maintenance window */
  'POST /v1/maintenances': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: MaintenanceCreate;
    answers: {
      201: Maintenance;
    };
  };
  /** A maintenance window */
  'GET /v1/maintenances/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: Maintenance;
    };
  };
  /** Change a maintenance window */
  'PUT /v1/maintenances/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: MaintenanceUpdate;
    answers: {
      200: Maintenance;
    };
  };
  /** Delete a maintenance window */
  'DELETE /v1/maintenances/:id': {
    params: {
      id: string;
    };
    query: Record<string, never>;
    body: undefined;
    answers: {
      204: undefined;
    };
  };
  /** A project's records, with their leaves */
  'GET /v1/stream': {
    params: Record<string, never>;
    query: {
      project_id: string;
      from?: string;
      limit?: number;
      follow?: 'true' | 'false';
    };
    body: undefined;
    answers: {
      200: string;
    };
  };
  /** The checkpoints' signing key */
  'GET /v1/checkpoints/key': {
    params: Record<string, never>;
    query: Record<string, never>;
    body: undefined;
    answers: {
      200: {
        key_name: string;
        key_id: string;
        verifier_key: string;
        public_key: string;
        public_key_pem: string;
      };
    };
  };
  /** The latest signed checkpoint */
  'GET /v1/checkpoints/latest': {
    params: Record<string, never>;
    query: {
      project_id: string;
    };
    body: undefined;
    answers: {
      200: {
        project_id: string;
        size: number;
        root: string;
        note: string;
        signed_at: string;
        position: string;
      };
    };
  };
  /** An inclusion proof (RFC 9162) */
  'GET /v1/proofs/inclusion': {
    params: Record<string, never>;
    query: {
      project_id: string;
      index: number;
      size: number;
    };
    body: undefined;
    answers: {
      200: {
        index: number;
        size: number;
        leaf_hash: string;
        proof: Array<string>;
      };
    };
  };
  /** A consistency proof (RFC 9162) */
  'GET /v1/proofs/consistency': {
    params: Record<string, never>;
    query: {
      project_id: string;
      from: number;
      to: number;
    };
    body: undefined;
    answers: {
      200: {
        from: number;
        to: number;
        proof: Array<string>;
      };
    };
  };
}
