import * as t from 'io-ts';
import { boundedString, intRange, JsonObject } from './codecs.ts';

/** SPEC 2.1: the ingest payload. Unknown fields are dropped (t.exact); `null` on an optional
 *  field means "absent", since SDKs in several languages serialise missing values as null.
 *  Absent fields may decode to `undefined` keys, which JSON serialisation drops. */

export const HttpMethod = t.keyof({ GET: null, POST: null, PUT: null, DELETE: null }, 'GET | POST | PUT | DELETE');
export const Environment = t.keyof(
  { production: null, staging: null, development: null },
  'production | staging | development',
);

export const Source = t.keyof({ backend: null, browser: null }, 'backend | browser');

/** The catalogue of audit events' `event_type`, by name: what recorded the event. Ingest records
 *  `http`; the service records the rest in the same list (SPEC 6): its own access and changes
 *  (`system.access`), monitor transitions (`system.healthcheck.down`, `system.healthcheck.up`),
 *  anomaly alerts (`system.alert`) and maintenance windows opening and closing
 *  (`system.maintenance.started`, `system.maintenance.ended`). */
export const AUDIT_EVENT_TYPE = {
  http: 'http',
  alert: 'system.alert',
  healthcheckDown: 'system.healthcheck.down',
  healthcheckUp: 'system.healthcheck.up',
  certificateExpiring: 'system.healthcheck.certificate_expiring',
  access: 'system.access',
  maintenanceStarted: 'system.maintenance.started',
  maintenanceEnded: 'system.maintenance.ended',
} as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPE)[keyof typeof AUDIT_EVENT_TYPE];
/** Every `event_type`, in the catalogue's order. */
export const AUDIT_EVENT_TYPES: readonly AuditEventType[] = Object.values(AUDIT_EVENT_TYPE);
export const AuditEventType = t.keyof(
  Object.fromEntries(AUDIT_EVENT_TYPES.map((type) => [type, null])) as Record<AuditEventType, null>,
  AUDIT_EVENT_TYPES.join(' | '),
);

/** Absent, null (decoded as absent), or a valid value. Unlike a union it builds no failure for
 *  an absent field, which matters on the ingest path where most optional fields are absent. */
const optional = <A, O>(codec: t.Type<A, O, unknown>) =>
  Object.assign(
    new t.Type<A | undefined, O | undefined, unknown>(
      codec.name,
      (u): u is A | undefined => u === undefined || codec.is(u),
      (u, c) => (u === undefined || u === null ? t.success(undefined) : codec.validate(u, c)),
      (a) => (a === undefined ? undefined : codec.encode(a)),
    ),
    // Validation messages describe the wrapped codec's rule.
    { _tag: 'OptionalType' as const, type: codec },
  );

const requiredFields = {
  path: boundedString(1, 255),
  method: HttpMethod,
  identifier: boundedString(1, 100),
  service_name: boundedString(1, 255),
  environment: Environment,
};

const optionalFields = {
  status_code: optional(intRange(100, 599)),
  response_time: optional(intRange(0, Number.MAX_SAFE_INTEGER)),
  user_email: optional(boundedString(0, 320)),
  user_name: optional(t.string),
  user_roles: optional(t.array(t.string)),
  user_type: optional(t.string),
  tenant_id: optional(t.string),
  ip: optional(boundedString(0, 64)),
  user_agent: optional(t.string),
  request_id: optional(boundedString(0, 255)),
  query_params: optional(JsonObject),
  path_params: optional(JsonObject),
  request_body: optional(JsonObject),
  response_body: optional(JsonObject),
  error_message: optional(t.string),
  session_id: optional(boundedString(0, 255)),
  source: optional(Source),
};

export const AuditEventInput = t.exact(
  t.intersection([t.type(requiredFields), t.partial(optionalFields)]),
  'an audit event',
);
export type AuditEventInput = t.TypeOf<typeof AuditEventInput>;

/** The stored event: the input (masked) plus what the service assigns. Absent optionals are omitted. */
export const StoredAuditEvent = t.intersection(
  [
    t.type({
      id: t.string,
      project_id: t.string,
      event_type: AuditEventType,
      timestamp: t.string,
      path: t.string,
      method: t.string,
      identifier: t.string,
      service_name: t.string,
      environment: t.string,
      source: Source,
    }),
    t.partial({
      status_code: t.number,
      response_time: t.number,
      user_email: t.string,
      user_name: t.string,
      user_roles: t.array(t.string),
      user_type: t.string,
      tenant_id: t.string,
      ip: t.string,
      user_agent: t.string,
      request_id: t.string,
      query_params: JsonObject,
      path_params: JsonObject,
      request_body: JsonObject,
      response_body: JsonObject,
      error_message: t.string,
      session_id: t.string,
    }),
  ],
  'StoredAuditEvent',
);
export type StoredAuditEvent = t.TypeOf<typeof StoredAuditEvent>;
