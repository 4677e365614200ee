import type * as t from 'io-ts';
import { StatusPageCreateInput, StatusPageUpdateInput } from '../../domain/status-page.ts';
import { IncidentCreateInput, IncidentUpdateInput } from '../../domain/incident.ts';
import { MaintenanceCreateInput, MaintenanceUpdateInput } from '../../domain/maintenance.ts';
import { Incident, Maintenance, StatusPage } from '../operations/status-answers.ts';
import { Uuid } from '../../domain/codecs.ts';
import { AuditEventInput } from '../../domain/audit-event.ts';
import { AnomalySettingsPatch } from '../../domain/anomaly-settings.ts';
import { ChannelCreateInput, ChannelUpdateInput } from '../../domain/channel.ts';
import { MaskingRulesBody } from '../../domain/masking-rules.ts';
import { MonitorCreateInput, MonitorUpdateInput } from '../../domain/monitor-input.ts';
import type { JsonSchema } from '../../domain/json-schema.ts';
import {
  AnomalySettingsAnswer,
  ApiKey,
  AuditEvent,
  AuditListItem,
  Channel,
  DerivedSession,
  ErrorDetail,
  ExplicitSession,
  MaskingAnswer,
  Pagination,
  Project,
  Statistics,
  User,
  errorBody,
  type ErrorStatus,
} from '../operations/answers.ts';
import { Check, Monitor } from '../operations/monitor-answers.ts';
import { jsonSchemaOf, type SchemaOptions } from './schema.ts';
import type { AnyOperation, Answer, Header, Table } from '../operations/operation.ts';
import { ERRORS, validationExample } from './errors.ts';
import { DASHBOARD_PAGES, type Described } from './pages.ts';

/** The OpenAPI 3.1 document of the API, from the operation table (src/http/operations/) and the
 *  codecs they name. Pure: the same options give the same document. */

export interface DocumentOptions {
  /** Whether this app serves the dashboard (`/`, `/docs`) and `GET /metrics`. */
  readonly dashboard: boolean;
  readonly metrics: boolean;
}

export type OpenApiDocument = {
  openapi: '3.1.0';
  info: Record<string, unknown>;
  jsonSchemaDialect: string;
  tags: Array<{ name: string; description: string }>;
  paths: Record<string, Record<string, OperationObject>>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, ResponseObject>;
    headers: Record<string, HeaderObject>;
    securitySchemes: Record<string, Record<string, string>>;
  };
};

interface HeaderObject {
  description: string;
  required?: boolean;
  schema: JsonSchema;
}
type HeaderOrRef = HeaderObject | { $ref: string };
interface MediaType {
  schema: JsonSchema;
  example?: unknown;
}
interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderOrRef>;
  content?: Record<string, MediaType>;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}
interface OperationObject {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required: true; description?: string; content: Record<string, MediaType> };
  responses: Record<string, ResponseObject | { $ref: string }>;
}

/** Answers shared by many operations, described once under `components.schemas`. */
const ANSWERS = new Map<t.Mixed, string>([
  [AuditEvent, 'AuditEvent'],
  [AuditListItem, 'AuditListItem'],
  [Pagination, 'Pagination'],
  [DerivedSession, 'DerivedSession'],
  [ExplicitSession, 'ExplicitSession'],
  [Statistics, 'Statistics'],
  [User, 'User'],
  [Project, 'Project'],
  [ApiKey, 'ApiKey'],
  [Monitor, 'Monitor'],
  [Check, 'Check'],
  [Channel, 'Channel'],
  [StatusPage, 'StatusPage'],
  [Incident, 'Incident'],
  [Maintenance, 'Maintenance'],
  [AnomalySettingsAnswer, 'AnomalySettings'],
  [MaskingAnswer, 'MaskingRules'],
  [ErrorDetail, 'ErrorDetail'],
]);
/** Request bodies a client generator should name. */
const BODIES = new Map<t.Mixed, string>([
  [AuditEventInput, 'AuditEventInput'],
  [MonitorCreateInput, 'MonitorCreate'],
  [MonitorUpdateInput, 'MonitorUpdate'],
  [ChannelCreateInput, 'ChannelCreate'],
  [ChannelUpdateInput, 'ChannelUpdate'],
  [StatusPageCreateInput, 'StatusPageCreate'],
  [StatusPageUpdateInput, 'StatusPageUpdate'],
  [IncidentCreateInput, 'IncidentCreate'],
  [IncidentUpdateInput, 'IncidentUpdate'],
  [MaintenanceCreateInput, 'MaintenanceCreate'],
  [MaintenanceUpdateInput, 'MaintenanceUpdate'],
  [AnomalySettingsPatch, 'AnomalySettingsPatch'],
  [MaskingRulesBody, 'MaskingRulesUpdate'],
]);
const answers: SchemaOptions = { named: ANSWERS };
const requests: SchemaOptions = { named: BODIES };

