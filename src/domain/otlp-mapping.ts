import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { AuditEventInput, Environment } from './audit-event.ts';
import { boundedString, closed } from './codecs.ts';
import { describeErrors } from './decode-errors.ts';
import type { ErrorDetail } from './errors.ts';
import { type Attributes, type OtlpSpan, type OtlpTraces, SPAN_KIND_SERVER, STATUS_CODE_ERROR } from './otlp-traces.ts';

/** OTLP trace spans → audit events (docs/otlp.md has the table): each SERVER span with HTTP
 *  semantic-convention attributes, current names first and the older ones (semconv < 1.21)
 *  after, becomes one event; other spans are skipped with a reason. Pure. */

type EnvironmentName = t.TypeOf<typeof Environment>;

export const UnsupportedMethods = t.keyof({ skip: null, nearest: null }, 'skip | nearest');

/** A project's OTLP settings, as a PUT sends them whole and the log records them. */
export const OtlpSettings = t.type(
  {
    /** The span or resource attribute read for `identifier` before `enduser.id`; null: none. */
    identifier_attribute: t.union([boundedString(1, 255), t.null]),
    /** For spans whose `deployment.environment(.name)` is absent or maps to none of the three. */
    default_environment: Environment,
    /** PATCH, HEAD and the rest: skipped, or recorded as the nearest of the four (PATCH as PUT,
     *  HEAD as GET), as the Node SDK's `nearestMethod` does. */
    unsupported_methods: UnsupportedMethods,
  },
  'OTLP settings',
);
export type OtlpSettings = t.TypeOf<typeof OtlpSettings>;

/** The body of `PUT /v1/projects/:id/otlp`: the settings whole, no other field. */
export const OtlpSettingsBody = closed(t.exact(OtlpSettings), 'field', 'OTLP settings');

export const DEFAULT_OTLP_SETTINGS: OtlpSettings = {
  identifier_attribute: null,
  default_environment: 'production',
  unsupported_methods: 'skip',
};

export const otlpEvents = {
  /** The project's OTLP settings from now on, whole. */
  OtlpSettingsSet: t.intersection([OtlpSettings, t.type({ project_id: t.string, updated_at: t.string })]),
} as const;

export const sameOtlpSettings = (a: OtlpSettings, b: OtlpSettings): boolean =>
  a.identifier_attribute === b.identifier_attribute &&
  a.default_environment === b.default_environment &&
  a.unsupported_methods === b.unsupported_methods;

/** The identifier of a span that names no user. */
export const ANONYMOUS = 'anonymous';
/** The service of a resource without `service.name` (what OpenTelemetry SDKs default to). */
export const UNKNOWN_SERVICE = 'unknown_service';

/** Why a span is not recorded: the label of `watchlog_otlp_spans_skipped_total`. */
export type SkipReason = 'not_server' | 'not_http' | 'unsupported_method' | 'no_path';
export const SKIP_REASONS: readonly SkipReason[] = ['not_server', 'not_http', 'unsupported_method', 'no_path'];

/** `deployment.environment(.name)` values, lower-cased, by the environment they map to. */
const ENVIRONMENTS: Readonly<Record<string, EnvironmentName>> = {
  production: 'production',
  prod: 'production',
  prd: 'production',
  live: 'production',
  staging: 'staging',
  stage: 'staging',
  stg: 'staging',
  preprod: 'staging',
  'pre-production': 'staging',
  development: 'development',
  dev: 'development',
  local: 'development',
  test: 'development',
  testing: 'development',
};

export const environmentOf = (value: string | undefined, fallback: EnvironmentName): EnvironmentName =>
  (value !== undefined && Object.hasOwn(ENVIRONMENTS, value.toLowerCase()) && ENVIRONMENTS[value.toLowerCase()]) ||
  fallback;

const text = (attributes: Attributes, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const value = attributes.get(key);
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
};

/** An integer attribute; older instrumentations send some as strings. */
const integer = (attributes: Attributes, ...keys: string[]): number | undefined => {
  for (const key of keys) {
    const value = attributes.get(key);
    if (typeof value === 'number' && Number.isInteger(value)) return value;
    if (typeof value === 'string' && /^\d{1,9}$/.test(value)) return Number(value);
  }
  return undefined;
};

/** A query string as URLSearchParams reads it: a key given once is a string, repeated an array.
 *  Built through a Map, so a key named `__proto__` becomes an own property. */
export const queryParamsOf = (query: string): Record<string, string | string[]> | undefined => {
  const params = new Map<string, string | string[]>();
  for (const [key, value] of new URLSearchParams(query)) {
    const seen = params.get(key);
    params.set(key, seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]);
  }
  return params.size > 0 ? Object.fromEntries(params) : undefined;
};

const methodOf = (raw: string, policy: OtlpSettings['unsupported_methods']): string | null => {
  const method = raw.toUpperCase();
  if (method === 'GET' || method === 'POST' || method === 'PUT' || method === 'DELETE') return method;
  if (policy === 'nearest' && method === 'PATCH') return 'PUT';
  if (policy === 'nearest' && method === 'HEAD') return 'GET';
  return null;
};

const TRACE_ID = /^[0-9a-f]{32}$/;
const SPAN_ID = /^[0-9a-f]{16}$/;
const ZERO = /^0+$/;

/** SPEC 2.1's limits, in UTF-16 units. A span is shaped to fit them as the SDKs shape their
 *  events (packages/conformance): an exporter cannot mend a refused span, so refusing it for a
 *  long route or user id would only lose the request. */
