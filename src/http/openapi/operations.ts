import * as t from 'io-ts';
import type { Role } from '../../domain/codecs.ts';
import { boundedString } from '../../domain/codecs.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { AuditEventInput } from '../../domain/audit-event.ts';
import { AnomalySettingsPatch } from '../../domain/anomaly-settings.ts';
import { ChannelCreateInput, ChannelUpdateInput } from '../../domain/channel.ts';
import { MaskingRulesBody } from '../../domain/masking-rules.ts';
import { ErasureBody, RetentionBody } from '../../domain/retention.ts';
import { MonitorCreateInput, MonitorUpdateInput } from '../../domain/monitor.ts';
import { NoParameters } from '../middleware/query.ts';
import {
  AnomaliesQueryCodec,
  AuditListQueryCodec,
  DerivedSessionsQueryCodec,
  MAX_PAGE_SIZE,
  MAX_SESSION_EVENTS,
  OrphansQueryCodec,
} from '../routes/audit.ts';
import {
  KeyUpdateBody,
  LoginBody,
  NameBody,
  NewKeyBody,
  NewUserBody,
  PasswordBody,
  UserUpdateBody,
} from '../routes/access.ts';
import {
  CheckpointQuery,
  ConsistencyQuery,
  InclusionQuery,
  MAX_STREAM_LIMIT,
  StreamQuery,
} from '../routes/auditors.ts';
import { ExportQuery, MAX_EXPORT_EVENTS } from '../routes/export.ts';
import { BatchItem, BatchQuery, IdempotencyKey } from '../routes/ingest.ts';
import { HistoryQuery } from '../routes/monitors.ts';
import { ChannelDeliveriesQuery } from '../routes/channels.ts';
import { ErasuresQuery } from '../routes/retention.ts';
import { EventDeliveriesQuery } from '../routes/deliveries.ts';
import { ListQuery } from '../routes/project-resource.ts';
import { StatsQuery } from '../routes/stats.ts';
import {
  AnomalyItem,
  AnomalySettingsAnswer,
  ApiKey,
  AuditEvent,
  AuditListItem,
  BatchAnswer,
  Channel,
  Check,
  CheckpointKey,
  ConsistencyProof,
  Delivery,
  TestAnswer,
  DerivedSession,
  ExplicitSession,
  InclusionProof,
  Ingested,
  IssuedApiKey,
  LatestCheckpoint,
  Liveness,
  LoginAnswer,
  MaskingAnswer,
  Monitor,
  RetentionAnswer,
  ErasureAnswer,
  ErasuresAnswer,
  OpenApiDocumentAnswer,
  OrphanItem,
  Project,
  ReadinessAnswer,
  Statistics,
  User,
  VapidKey,
  errorBody,
  pageOf,
} from '../responses.ts';

/** What each endpoint is, for the API's description (`GET /v1/openapi.json`): one entry per
 *  route, with the codecs the route decodes its query and body with and the codecs of its
 *  answers. The statuses its authentication, parameters and body imply (401, 400, 413…) are
 *  added by document.ts; an entry names only the others. test/http/openapi-coverage.test.ts fails
 *  on a route of the router that has no entry here, and on an entry with no route. */

/** How a caller authenticates: none, a login's JWT, a project's API key (a header, or for a
 *  batch the `api_key` parameter too), or the metrics token. */
export type Auth = 'none' | 'jwt' | 'api-key' | 'api-key-or-query' | 'metrics-token';

export interface Header {
  readonly description: string;
  /** Its value's codec (default: a string). */
  readonly codec?: t.Mixed;
  /** On an answer: always sent. */
  readonly required?: boolean;
}

export interface Answer {
  readonly description: string;
  /** The JSON body's codec. */
  readonly json?: t.Mixed;
  /** A body that is not JSON: its media types and what it holds. */
  readonly text?: { readonly mediaTypes: readonly string[]; readonly description: string };
  readonly headers?: Readonly<Record<string, Header>>;
  readonly example?: unknown;
}