const TAGS = [
  { name: 'Ingest', description: "Events sent by applications (SDKs), with a project's API key." },
  { name: 'Events', description: 'Stored events: lists, statistics, sessions, anomalies, orphans, export.' },
  { name: 'Accounts', description: 'Login, the caller, users and their roles.' },
  { name: 'Sign-in', description: 'Finishing a sign-in with a second factor, or with a passkey alone.' },
  {
    name: 'Second factors',
    description: "The caller's authenticator app, recovery codes and passkeys; the deployment's policy.",
  },
  { name: 'Projects', description: 'Projects, their API keys, anomaly settings and masking rules.' },
  { name: 'Monitors', description: 'Uptime checks of URLs.' },
  { name: 'Notifications', description: 'Where monitor transitions and anomaly alerts are sent.' },
  { name: 'Sinks', description: "Where a project's audit records are forwarded (SIEM)." },
  { name: 'Single sign-on', description: 'OpenID Connect providers and their redirect flow.' },
  {
    name: 'Sessions',
    description: "Sign-in sessions: the dashboard's refresh, signing out, seeing and ending sessions.",
  },
  {
    name: 'Auditors',
    description: 'The tamper-evident log: records, signed checkpoints, Merkle proofs (docs/auditors.md).',
  },
  {
    name: 'Status pages',
    description: 'Status pages, incidents and maintenance windows: what a team shows its users (docs/status-pages.md).',
  },
  {
    name: 'Public status pages',
    description: 'The published pages, their summary.json and Atom feed, and badges: no authentication.',
  },
  { name: 'Operations', description: 'Health, readiness and metrics.' },
  { name: 'Reference', description: 'This description.' },
  { name: 'Dashboard', description: 'The web dashboard, served by the API process.' },
];

const INFO_DESCRIPTION = [
  'Self-hosted audit logging and uptime monitoring.',
  '',
  "- **Authentication**: ingest takes a project's API key (`X-API-Key`); every other `/v1` endpoint but login " +
    'a token from `POST /v1/auth/login` (`Authorization: Bearer <token>`), or where its security names an ' +
    '`apiKey` scope, a key with that scope (its own project only). A key elsewhere is 403 (`required_scope`).',
  '- **Errors** have one shape, `{ "error": { "code", "message", "details": [{ "path", "message" }] } }`; ' +
    'each status lists its codes.',
  '- **Unknown names are refused**: an unknown query parameter is 400 on every endpoint (but `/healthz`), ' +
    'and so is an unknown body field outside ingest.',
  '- A project the caller may not see answers **404**, as an unknown one does, `project_id` filters included.',
  '- **HEAD** works wherever GET does; a path served with another method is **405** with `Allow`, and ' +
    '`OPTIONS` on it 204 with `Allow`.',
  "- Every answer carries **`X-Request-Id`**: the request's own (1–128 letters, digits, `_.:-`) or a new UUID.",
  '- Changes answer once the read model shows them (read-your-writes); ingest does not wait.',
].join('\n');

const SECURITY: Record<AnyOperation['auth'], Array<Record<string, string[]>> | undefined> = {
  none: undefined,
  jwt: [{ bearerAuth: [] }],
  'api-key': [{ apiKey: [] }],
  'api-key-or-query': [{ apiKey: [] }, { apiKeyQuery: [] }],
  'metrics-token': [{ metricsToken: [] }],
};

