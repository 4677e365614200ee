import * as t from 'io-ts';
import { OtlpSettings, OtlpSettingsBody } from '../../domain/otlp-mapping.ts';
import { jsonObjectCodec } from '../../domain/codecs.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { encodeStatusProto } from '../../domain/otlp-proto.ts';
import type { ErrorEncoder } from '../state.ts';
import { WRITERS } from './common.ts';
import { json, operation } from './operation.ts';

/** OTLP/HTTP trace ingest (docs/otlp.md): OpenTelemetry exporters deliver SERVER spans, each
 *  recorded as an audit event; and each project's settings of that mapping. */

export const OTLP_PROTOBUF = 'application/x-protobuf';

/** The JSON encoding of an ExportTraceServiceRequest, as far as the description goes: the
 *  decoder (src/domain/otlp-json.ts) checks the fields it reads and names each one at fault. */
const ExportTraceServiceRequest = withSchema(jsonObjectCodec('an OTLP ExportTraceServiceRequest'), {
  type: 'object',
  description: 'OTLP/HTTP JSON (opentelemetry-proto collector/trace/v1): `resourceSpans` of `scopeSpans` of `spans`',
  properties: { resourceSpans: { type: 'array', items: { type: 'object' } } },
});

/** `partialSuccess` when spans were refused (its counts as the JSON mapping writes int64: a
 *  string); none: every span was taken (recorded or skipped). */
export const ExportTraceServiceResponse = t.exact(
  t.partial({ partialSuccess: t.type({ rejectedSpans: t.string, errorMessage: t.string }) }),
  'ExportTraceServiceResponse',
);

export const OtlpSettingsAnswer = t.intersection(
  [t.type({ project_id: t.string, updated_at: t.union([t.string, t.null]) }), OtlpSettings],
  'OtlpSettingsAnswer',
);
export type OtlpSettingsAnswer = t.TypeOf<typeof OtlpSettingsAnswer>;

const nowNs = '1767225600000000000';
const traceExample = {
  resourceSpans: [
    {
      resource: {
        attributes: [
          { key: 'service.name', value: { stringValue: 'shop-api' } },
          { key: 'deployment.environment.name', value: { stringValue: 'prod' } },
        ],
      },
      scopeSpans: [
        {
          scope: { name: '@opentelemetry/instrumentation-http' },
          spans: [
            {
              traceId: '5b8efff798038103d269b633813fc60c',
              spanId: 'eee19b7ec3c1b174',
              name: 'GET /orders/:id',
              kind: 2,
              startTimeUnixNano: nowNs,
              endTimeUnixNano: '1767225600042000000',
              attributes: [
                { key: 'http.request.method', value: { stringValue: 'GET' } },
                { key: 'http.route', value: { stringValue: '/orders/:id' } },
                { key: 'http.response.status_code', value: { intValue: '200' } },
                { key: 'enduser.id', value: { stringValue: 'user-42' } },
              ],
              status: {},
            },
          ],
        },
      ],
    },
  ],
};

/** gRPC status codes by HTTP status, for the `code` of a Status (OTLP/HTTP leaves the choice). */
const GRPC_CODES: Readonly<Record<number, number>> = {
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  403: 7, // PERMISSION_DENIED
  404: 5, // NOT_FOUND
  408: 4, // DEADLINE_EXCEEDED
  413: 3,
  415: 3,
  429: 8, // RESOURCE_EXHAUSTED
  503: 14, // UNAVAILABLE
};

/** OTLP/HTTP: a protobuf request's errors are a protobuf `google.rpc.Status`, its message the
 *  JSON shape's code and message (which name the fields at fault); a JSON request keeps the one
 *  JSON shape, which OTLP clients log as they would a JSON Status. */
const otlpErrorBody: ErrorEncoder = (ctx, status, error) =>
  ctx.get('content-type').toLowerCase().split(';')[0]!.trim() === OTLP_PROTOBUF
    ? { type: OTLP_PROTOBUF, body: encodeStatusProto(GRPC_CODES[status] ?? 13, `${error.code}: ${error.message}`) }
    : null;

export const otlpOperations = {
  traces: operation({
    method: 'post',
    path: '/v1/otlp/v1/traces',
    tag: 'Ingest',
    auth: 'api-key',
    keyScope: 'ingest',
    ignoresQuery: true,
    summary: 'OTLP/HTTP traces',
    description:
      'OpenTelemetry exporters with `OTEL_EXPORTER_OTLP_ENDPOINT=<watchlog>/v1/otlp` and ' +
      '`OTEL_EXPORTER_OTLP_HEADERS=x-api-key=<key>`: protobuf or JSON, plain or `Content-Encoding: gzip`. ' +
      'Each SERVER span with HTTP attributes is one audit event, masked like any other, its trace and ' +
      'span ids its idempotency key (a retried export stores nothing twice); other spans are skipped and ' +
      "counted. The answer is in the request's encoding; spans refused are counted in `partialSuccess`. " +
      'A body that cannot be decoded is 400 naming the fields at fault. Errors of a protobuf request ' +
      'are a protobuf `google.rpc.Status` (its message: the code and message below). See docs/otlp.md.',
    body: {
      what: 'OTLP export',
      codec: ExportTraceServiceRequest,
      mediaTypes: ['application/json', OTLP_PROTOBUF],
      readBy: 'handler',
      example: traceExample,
    },
    responses: {
      200: {
        ...json('every span taken, or `partialSuccess` counting those refused', ExportTraceServiceResponse, {}),
        text: { mediaTypes: [OTLP_PROTOBUF], description: 'ExportTraceServiceResponse, protobuf' },
      },
    },
    errors: [429, 503],
    errorBody: otlpErrorBody,
  }),
  getSettings: operation({
    method: 'get',
    path: '/v1/projects/:id/otlp',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    summary: 'OTLP settings',
    description: "How the project's OTLP spans become events (docs/otlp.md); the defaults until set.",
    responses: { 200: json('the settings', OtlpSettingsAnswer) },
  }),
  setSettings: operation({
    method: 'put',
    path: '/v1/projects/:id/otlp',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    roles: WRITERS,
    summary: 'Replace OTLP settings',
    description:
      'The attribute read for `identifier` before `enduser.id`, the environment of spans whose ' +
      '`deployment.environment.name` maps to none, and what becomes of methods SPEC does not take ' +
      '(`skip`, or `nearest`: PATCH as PUT, HEAD as GET). Applied to ingest within a second.',
    body: {
      what: 'OTLP settings',
      codec: OtlpSettingsBody,
      example: { identifier_attribute: 'app.user_id', default_environment: 'staging', unsupported_methods: 'nearest' },
    },
    responses: { 200: json('the settings', OtlpSettingsAnswer) },
  }),
};