export interface Operation {
  readonly method: 'get' | 'post' | 'put' | 'delete';
  /** As the router has it: `/v1/monitors/:id`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: Auth;
  /** The roles that may call it (others: 403); absent: every role that sees the resource. */
  readonly roles?: readonly Role[];
  /** The query codec; absent: the route reads no parameter (it ignores any). */
  readonly query?: t.Mixed;
  /** Path parameters other than a UUID (`:id`, `:keyId` are UUIDs: another value is 404). */
  readonly pathParams?: Readonly<Record<string, t.Mixed>>;
  readonly headers?: Readonly<Record<string, Header>>;
  readonly body?: {
    readonly codec: t.Mixed;
    readonly mediaTypes?: readonly string[];
    readonly description?: string;
    readonly example?: unknown;
  };
  readonly responses: Readonly<Record<number, Answer>>;
  /** Error statuses beyond those the auth, the roles, the parameters and the body imply. */
  readonly errors?: readonly number[];
  /** Served only when configured: by the dashboard (built), or the metrics endpoint
   *  (WATCHLOG_METRICS_TOKEN); the dashboard's paths are not routes of the API's router. */
  readonly servedBy?: 'dashboard' | 'metrics';
}

/** What describes a deployment rather than the code. */
export interface DescriptionLimits {
  /** WATCHLOG_BATCH_MAX_EVENTS. */
  readonly batchMaxEvents: number;
}

const WRITERS: readonly Role[] = ['admin', 'member'];
const ADMINS: readonly Role[] = ['admin'];
const NOT_VISIBLE = 404;

const PROJECT = '7b1e4c1e-5a47-4c8e-9c43-4c35b1f0a001';
const EVENT = '0f8fad5b-d9cb-469f-a165-70867728950e';
const MONITOR = '2c4a230c-5085-4924-a3e1-25fb4fc5965b';
const AT = '2026-09-01T10:00:03.000Z';

const eventExample = {
  path: '/login',
  method: 'POST',
  status_code: 200,
  response_time: 42,
  identifier: 'user-1',
  service_name: 'auth',
  environment: 'production',
  request_id: 'req-7f3a',
  session_id: 'sess-1',
  request_body: { email: 'ada@example.com', password: 'hunter2' },
};
const listItemExample = {
  id: EVENT,
  project_id: PROJECT,
  event_type: 'http',
  method: 'POST',
  path: '/login',
  status_code: 200,
  response_time: 42,
  identifier: 'user-1',
  user_email: null,
  service_name: 'auth',
  environment: 'production',
  timestamp: AT,
};
const monitorExample = {
  id: MONITOR,
  project_id: PROJECT,
  name: 'checkout-api',
  url: 'https://shop.example.com/healthz',
  interval_seconds: 60,
  timeout_seconds: 10,
  expected_status: 200,
  enabled: true,
  status: 'UP',
  status_since: AT,
  last_checked_at: AT,
  last_status_code: 200,
  last_response_ms: 87,
  last_error: null,
  created_at: AT,
  updated_at: AT,
  uptime_24h: 0.9986,
  uptime_7d: 1,
};
const checkExample = {
  checked_at: AT,
  status_code: 503,
  response_ms: 41,
  ok: false,
  error: 'expected status 200, received 503',
};

const json = (description: string, codec: t.Mixed, example?: unknown): Answer => ({
  description,
  json: codec,
  ...(example === undefined ? {} : { example }),
});
const noContent = (description: string): Answer => ({ description });
const paging = `Paged with \`page\` (default 1) and \`limit\` (default 20, at most ${MAX_PAGE_SIZE}).`;

/** The headers of every dashboard file. */
const dashboardHeaders: Readonly<Record<string, Header>> = {
  'Content-Security-Policy': { description: 'no inline script or style, nothing from elsewhere', required: true },
  'X-Content-Type-Options': { description: '`nosniff`', required: true },
  'Referrer-Policy': { description: '`no-referrer`', required: true },
  'Cross-Origin-Opener-Policy': { description: '`same-origin`', required: true },
  'Cache-Control': { description: '`no-cache` for pages; a year, immutable, for hashed assets', required: true },
  ETag: { description: 'for `If-None-Match`', required: true },
};

const dashboardPage = (description: string): Answer => ({
  description,
  text: { mediaTypes: ['text/html; charset=utf-8'], description: "the dashboard's index.html" },
  headers: dashboardHeaders,
});

/** The batch body: its bounds are checked in code (from the configuration), its items by
 *  BatchItem, so this codec only describes the array. */
