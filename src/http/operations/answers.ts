import * as t from 'io-ts';
import { Email, Role, Uuid, intRange } from '../../domain/codecs.ts';
import { withSchema, type JsonSchema } from '../../domain/json-schema.ts';
import { AuditEventType, Environment, HttpMethod, StoredAuditEvent } from '../../domain/audit-event.ts';
import { KeyScope, RateLimit } from '../../domain/api-keys.ts';
import { AnomalySettings } from '../../domain/anomaly-settings.ts';
import { ChannelCreateInput, ChannelEvents, ProjectScope } from '../../domain/channel.ts';
import { STATUS_CLASSES, type StatusClass, type Statistics as StatisticsType } from '../../domain/stats.ts';
import type { ExplicitSession as ExplicitSessionType } from '../../domain/sessions.ts';
import type { ApiKeyView, ProjectView, UserView } from '../../views/access/port.ts';
import type { AuditListItem as AuditListItemType } from '../../views/audit-events/port.ts';
import type { DerivedSession as DerivedSessionType } from '../../views/derived-sessions/port.ts';
import type { ChannelView } from '../../views/channels/port.ts';
import type { DeliveryView } from '../../views/deliveries/port.ts';
import { ChannelTypeCodec, DeliveryStatus } from '../../domain/delivery.ts';
import type { LatestCheckpoint as LatestCheckpointType } from '../../views/tree/port.ts';

/** Every JSON answer of the API as a codec. The API's description (`GET /v1/openapi.json`) is
 *  generated from them, and the test that drives every endpoint checks each real answer against
 *  it, refusing any field they do not name. Where a route answers with a type of its own (a
 *  read model's view), the check at the end of this file makes `tsc` fail when the two name
 *  different fields. */

/** A string with a JSON Schema of its own (a format, a pattern); a fresh codec each time, since
 *  `withSchema` notes the codec it is given. */