/** OpenAPI 3.1 lets an API key scheme name the roles it needs: here, the key's scope. */
const securityOf = ({ auth, keyScope }: Described): Array<Record<string, string[]>> | undefined => {
  if (keyScope === undefined) return SECURITY[auth];
  if (auth === 'jwt') return [{ bearerAuth: [] }, { apiKey: [keyScope] }];
  return SECURITY[auth]?.map((scheme) => Object.fromEntries(Object.keys(scheme).map((name) => [name, [keyScope]])));
};

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const pathParamsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/** `GET /v1/monitors/:id/history` → `getMonitorsByIdHistory`. */
const operationIdOf = (op: Described): string => {
  const words = op.path
    .split('/')
    .filter((s) => s !== '' && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `by_${s.slice(1)}` : s));
  const camel = words
    .flatMap((w) => w.split(/[^A-Za-z0-9]+/))
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
  return op.method + (camel || 'Root');
};

/** The error statuses an operation answers: its own, and those its auth, roles, parameters and
 *  body imply. */
export const errorStatusesOf = (op: Described): ErrorStatus[] => {
  const statuses = new Set<number>([...(op.errors ?? []), 500, 503]);
  if (!op.ignoresQuery || op.body !== undefined) statuses.add(400);
  if (op.body !== undefined) for (const s of [408, 413, 415]) statuses.add(s);
  if (pathParamsOf(op.path).length > 0) statuses.add(404);
  if (op.auth !== 'none') statuses.add(401);
  // A signed-in operation refuses an API key without the scope it takes.
  if (op.auth === 'api-key' || op.auth === 'api-key-or-query' || op.auth === 'jwt' || op.roles !== undefined)
    statuses.add(403);
  return [...statuses].sort((a, b) => a - b).filter((s): s is ErrorStatus => s in ERRORS);
};

const headerObject = (h: Header, options: SchemaOptions): HeaderObject => ({
  description: h.description,
  ...(h.required ? { required: true } : {}),
  schema: h.codec ? jsonSchemaOf(h.codec, options) : { type: 'string' },
});

/** Request media types that are bytes, not JSON. */
const BINARY = new Set(['application/x-protobuf']);

const REQUEST_ID: HeaderOrRef = { $ref: '#/components/headers/X-Request-Id' };