const batchOf = (max: number) =>
  withSchema(
    new t.Type<unknown[], unknown[], unknown>(
      `an array of 1 to ${max} events`,
      (u): u is unknown[] => Array.isArray(u) && u.length >= 1 && u.length <= max,
      (u, c) => (Array.isArray(u) && u.length >= 1 && u.length <= max ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { minItems: 1, maxItems: max },
    t.array(BatchItem),
  );

export const operations = ({ batchMaxEvents }: DescriptionLimits): readonly Operation[] => [
  {
    method: 'get',
    path: '/healthz',
    tag: 'Operations',
    auth: 'none',
    summary: 'Liveness',
    description: 'The process answers. Takes any query parameter.',
    responses: { 200: json('alive', Liveness, { status: 'ok' }) },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'Operations',
    auth: 'none',
    summary: 'Readiness',
    description:
      'Whether a request would succeed now: the bootstrap is done, the log takes writes, and every read model the API answers from has a projector and is no more than `WATCHLOG_READY_MAX_LAG_MS` behind. Each part says why not.',
    responses: {
      200: json('ready', ReadinessAnswer),
      503: json(
        'not ready (each part and why), or the server is shutting down',
        t.union([ReadinessAnswer, errorBody(503)]),
      ),
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Operations',
    auth: 'metrics-token',
    query: NoParameters,
    servedBy: 'metrics',
    summary: 'Prometheus metrics',
    description:
      "Served on the API's port only when `WATCHLOG_METRICS_TOKEN` is set (404 otherwise), to requests that carry it as a bearer token; `WATCHLOG_METRICS_PORT` serves it on a port of its own.",
    responses: {
      200: {
        description: 'the exposition',
        text: { mediaTypes: ['text/plain; version=0.0.4; charset=utf-8'], description: 'Prometheus text format' },
        headers: { 'Cache-Control': { description: '`no-store`', required: true } },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    tag: 'Reference',
    auth: 'none',
    query: NoParameters,
    summary: 'This description',
    description:
      'The OpenAPI 3.1 description of every endpoint, generated from the codecs the server decodes with. `/docs` renders it.',
    responses: { 200: json('the description', OpenApiDocumentAnswer) },
  },
  {
    method: 'get',
    path: '/',
    tag: 'Dashboard',
    auth: 'none',
    servedBy: 'dashboard',
    summary: 'The dashboard',
    description:
      'The dashboard (a single-page app that signs in and uses this API). Any other path without an extension that asks for HTML answers the same page, so links to its screens work.',
    responses: {
      200: dashboardPage('the dashboard'),
      304: { description: 'not modified (`If-None-Match`)', headers: dashboardHeaders },
    },
  },
  {
    method: 'get',
    path: '/docs',
    tag: 'Dashboard',
    auth: 'none',
    servedBy: 'dashboard',
    summary: 'This reference, rendered',
    description: 'A page of the dashboard that renders `/v1/openapi.json` (Swagger UI, bundled with the dashboard).',
    responses: {
      200: dashboardPage('the reference page'),
      304: { description: 'not modified (`If-None-Match`)', headers: dashboardHeaders },
    },
  },

  {
    method: 'post',
    path: '/v1/audit',
    tag: 'Ingest',
    auth: 'api-key',
    summary: 'Ingest an event (SPEC 4.1)',
    description:
      "One audit event per request an application handled. Unknown fields are dropped (SDKs newer than the server may send more) and `null` on an optional field means absent. Secrets are masked before anything is stored. The answer comes once the event is durably in the log. Checks, in order: the key (401), its origins (403), the body (413, 415, 400), the key's rate (429).",
    headers: {
      'Idempotency-Key': {
        codec: IdempotencyKey,
        description:
          "Unique per event (a UUID is right): a repeat within `WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS` (24 h) stores nothing and answers the first event's `id`; the same key with another event is 409.",
      },
    },
    body: { codec: AuditEventInput, description: 'SPEC 2.1', example: eventExample },
    responses: {
      202: {
        ...json('accepted: in the log', Ingested, { id: EVENT }),
        headers: {
          'Idempotent-Replayed': {
            description: '`true` when an earlier request with the same `Idempotency-Key` stored the event',
            codec: t.literal('true'),
          },
        },
      },
    },
    errors: [409, 429],
  },
  {
    method: 'post',
    path: '/v1/audit/batch',
    tag: 'Ingest',
    auth: 'api-key-or-query',
    query: BatchQuery,
    summary: 'Ingest a batch of events',
    description: `A JSON array of 1 to ${batchMaxEvents} events (\`WATCHLOG_BATCH_MAX_EVENTS\`), each validated on its own, with an optional \`idempotency_key\`. \`text/plain\` holding JSON is taken too, as \`navigator.sendBeacon\` sends it (with the key as \`?api_key=\`). 400 only when no event is valid; otherwise 202 with the accepted and the rejected, by index.`,
    body: {
      codec: batchOf(batchMaxEvents),
      mediaTypes: ['application/json', 'text/plain'],
      example: [
        { ...eventExample, idempotency_key: '5f0c1a52-8c1e-4f57-9a43-2f1b7f0e9d11' },
        { ...eventExample, path: '/logout' },
      ],
    },
    responses: {
      202: json('at least one event accepted; each invalid one is rejected with its details, by index', BatchAnswer, {
        accepted: [{ index: 0, id: EVENT, replayed: true }],
        rejected: [{ index: 1, details: [{ path: 'method', message: 'must be one of GET, POST, PUT, DELETE' }] }],
      }),
    },
    errors: [429],
  },

  {
    method: 'get',
    path: '/v1/audit',
    tag: 'Events',
    auth: 'jwt',
    query: AuditListQueryCodec,
    summary: 'List events (SPEC 4.2)',
    description: `Filters are exact; \`start_date\` and \`end_date\` are inclusive. ${paging} A page past the end is empty with the true totals.`,
    responses: {
      200: json('a page of events', pageOf(AuditListItem), {
        data: [listItemExample],
        pagination: { page: 1, limit: 20, totalItems: 1, totalPage: 1 },
      }),
    },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/audit/stats',
    tag: 'Events',
    auth: 'jwt',
    query: StatsQuery,
    summary: 'Statistics (SPEC 4.4)',
    description:
      "Of `http` events, over exact inclusive bounds (default: the last 24 hours). The timeline's `interval` defaults to minutes up to 2 hours, hours up to 7 days, days beyond; more than 1,500 points is 400.",
    responses: { 200: json('the statistics', Statistics) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/audit/export',
    tag: 'Events',
    auth: 'jwt',
    query: ExportQuery,
    summary: 'Export events (SPEC 4.8)',
    description: `The list's filters, newest first, at most ${MAX_EXPORT_EVENTS} events, streamed. CSV (default) or a JSON array of full events. HEAD answers the headers without reading an event.`,
    responses: {
      200: {
        description: 'an attachment',
        text: {
          mediaTypes: ['text/csv; charset=utf-8', 'application/json; charset=utf-8'],
          description:
            'CSV with a header row (columns in docs/api.md), or a JSON array of events as `GET /v1/audit/{id}` answers them',
        },
        headers: {
          'Content-Disposition': {
            description: '`attachment; filename="watchlog-audit-YYYY-MM-DD.csv"` (or `.json`)',
            required: true,
          },
          'X-Export-Total': { description: 'how many events matched', codec: t.string, required: true },
          'X-Export-Truncated': {
            description: '`true` when more matched than the export holds',
            codec: t.literal('true'),
          },
        },
      },
    },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/audit/anomalies',
    tag: 'Events',
    auth: 'jwt',
    query: AnomaliesQueryCodec,
    summary: 'Anomaly alerts (SPEC 4.9)',
    description: `\`system.alert\` events, newest first, with the rule's fields in \`request_body\` and \`open\`: whether the condition still holds. ${paging}`,
    responses: { 200: json('a page of alerts', pageOf(AnomalyItem)) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/audit/orphans',
    tag: 'Events',
    auth: 'jwt',
    query: OrphansQueryCodec,
    summary: 'Orphan browser events (SPEC 4.5)',
    description: `Browser events whose \`request_id\` no backend event of the project carried within 2 minutes either side; only events older than that are judged. ${paging}`,
    responses: { 200: json('a page of orphans', pageOf(OrphanItem)) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/audit/sessions',
    tag: 'Events',
    auth: 'jwt',
    query: DerivedSessionsQueryCodec,
    summary: 'Derived sessions (SPEC 4.6)',
    description: `An identifier's events in one service, split where 30 minutes pass without one; newest first; the dates bound \`session_start\`. A bare array (SPEC), paged in headers. ${paging}`,
    responses: {
      200: {
        ...json('a page of sessions', t.array(DerivedSession)),
        headers: {
          'X-Total-Count': { description: 'how many sessions match', codec: t.string, required: true },
          Link: {
            description: 'RFC 8288 `first`, `prev`, `next` and `last` pages, relative to the request',
            required: true,
          },
        },
      },
    },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/audit/sessions/:session_id',
    tag: 'Events',
    auth: 'jwt',
    query: NoParameters,
    summary: 'An explicit session (SPEC 4.7)',
    description: `Every visible event carrying the \`session_id\`, oldest first (the first ${MAX_SESSION_EVENTS}; \`event_count\` and \`session_end\` count them all).`,
    pathParams: { session_id: boundedString(1, 255) },
    responses: { 200: json('the session', ExplicitSession) },
  },
  {
    method: 'get',
    path: '/v1/audit/:id',
    tag: 'Events',
    auth: 'jwt',
    query: NoParameters,
    summary: 'An event (SPEC 4.3)',
    description: 'The full stored event, masked as it was stored.',
    responses: { 200: json('the event', AuditEvent) },
  },

  {
    method: 'post',
    path: '/v1/auth/login',
    tag: 'Accounts',
    auth: 'none',
    query: NoParameters,
    summary: 'Log in',
    description:
      'The e-mail is case-insensitive. A wrong e-mail or password and a disabled account all answer 401. Failed logins are throttled per account and per client address: a refused attempt is 429 with `Retry-After`, whatever the password.',
    body: { codec: LoginBody, example: { email: 'admin@example.com', password: 'change-me-please' } },
    responses: { 200: json('a token', LoginAnswer) },
    errors: [401, 429],
  },
  {
    method: 'get',
    path: '/v1/auth/me',
    tag: 'Accounts',
    auth: 'jwt',
    query: NoParameters,
    summary: 'The caller',
    responses: { 200: json('the caller, as users are listed', User) },
  },
  {
    method: 'post',
    path: '/v1/users',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'Create a user',
    description:
      'Admins get `project_ids: []` (they see every project); an unknown project is 400 (`project_ids.N`); a taken e-mail is 409.',
    body: {
      codec: NewUserBody,
      example: { email: 'ada@example.com', password: 'a long password', role: 'member', project_ids: [PROJECT] },
    },
    responses: { 201: json('the user', User) },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/users',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'List users',
    responses: { 200: json('every user (never a password hash)', t.array(User)) },
  },
  {
    method: 'put',
    path: '/v1/users/:id',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'Change a user',
    description: "A new role or new projects end the user's tokens; nobody changes their own role (409).",
    body: { codec: UserUpdateBody, example: { role: 'auditor' } },
    responses: { 200: json('the user', User) },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/v1/users/:id',
    tag: 'Accounts',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'Disable a user',
    description:
      'The user is kept, disabled: their tokens are refused and they cannot log in. Nobody disables themselves (409).',
    responses: { 204: noContent('disabled') },
    errors: [409],
  },
  {
    method: 'post',
    path: '/v1/users/:id/password',
    tag: 'Accounts',
    auth: 'jwt',
    query: NoParameters,
    summary: 'Set a password',
    description:
      "Admins set anyone's; everyone sets their own with `current_password` (missing: 400; wrong: 403, counted by the login throttle, so repeated guesses are 429). Every older token of the user is refused from then on.",
    body: { codec: PasswordBody, example: { password: 'a brand new password', current_password: 'the old one' } },
    responses: { 204: noContent('changed') },
    errors: [403, 429],
  },

  {
    method: 'post',
    path: '/v1/projects',
    tag: 'Projects',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'Create a project',
    body: { codec: NameBody, example: { name: 'shop' } },
    responses: { 201: json('the project', Project, { id: PROJECT, name: 'shop', created_at: AT }) },
  },
  {
    method: 'get',
    path: '/v1/projects',
    tag: 'Projects',
    auth: 'jwt',
    query: NoParameters,
    summary: 'List projects',
    responses: { 200: json('the projects the caller may see', t.array(Project)) },
  },
  {
    method: 'get',
    path: '/v1/projects/:id',
    tag: 'Projects',
    auth: 'jwt',
    query: NoParameters,
    summary: 'A project',
    responses: { 200: json('the project', Project) },
  },
  {
    method: 'post',
    path: '/v1/projects/:id/api-keys',
    tag: 'Projects',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Issue an API key',
    description:
      'The key is in this answer only; watchlog keeps its SHA-256. `allowed_origins` restricts the browser origins it may be used from (none: any); `rate_limit` its events per second (null: `WATCHLOG_INGEST_RATE_LIMIT`).',
    body: {
      codec: NewKeyBody,
      example: { name: 'storefront', allowed_origins: ['https://shop.example.com'], rate_limit: 200 },
    },
    responses: { 201: json('the key, shown once', IssuedApiKey) },
  },
  {
    method: 'get',
    path: '/v1/projects/:id/api-keys',
    tag: 'Projects',
    auth: 'jwt',
    query: NoParameters,
    summary: 'List API keys',
    responses: { 200: json("the project's keys (never the key itself)", t.array(ApiKey)) },
  },
  {
    method: 'put',
    path: '/v1/projects/:id/api-keys/:keyId',
    tag: 'Projects',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Restrict an API key',
    description: 'Applied to ingest within a second; a revoked key is 409.',
    body: { codec: KeyUpdateBody, example: { rate_limit: null } },
    responses: { 200: json('the key', ApiKey) },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/v1/projects/:id/api-keys/:keyId',
    tag: 'Projects',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Revoke an API key',
    description: 'Ingest with the key is 401 from then on; a revoked key is 409.',
    responses: { 204: noContent('revoked') },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/projects/:id/anomaly-settings',
    tag: 'Projects',
    auth: 'jwt',
    query: NoParameters,
    summary: 'Anomaly settings',
    description:
      "Every rule's settings: the project's own values over the deployment's defaults (`WATCHLOG_ANOMALY_DEFAULTS`).",
    responses: { 200: json('the settings', AnomalySettingsAnswer) },
  },
  {
    method: 'put',
    path: '/v1/projects/:id/anomaly-settings',
    tag: 'Projects',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Change anomaly settings',
    description:
      "Any rules, any of their fields; `null` puts a field back to the deployment's default. A PUT that changes nothing records nothing (`updated_at` unchanged).",
    body: {
      codec: AnomalySettingsPatch,
      example: { brute_force: { threshold: 5 }, silent_service: { enabled: false } },
    },
    responses: { 200: json('the settings', AnomalySettingsAnswer) },
  },
  {
    method: 'get',
    path: '/v1/projects/:id/masking',
    tag: 'Projects',
    auth: 'jwt',
    query: NoParameters,
    summary: 'Masking rules',
    description: "The project's own rules, over the built-in ones.",
    responses: { 200: json('the rules', MaskingAnswer) },
  },
  {
    method: 'put',
    path: '/v1/projects/:id/masking',
    tag: 'Projects',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Replace masking rules',
    description:
      'Extra secret key names and RE2 value patterns; each faulty entry is named (`patterns.0`). Applied to ingest within a second.',
    body: { codec: MaskingRulesBody, example: { keys: ['national_id'], patterns: ['\\bAKIA[0-9A-Z]{16}\\b'] } },
    responses: { 200: json('the rules', MaskingAnswer) },
  },
  {
    method: 'get',
    path: '/v1/projects/:id/retention',
    tag: 'Projects',
    auth: 'jwt',
    query: NoParameters,
    summary: 'Retention',
    description:
      'How long the project keeps its ingested events (`null`: for ever), the last run of the retention job, and how many events retention removed and erasures erased.',
    responses: { 200: json('the retention', RetentionAnswer) },
  },
  {
    method: 'put',
    path: '/v1/projects/:id/retention',
    tag: 'Projects',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'Set retention',
    description:
      '`retention_days` from 1 to 36500, or `null` to keep events for ever. The retention job (every `WATCHLOG_RETENTION_INTERVAL_SECONDS`) then removes the ingested events older than that, down to the hour, from the log and every read model; the tree keeps their leaf hashes (docs/retention.md).',
    body: { codec: RetentionBody, example: { retention_days: 90 } },
    responses: { 200: json('the retention', RetentionAnswer) },
  },
  {
    method: 'post',
    path: '/v1/projects/:id/erasures',
    tag: 'Projects',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'Ask for an identifier to be erased',
    description:
      'Records the request and answers at once, with its status resource in `Location`. The erasure job (within seconds) then removes the personal fields (`fields`) of every event of `identifier` in the project up to `through_position` (the log head when asked), from the log and every read model, and drops its sessions; the events keep their time, route, status and timing, with the identifier `[erased]`. `status` turns `done`, with `erased` and `erased_at`, once every read model shows it. Asking again while a request for the same identifier is pending answers that request. Recorded as audit events of the built-in project (`erasure.requested`, `identifier.erased`), naming the identifier by its SHA-256. `409 unsupported` on a KurrentDB log.',
    body: { codec: ErasureBody, example: { identifier: 'user-42' } },
    responses: {
      202: {
        ...json('the request, pending', ErasureAnswer),
        headers: { Location: { description: "the request's status resource", required: true } },
      },
    },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/projects/:id/erasures',
    tag: 'Projects',
    auth: 'jwt',
    roles: ADMINS,
    query: ErasuresQuery,
    summary: 'Erasure requests',
    description: `The project's erasure requests, newest first, each naming the identifier by its SHA-256 only. ${paging}`,
    responses: { 200: json('a page of requests', ErasuresAnswer) },
  },
  {
    method: 'get',
    path: '/v1/projects/:id/erasures/:erasureId',
    tag: 'Projects',
    auth: 'jwt',
    roles: ADMINS,
    query: NoParameters,
    summary: 'An erasure request',
    description:
      '`pending` until the erasure job has erased every event it covers and every read model shows it; then `done`, with how many events it erased.',
    responses: { 200: json('the request', ErasureAnswer) },
  },

  {
    method: 'get',
    path: '/v1/monitors',
    tag: 'Monitors',
    auth: 'jwt',
    query: ListQuery,
    summary: 'List monitors',
    description: 'The monitors of the projects the caller sees (or of `project_id`), oldest first.',
    responses: { 200: json('the monitors', t.array(Monitor)) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'post',
    path: '/v1/monitors',
    tag: 'Monitors',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Create a monitor',
    description:
      'Defaults: `interval_seconds` 60, `timeout_seconds` 10 (at most the interval), `expected_status` 200, `enabled` true. At most 10 monitors per project (409). A URL whose host is an address the egress policy denies is 400.',
    body: {
      codec: MonitorCreateInput,
      example: {
        project_id: PROJECT,
        name: 'checkout-api',
        url: 'https://shop.example.com/healthz',
        interval_seconds: 30,
      },
    },
    responses: { 201: json('the monitor', Monitor, monitorExample) },
    errors: [NOT_VISIBLE, 409],
  },
  {
    method: 'get',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    query: NoParameters,
    summary: 'A monitor',
    description:
      'With its state, its last check, and `uptime_24h`, `uptime_7d` (the share of OK checks; null without checks).',
    responses: { 200: json('the monitor', Monitor, monitorExample) },
  },
  {
    method: 'put',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Change a monitor',
    description:
      'Only the fields given; `enabled: false` pauses its checks. A PUT that changes nothing records nothing (`updated_at` unchanged).',
    body: { codec: MonitorUpdateInput, example: { enabled: false } },
    responses: { 200: json('the monitor', Monitor) },
  },
  {
    method: 'delete',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Delete a monitor',
    responses: { 204: noContent('deleted') },
  },
  {
    method: 'get',
    path: '/v1/monitors/:id/history',
    tag: 'Monitors',
    auth: 'jwt',
    query: HistoryQuery,
    summary: 'Check history',
    description: 'The last checks, newest first: `limit` (default 50, at most 200; 200 are kept).',
    responses: { 200: json('the checks', t.array(Check), [checkExample]) },
  },
  {
    method: 'post',
    path: '/v1/monitors/:id/test',
    tag: 'Monitors',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Check now',
    description: "One check with the monitor's settings, now; nothing is recorded.",
    responses: { 200: json('what the check saw', Check, checkExample) },
  },

  {
    method: 'get',
    path: '/v1/channels',
    tag: 'Notifications',
    auth: 'jwt',
    query: ListQuery,
    summary: 'List notification channels',
    description:
      'The channels of the projects the caller sees (or of `project_id`), oldest first. Never a secret or a key.',
    responses: { 200: json('the channels', t.array(Channel)) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'post',
    path: '/v1/channels',
    tag: 'Notifications',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Create a notification channel',
    description:
      'One shape per `type`. `events`: `healthcheck` (monitor transitions, the default) and/or `alert` (anomaly alerts).',
    body: {
      codec: ChannelCreateInput,
      example: {
        project_id: PROJECT,
        type: 'webhook',
        url: 'https://hooks.example.com/watchlog',
        secret: 'a shared secret',
        events: ['healthcheck', 'alert'],
      },
    },
    responses: { 201: json('the channel', Channel) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/channels/:id',
    tag: 'Notifications',
    auth: 'jwt',
    query: NoParameters,
    summary: 'A notification channel',
    responses: { 200: json('the channel', Channel) },
  },
  {
    method: 'put',
    path: '/v1/channels/:id',
    tag: 'Notifications',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Change a notification channel',
    body: { codec: ChannelUpdateInput, example: { active: false } },
    responses: { 200: json('the channel', Channel) },
  },
  {
    method: 'delete',
    path: '/v1/channels/:id',
    tag: 'Notifications',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Delete a notification channel',
    responses: { 204: noContent('deleted') },
  },
  {
    method: 'post',
    path: '/v1/channels/:id/test',
    tag: 'Notifications',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Send a test notification',
    description:
      "One `channel.test` notification to the channel now, paused or not, through the egress policy; nothing is recorded. The answer is the provider's: `ok` false with its status and the start of its answer, or the error when none came.",
    responses: {
      200: json('what the provider answered', TestAnswer, {
        ok: true,
        status: 200,
        response: 'ok',
        error: null,
        duration_ms: 41,
      }),
    },
  },
  {
    method: 'get',
    path: '/v1/channels/:id/deliveries',
    tag: 'Notifications',
    auth: 'jwt',
    query: ChannelDeliveriesQuery,
    summary: "A channel's delivery log",
    description:
      'Every notification to the channel, newest first, with each try (time, outcome, provider status, error, the start of its answer); `status` filters (pending, delivered, failed, skipped, cancelled).',
    responses: { 200: json('a page of deliveries', pageOf(Delivery)) },
  },
  {
    method: 'get',
    path: '/v1/deliveries',
    tag: 'Notifications',
    auth: 'jwt',
    query: EventDeliveriesQuery,
    summary: "An event's deliveries",
    description:
      "The deliveries of one notified event (a monitor transition's or an alert's id), one per channel, in the projects the caller sees.",
    responses: { 200: json('the deliveries', t.array(Delivery)) },
  },
  {
    method: 'get',
    path: '/v1/deliveries/:id',
    tag: 'Notifications',
    auth: 'jwt',
    query: NoParameters,
    summary: 'A delivery',
    responses: { 200: json('the delivery', Delivery) },
  },
  {
    method: 'post',
    path: '/v1/deliveries/:id/retry',
    tag: 'Notifications',
    auth: 'jwt',
    roles: WRITERS,
    query: NoParameters,
    summary: 'Send a failed delivery again',
    description:
      'A new round of tries for a failed or cancelled delivery (any other is 409): 202 with the delivery pending again; the tries follow in its log.',
    responses: { 202: json('the delivery, pending', Delivery) },
    errors: [409],
  },
  {
    method: 'get',
    path: '/v1/webpush/public-key',
    tag: 'Notifications',
    auth: 'jwt',
    query: NoParameters,
    summary: 'The Web Push key',
    description: 'The VAPID public key browsers subscribe with.',
    responses: { 200: json('the key', VapidKey) },
  },

  {
    method: 'get',
    path: '/v1/stream',
    tag: 'Auditors',
    auth: 'jwt',
    query: StreamQuery,
    summary: "A project's records, with their leaves",
    description: `NDJSON: the project's raw records in log order, each with its leaf index and hash, from \`from\` (a log position), at most \`limit\` (default 10,000, at most ${MAX_STREAM_LIMIT}); \`Watchlog-Next-From\` is the next page's \`from\`. With \`Accept: text/event-stream\` or \`follow=true\`, server-sent events that go on with new records (\`Last-Event-ID\` resumes).`,
    headers: {
      'Last-Event-ID': {
        description: 'with a live tail: the last position received, to resume after it',
        codec: t.string,
      },
    },
    responses: {
      200: {
        description: 'the records',
        text: {
          mediaTypes: ['application/x-ndjson', 'text/event-stream'],
          description: 'one JSON record a line (docs/auditors.md), or server-sent events of the same',
        },
        headers: {
          'Watchlog-Tree-Size': { description: "the project's tree size now", codec: t.string, required: true },
          'Watchlog-Next-From': { description: 'the `from` of the next page, when there is one', codec: t.string },
          'Cache-Control': { description: 'a live tail: `no-cache`' },
          'X-Accel-Buffering': { description: 'a live tail: `no`, so that proxies pass events on at once' },
        },
      },
    },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/checkpoints/key',
    tag: 'Auditors',
    auth: 'jwt',
    query: NoParameters,
    summary: "The checkpoints' signing key",
    responses: { 200: json('the Ed25519 public key', CheckpointKey) },
  },
  {
    method: 'get',
    path: '/v1/checkpoints/latest',
    tag: 'Auditors',
    auth: 'jwt',
    query: CheckpointQuery,
    summary: 'The latest signed checkpoint',
    description: "404 before the project's first checkpoint (signed within a second of its first record).",
    responses: { 200: json('the checkpoint', LatestCheckpoint) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/proofs/inclusion',
    tag: 'Auditors',
    auth: 'jwt',
    query: InclusionQuery,
    summary: 'An inclusion proof (RFC 9162)',
    description: "That leaf `index` is in the tree of `size` leaves (at most the tree's size).",
    responses: { 200: json('the proof', InclusionProof) },
    errors: [NOT_VISIBLE],
  },
  {
    method: 'get',
    path: '/v1/proofs/consistency',
    tag: 'Auditors',
    auth: 'jwt',
    query: ConsistencyQuery,
    summary: 'A consistency proof (RFC 9162)',
    description: 'That the tree of `to` leaves extends the tree of `from` leaves.',
    responses: { 200: json('the proof', ConsistencyProof) },
    errors: [NOT_VISIBLE],
  },
];