export const text = (name: string, schema: JsonSchema = {}) =>
  withSchema(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string',
      (u, c) => (typeof u === 'string' ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', ...schema },
  );

export const Timestamp = text('an ISO 8601 date-time, UTC', {
  format: 'date-time',
  examples: ['2026-09-01T10:00:03.000Z'],
});
const Base64 = text('base64', { contentEncoding: 'base64' });
export const Count = intRange(0, Number.MAX_SAFE_INTEGER);
export const Fraction = withSchema(
  new t.Type<number, number, unknown>(
    'a fraction from 0 to 1',
    (u): u is number => typeof u === 'number' && u >= 0 && u <= 1,
    (u, c) => (typeof u === 'number' && u >= 0 && u <= 1 ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'number', minimum: 0, maximum: 1 },
);
export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

export const ErrorDetail = t.type({ path: t.string, message: t.string });

/** The codes each error status carries (src/http/middleware/errors.ts, the drain's 503 in
 *  src/server/http-server.ts). */
export const ERROR_CODES = {
  400: ['validation_error', 'invalid_json', 'too_deep', 'bad_request'],
  401: ['unauthorized'],
  403: ['forbidden'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  408: ['request_timeout'],
  409: ['conflict', 'unsupported'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['too_many_requests'],
  500: ['internal_error'],
  503: ['log_unavailable', 'outcome_unknown', 'shutting_down', 'not_yet_visible'],
} as const;
export type ErrorStatus = keyof typeof ERROR_CODES;

/** The one error shape, with the codes of `status`; a 403 to an API key also names the scope
 *  the key lacks. */
export const errorBody = (status: ErrorStatus) => {
  const fields = t.type({
    code: t.keyof(Object.fromEntries(ERROR_CODES[status].map((code) => [code, null])) as Record<string, null>),
    message: t.string,
    details: t.array(ErrorDetail),
  });
  return t.type({
    error: status === 403 ? t.intersection([fields, t.partial({ required_scope: KeyScope })]) : fields,
  });
};

export const Liveness = t.type({ status: t.literal('ok') });

/** Whether a read model is ready: `lag_ms`, how long the oldest event it has not applied has been
 *  in the log (0 when caught up); `position`, its checkpoint; `projector`, whether a live projector
 *  holds its lease (none: no worker runs it). */
const ReadModelReadiness = t.type({ ok: t.boolean, lag_ms: Count, position: nullable(t.string), projector: t.boolean });
const ReadinessChecks = t.type({
  bootstrap: t.type({ ok: t.boolean }),
  log: t.intersection([
    t.type({ ok: t.boolean, head: nullable(t.string) }),
    t.partial({ reason: t.string, since: Timestamp }),
  ]),
  read_models: t.record(t.string, ReadModelReadiness),
});
export const ReadinessAnswer = t.intersection([
  t.type({ status: t.keyof({ ready: null, not_ready: null }) }),
  ReadinessChecks,
]);
/** Whether a request would succeed now, and why not (`GET /readyz`). */
export interface Readiness {
  ready: boolean;
  checks: t.TypeOf<typeof ReadinessChecks>;
}
export type ReadModelReadiness = t.TypeOf<typeof ReadModelReadiness>;

export const Ingested = t.type({ id: Uuid });
export const BatchAnswer = t.type({
  accepted: t.array(t.intersection([t.type({ index: Count, id: Uuid }), t.partial({ replayed: t.literal(true) })])),
  rejected: t.array(t.type({ index: Count, details: t.array(ErrorDetail) })),
});

/** SPEC 2.4. */
export const Pagination = t.type({
  page: intRange(1, Number.MAX_SAFE_INTEGER),
  limit: intRange(1, Number.MAX_SAFE_INTEGER),
  totalItems: Count,
  totalPage: Count,
});
export const pageOf = <C extends t.Mixed>(item: C) => t.type({ data: t.array(item), pagination: Pagination });

/** SPEC 2.2's list item, plus project_id; an absent optional is null. */
export const AuditListItem = t.type({
  id: Uuid,
  project_id: Uuid,
  event_type: AuditEventType,
  method: HttpMethod,
  path: t.string,
  status_code: nullable(Count),
  response_time: nullable(Count),
  identifier: t.string,
  user_email: nullable(t.string),
  service_name: t.string,
  environment: Environment,
  timestamp: Timestamp,
});
export const AnomalyItem = t.intersection([
  AuditListItem,
  t.type({ request_body: nullable(t.UnknownRecord), open: t.boolean }),
]);
export const OrphanItem = t.intersection([AuditListItem, t.type({ request_id: t.string })]);
export const AuditEvent = StoredAuditEvent;

const sessionSummary = {
  identifier: t.string,
  service_name: t.string,
  session_start: Timestamp,
  session_end: Timestamp,
  duration_seconds: Count,
  event_count: Count,
};
export const DerivedSession = t.type({ project_id: Uuid, ...sessionSummary });
export const ExplicitSession = t.type({
  session_id: t.string,
  ...sessionSummary,
  events: t.array(
    t.type({ id: Uuid, method: HttpMethod, path: t.string, status_code: nullable(Count), timestamp: Timestamp }),
  ),
});

const counts = { total: Count, errors_4xx: Count, errors_5xx: Count };
export const Statistics = t.type({
  ...counts,
  avg_response_time: nullable(t.number),
  p95_response_time: nullable(t.number),
  active_services: Count,
  last_event_at: nullable(Timestamp),
  by_service: t.array(
    t.type({
      service_name: t.string,
      ...counts,
      avg_response_time: nullable(t.number),
      p95_response_time: nullable(t.number),
      last_event_at: nullable(Timestamp),
    }),
  ),
  by_status_class: t.partial(
    Object.fromEntries(STATUS_CLASSES.map((c) => [c, Count])) as Record<StatusClass, typeof Count>,
  ),
  by_method: t.record(t.string, Count),
  timeline: t.array(t.type({ bucket: Timestamp, ...counts, avg_response_time: nullable(t.number) })),
});

export const LoginAnswer = t.intersection([
  t.type({ token: text('a JWT (HS256)'), expires_at: Timestamp }),
  t.partial({ session_id: Uuid }),
]);
export const User = t.type({
  id: Uuid,
  email: Email,
  role: Role,
  project_ids: t.array(Uuid),
  disabled: t.boolean,
  tokens_valid_after: nullable(Timestamp),
  created_at: Timestamp,
});
export const Project = t.type({ id: Uuid, name: t.string, created_at: Timestamp });
const keyFields = {
  id: Uuid,
  name: t.string,
  prefix: t.string,
  created_at: Timestamp,
  scopes: t.array(KeyScope),
  expires_at: nullable(Timestamp),
  allowed_origins: t.array(t.string),
  rate_limit: RateLimit,
};
/** `last_used_at` is to the minute: uses are recorded at most once a minute per key. */
export const ApiKey = t.type({
  ...keyFields,
  project_id: Uuid,
  revoked_at: nullable(Timestamp),
  last_used_at: nullable(Timestamp),
});
/** The key itself is shown here only, once. */
export const IssuedApiKey = t.type({ ...keyFields, key: text('the API key: shown once, never again') });

/** Answered when set: by `watchlog apply` (docs/config-file.md). */
export const managedByAnswer = t.partial({
  managed_by: text('who keeps it: "config-file" when `watchlog apply` made it; absent when made by hand'),
});

export const Channel = t.intersection([
  t.type({
    id: Uuid,
    project_id: Uuid,
    type: t.keyof(
      Object.fromEntries(Object.keys(ChannelCreateInput.variants).map((type) => [type, null])) as Record<
        ChannelView['type'],
        null
      >,
    ),
    name: nullable(t.string),
    url: t.string,
    has_secret: t.boolean,
    settings: t.UnknownRecord,
    events: ChannelEvents,
    project_scope: ProjectScope,
    quiet_minutes: Count,
    active: t.boolean,
    deactivated_reason: nullable(t.string),
    degraded: t.boolean,
    degraded_reason: nullable(t.string),
    degraded_since: nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
  managedByAnswer,
]);
/** What a provider said to a test notification (`POST /v1/channels/:id/test`). */
export const TestAnswer = t.type({
  ok: t.boolean,
  status: nullable(intRange(100, 599)),
  response: nullable(t.string),
  error: nullable(t.string),
  duration_ms: Count,
});
export type TestAnswer = t.TypeOf<typeof TestAnswer>;
const DeliveryAttempt = t.type({
  attempt: intRange(1, Number.MAX_SAFE_INTEGER),
  at: Timestamp,
  outcome: t.keyof({ delivered: null, failed: null }),
  status: nullable(intRange(100, 599)),
  error: nullable(t.string),
  response: nullable(t.string),
  duration_ms: Count,
});
export const Delivery = t.type({
  id: Uuid,
  channel_id: Uuid,
  channel_type: ChannelTypeCodec,
  project_id: Uuid,
  event_id: Uuid,
  event_type: t.keyof({
    'monitor.down': null,
    'monitor.up': null,
    'monitor.certificate_expiring': null,
    'anomaly.detected': null,
    'channel.test': null,
  }),
  title: t.string,
  status: DeliveryStatus,
  reason: nullable(t.string),
  attempts: t.array(DeliveryAttempt),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const VapidKey = t.type({ public_key: text('the VAPID public key, URL-safe base64') });

export const AnomalySettingsAnswer = t.intersection([
  t.type({ project_id: Uuid }),
  AnomalySettings,
  t.type({ updated_at: nullable(Timestamp) }),
]);
export type AnomalySettingsAnswer = t.TypeOf<typeof AnomalySettingsAnswer>;
/** `scan_limit_chars`: how many characters of an event's strings the value patterns read (null
 *  without patterns). */
export const MaskingAnswer = t.type({
  project_id: Uuid,
  keys: t.array(t.string),
  patterns: t.array(t.string),
  scan_limit_chars: nullable(Count),
  updated_at: nullable(Timestamp),
});
export type MaskingAnswer = t.TypeOf<typeof MaskingAnswer>;

/** A project's retention: the setting, and what retention and erasure have removed. */
export const RetentionAnswer = t.type({
  project_id: Uuid,
  retention_days: nullable(Count),
  updated_at: nullable(Timestamp),
  last_applied_at: nullable(Timestamp),
  last_cutoff: nullable(Timestamp),
  removed_total: Count,
  erased_total: Count,
});
export type RetentionAnswer = t.TypeOf<typeof RetentionAnswer>;
/** An erasure request and how it went; the identifier is named by its SHA-256 (the POST's answer
 *  also echoes it). `erased` and `erased_at` are null until it is done. */
export const ErasureAnswer = t.intersection([
  t.type({
    id: Uuid,
    project_id: Uuid,
    identifier_sha256: t.string,
    status: t.keyof({ pending: null, done: null }),
    requested_at: Timestamp,
    through_position: t.string,
    fields: t.array(t.string),
    erased: nullable(Count),
    erased_at: nullable(Timestamp),
  }),
  t.partial({ identifier: t.string }),
]);
export type ErasureAnswer = t.TypeOf<typeof ErasureAnswer>;
export const ErasuresAnswer = pageOf(ErasureAnswer);
export type ErasuresAnswer = t.TypeOf<typeof ErasuresAnswer>;

export const CheckpointKey = t.type({
  key_name: t.string,
  key_id: text('the key id, hex', { pattern: '^[0-9a-f]+$' }),
  verifier_key: t.string,
  public_key: Base64,
  public_key_pem: t.string,
});
export const LatestCheckpoint = t.type({
  project_id: Uuid,
  size: Count,
  root: Base64,
  note: text('the signed note (C2SP tlog-checkpoint)'),
  signed_at: Timestamp,
  position: text('a log position', { pattern: '^\\d+$' }),
});
export const InclusionProof = t.type({ index: Count, size: Count, leaf_hash: Base64, proof: t.array(Base64) });
export const ConsistencyProof = t.type({ from: Count, to: Count, proof: t.array(Base64) });

/** The description itself: its top-level keys, the rest as OpenAPI 3.1 has it. */
/** The configuration file's JSON Schema (src/http/openapi/config-schema.ts). */
export const ConfigSchemaAnswer = t.type({
  $schema: t.string,
  $id: t.string,
  title: t.string,
  description: t.string,
  type: t.literal('object'),
  properties: t.UnknownRecord,
  required: t.array(t.string),
  additionalProperties: t.boolean,
});

export const OpenApiDocumentAnswer = t.type({
  openapi: t.literal('3.1.0'),
  info: t.UnknownRecord,
  jsonSchemaDialect: t.string,
  tags: t.UnknownArray,
  paths: t.UnknownRecord,
  components: t.UnknownRecord,
});

/** The field names of a type at every depth, values aside: what a codec and the type a route
 *  answers with must agree on. */
type Fields<T> = T extends readonly (infer I)[]
  ? Fields<I>[]
  : T extends object
    ? { [K in keyof T]-?: Fields<T[K]> }
    : 'value';
export type SameFields<C extends t.Mixed, A> = [Fields<t.TypeOf<C>>] extends [Fields<A>]
  ? [Fields<A>] extends [Fields<t.TypeOf<C>>]
    ? true
    : false
  : false;

true satisfies SameFields<typeof AuditListItem, AuditListItemType>;
true satisfies SameFields<typeof DerivedSession, DerivedSessionType>;
true satisfies SameFields<typeof ExplicitSession, ExplicitSessionType>;
true satisfies SameFields<typeof Statistics, StatisticsType>;
true satisfies SameFields<typeof User, UserView>;
true satisfies SameFields<typeof Project, ProjectView>;
true satisfies SameFields<typeof ApiKey, ApiKeyView>;
true satisfies SameFields<typeof Channel, ChannelView>;
true satisfies SameFields<typeof Delivery, DeliveryView>;
true satisfies SameFields<typeof LatestCheckpoint, LatestCheckpointType>;