const LIMITS = { path: 255, identifier: 100, serviceName: 255, ip: 64, sessionId: 255 } as const;

/** `s` cut to at most `max` UTF-16 units without splitting a surrogate pair. */
const cut = (s: string, max: number): string => {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
};

export interface MappedSpan {
  readonly input: AuditEventInput;
  /** Trace and span id: a span id is unique within its trace only. */
  readonly idempotencyKey: string;
}

export interface Mapped {
  readonly events: MappedSpan[];
  readonly skipped: Map<SkipReason, number>;
  /** Spans refused, each with what is wrong (paths from the request's root). */
  readonly rejected: ErrorDetail[][];
}

type Resource = { readonly service: string; readonly environment: EnvironmentName; readonly attributes: Attributes };

/** One span: an event, a reason to skip it, or the details of why it is refused. */
const mapSpan = (
  span: OtlpSpan,
  resource: Resource,
  settings: OtlpSettings,
): { event: MappedSpan } | { skip: SkipReason } | { reject: ErrorDetail[] } => {
  if (span.kind !== SPAN_KIND_SERVER) return { skip: 'not_server' };
  const a = span.attributes;
  const rawMethod = text(a, 'http.request.method', 'http.method');
  if (rawMethod === undefined) return { skip: 'not_http' };
  const method = methodOf(rawMethod, settings.unsupported_methods);
  if (method === null) return { skip: 'unsupported_method' };
  const target = text(a, 'http.target');
  const queryStart = target?.indexOf('?') ?? -1;
  const path = text(a, 'http.route', 'url.path') ?? (queryStart >= 0 ? target!.slice(0, queryStart) : target);
  if (path === undefined || path === '') return { skip: 'no_path' };
  const faults: ErrorDetail[] = [];
  if (!TRACE_ID.test(span.traceId) || ZERO.test(span.traceId))
    faults.push({ path: `${span.at}.traceId`, message: 'must be 16 bytes, not all zero' });
  if (!SPAN_ID.test(span.spanId) || ZERO.test(span.spanId))
    faults.push({ path: `${span.at}.spanId`, message: 'must be 8 bytes, not all zero' });
  if (faults.length > 0) return { reject: faults };
  const query = text(a, 'url.query') ?? (queryStart >= 0 ? target!.slice(queryStart + 1) : undefined);
  const identifierFrom = settings.identifier_attribute;
  // An ERROR span may carry neither a message nor an exception event (FastAPI's own tracing,
  // among others): its `error.type` (the exception's class, or the status) still says what failed.
  const failed = span.statusCode === STATUS_CODE_ERROR;
  const error =
    (failed && span.statusMessage !== '' ? span.statusMessage : span.exceptionMessage) ||
    (failed ? (text(a, 'error.type') ?? '') : '');
  const elapsedNs = span.endNs > span.startNs ? span.endNs - span.startNs : 0n;
  const ip = text(a, 'client.address', 'http.client_ip', 'net.sock.peer.addr', 'network.peer.address', 'net.peer.ip');
  const sessionId = text(a, 'session.id');
  const candidate = {
    path: cut(path, LIMITS.path),
    method,
    status_code: integer(a, 'http.response.status_code', 'http.status_code'),
    response_time: Math.round(Number(elapsedNs) / 1e6),
    identifier: cut(
      (identifierFrom === null ? undefined : (text(a, identifierFrom) ?? text(resource.attributes, identifierFrom))) ??
        text(a, 'enduser.id') ??
        ANONYMOUS,
      LIMITS.identifier,
    ),
    service_name: cut(resource.service, LIMITS.serviceName),
    environment: resource.environment,
    request_id: span.traceId,
    // A cut address is a wrong one: left out, as the SDKs leave it.
    ip: ip !== undefined && ip.length <= LIMITS.ip ? ip : undefined,
    user_agent: text(a, 'user_agent.original', 'http.user_agent'),
    query_params: query === undefined ? undefined : queryParamsOf(query),
    session_id: sessionId === undefined ? undefined : cut(sessionId, LIMITS.sessionId),
    error_message: error === '' ? undefined : error,
  };
  const decoded = AuditEventInput.decode(candidate);
  if (isLeft(decoded))
    return { reject: describeErrors(decoded.left).map((d) => ({ ...d, path: `${span.at} (event ${d.path})` })) };
  return { event: { input: decoded.right, idempotencyKey: `otlp-${span.traceId}-${span.spanId}` } };
};

/** Every span of a request, mapped. */
export const mapTraces = (traces: OtlpTraces, settings: OtlpSettings): Mapped => {
  const mapped: Mapped = { events: [], skipped: new Map(), rejected: [] };
  for (const { resource, spans } of traces) {
    const of: Resource = {
      service: text(resource, 'service.name') ?? UNKNOWN_SERVICE,
      environment: environmentOf(
        text(resource, 'deployment.environment.name', 'deployment.environment'),
        settings.default_environment,
      ),
      attributes: resource,
    };
    for (const span of spans) {
      const result = mapSpan(span, of, settings);
      if ('event' in result) mapped.events.push(result.event);
      else if ('skip' in result) mapped.skipped.set(result.skip, (mapped.skipped.get(result.skip) ?? 0) + 1);
      else mapped.rejected.push(result.reject);
    }
  }
  return mapped;
};