const responseObject = (answer: Answer): ResponseObject => {
  const content: Record<string, MediaType> = {};
  if (answer.json)
    content['application/json'] = {
      schema: jsonSchemaOf(answer.json, answers),
      ...(answer.example === undefined ? {} : { example: answer.example }),
    };
  for (const mediaType of answer.text?.mediaTypes ?? [])
    content[mediaType] = { schema: { type: 'string', description: answer.text!.description } };
  return {
    description: answer.description,
    headers: {
      'X-Request-Id': REQUEST_ID,
      ...Object.fromEntries(Object.entries(answer.headers ?? {}).map(([name, h]) => [name, headerObject(h, answers)])),
    },
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
};

/** Query parameters: the properties of the query codec's (object) schema. The API key a batch
 *  may carry as `api_key` is a security scheme, not a parameter. */
const queryParameters = (op: Described): Parameter[] => {
  if (op.query === undefined) return [];
  const schema = jsonSchemaOf(op.query, requests);
  if (schema.type !== 'object' || schema.properties === undefined)
    throw new Error(`${op.method} ${op.path}: the query codec is not an object of parameters`);
  return Object.entries(schema.properties)
    .filter(([name]) => !(op.auth === 'api-key-or-query' && name === 'api_key'))
    .map(([name, s]) => ({
      name,
      in: 'query' as const,
      required: schema.required?.includes(name) ?? false,
      schema: s,
    }));
};

const operationObject = (op: Described): OperationObject => {
  const parameters: Parameter[] = [
    ...pathParamsOf(op.path).map((name) => ({
      name,
      in: 'path' as const,
      required: true,
      schema: jsonSchemaOf(op.params?.[name]?.codec ?? Uuid, requests),
    })),
    ...queryParameters(op),
    ...Object.entries(op.headers ?? {}).map(([name, h]) => ({
      name,
      in: 'header' as const,
      required: false,
      description: h.description,
      schema: h.codec ? jsonSchemaOf(h.codec, requests) : ({ type: 'string' } as JsonSchema),
    })),
  ];
  const roles = op.roles === undefined || op.orSelf ? '' : `Roles: ${op.roles.join(', ')}.`;
  const description = [op.description, roles].filter(Boolean).join('\n\n');
  const security = securityOf(op);
  const responses: OperationObject['responses'] = Object.fromEntries(
    Object.entries(op.responses).map(([status, answer]) => [status, responseObject(answer)]),
  );
  for (const status of errorStatusesOf(op))
    responses[String(status)] ??= { $ref: `#/components/responses/${ERRORS[status].name}` };
  return {
    operationId: operationIdOf(op),
    tags: [op.tag],
    summary: op.summary,
    ...(description === '' ? {} : { description }),
    ...(security === undefined ? {} : { security }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.body === undefined
      ? {}
      : {
          requestBody: {
            required: true as const,
            ...(op.body.description === undefined ? {} : { description: op.body.description }),
            content: Object.fromEntries(
              (op.body.mediaTypes ?? ['application/json']).map((mediaType) => [
                mediaType,
                // A binary encoding (OTLP's protobuf) has no JSON schema.
                BINARY.has(mediaType)
                  ? { schema: { type: 'string', format: 'binary' } }
                  : {
                      schema: jsonSchemaOf(op.body!.codec, requests),
                      ...(op.body!.example === undefined ? {} : { example: op.body!.example }),
                    },
              ]),
            ),
          },
        }),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
};

/** The operations this app serves, as the description lists them. */
export const servedOperations = (table: Table, options: DocumentOptions): readonly Described[] => {
  const ops = Object.values(table).flatMap((group) => Object.values(group));
  const served = ops.filter((op) => op.servedBy !== 'metrics' || options.metrics);
  // The pages come after the service's own operations (health, metrics, this description).
  const firstApi = served.findIndex((op) => op.path.startsWith('/v1/') && op.path !== '/v1/openapi.json');
  return options.dashboard ? [...served.slice(0, firstApi), ...DASHBOARD_PAGES, ...served.slice(firstApi)] : served;
};

export const openApiDocument = (table: Table, options: DocumentOptions): OpenApiDocument => {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of servedOperations(table, options)) {
    const path = openApiPath(op.path);
    paths[path] ??= {};
    const operationsOfPath = paths[path];
    const name = `${op.method.toUpperCase()} ${op.path}`;
    if (operationsOfPath[op.method] !== undefined) throw new Error(`${name} is described twice`);
    try {
      operationsOfPath[op.method] = operationObject(op);
    } catch (error) {
      throw new Error(`${name}: ${(error as Error).message}`, { cause: error });
    }
  }
  const schemas = Object.fromEntries(
    [
      ...[...ANSWERS].map(([codec, name]) => [name, jsonSchemaOf(codec, answers, true)] as const),
      ...[...BODIES].map(([codec, name]) => [name, jsonSchemaOf(codec, requests, true)] as const),
    ].sort(([a], [b]) => a.localeCompare(b)),
  );
  const responses = Object.fromEntries(
    Object.entries(ERRORS).map(([status, e]) => [
      e.name,
      {
        description: e.description,
        headers: {
          'X-Request-Id': REQUEST_ID,
          ...Object.fromEntries(Object.entries(e.headers ?? {}).map(([name, h]) => [name, headerObject(h, answers)])),
        },
        content: {
          'application/json': {
            schema: jsonSchemaOf(errorBody(Number(status) as ErrorStatus), answers),
            ...(status === '400' ? { example: validationExample } : {}),
          },
        },
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    info: {
      title: 'watchlog',
      version: '1',
      description: INFO_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: TAGS.filter((tag) =>
      Object.values(paths).some((ops) => Object.values(ops).some((o) => o.tags.includes(tag.name))),
    ),
    paths,
    components: {
      schemas,
      responses,
      headers: {
        'X-Request-Id': {
          description:
            "The request's id: its own `X-Request-Id`, or a new UUID; the `correlation_id` of the events it records.",
          required: true,
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token from `POST /v1/auth/login`.',
        },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: "A project's API key (`POST /v1/projects/{id}/api-keys`).",
        },
        apiKeyQuery: {
          type: 'apiKey',
          in: 'query',
          name: 'api_key',
          description: 'The API key as a parameter, for `navigator.sendBeacon` (batch ingest only).',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: '`WATCHLOG_METRICS_TOKEN`.' },
      },
    },
  };
};
