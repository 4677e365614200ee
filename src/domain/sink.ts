import * as t from 'io-ts';
import { AuditEventType, type StoredAuditEvent } from './audit-event.ts';
import { boundedString, closed, discriminated, intRange } from './codecs.ts';
import { MonitorUrl } from './monitor.ts';

/** Log sinks (SIEM forwarding, docs/sinks.md): where a project's audit records are pushed, in
 *  log order, at least once. Here: what the API accepts for each sink type, what the log keeps,
 *  what answers show of it (never a secret), and which records a sink takes. */

export const SINK_TYPES = ['http', 'splunk_hec', 'elastic', 'datadog', 'syslog', 'otlp_logs'] as const;
export type SinkType = (typeof SINK_TYPES)[number];

/** Datadog's logs intake (US1); another site's intake is given as `url`. */
export const DATADOG_INTAKE_URL = 'https://http-intake.logs.datadoghq.com/api/v2/logs';
/** RFC 5425's port for syslog over TLS, and RFC 6587's customary one for plain TCP. */
export const SYSLOG_TLS_PORT = 6514;
export const SYSLOG_TCP_PORT = 601;
/** How sinks forward: records per request, the backoff between failed tries (doubling from
 *  `backoffMinMs` up to `backoffMaxMs`, each wait drawn between half and all of it), failed tries
 *  in a row before a sink is `degraded`, and each try's time limit. */
export interface SinkTuning {
  batchSize: number;
  backoffMinMs: number;
  backoffMaxMs: number;
  degradedAfter: number;
  timeoutMs: number;
}
export const DEFAULT_SINK_TUNING: SinkTuning = {
  batchSize: 500,
  backoffMinMs: 500,
  backoffMaxMs: 60_000,
  degradedAfter: 5,
  timeoutMs: 10_000,
};

/** Shown in place of every secret. */
export const MASKED = '********';

const names = boundedString(1, 200);
/** Empty or absent: every value. */
export const SinkFilter = closed(
  t.exact(t.partial({ event_type: t.array(AuditEventType), service_name: t.array(names) })),
  'field',
  'a sink filter',
);
export type SinkFilter = t.TypeOf<typeof SinkFilter>;

const Secret = boundedString(1, 1024);

const optional = t.partial({ name: boundedString(1, 100), active: t.boolean, filter: SinkFilter });
const variant = <L extends string, P extends t.Props, O extends t.Props>(type: L, required: P, extra: O) =>
  closed(t.exact(t.intersection([t.type({ type: t.literal(type), ...required }), t.partial(extra), optional])));

/** One input shape per sink type, chosen by `type`; unknown fields are refused. */
export const SinkCreateInput = discriminated(
  'type',
  {
    http: variant('http', { url: MonitorUrl }, { secret: boundedString(8, 256) }),
    splunk_hec: variant(
      'splunk_hec',
      { url: MonitorUrl, token: Secret },
      { index: names, source: names, sourcetype: names },
    ),
    elastic: variant(
      'elastic',
      { url: MonitorUrl, index: names },
      { api_key: Secret, username: names, password: Secret },
    ),
    datadog: variant('datadog', { api_key: Secret }, { url: MonitorUrl, service: names, tags: t.array(names) }),
    syslog: variant(
      'syslog',
      { host: boundedString(1, 253) },
      {
        port: intRange(1, 65_535),
        tls: t.boolean,
        ca: boundedString(1, 20_000),
        reject_unauthorized: t.boolean,
        app_name: boundedString(1, 48),
      },
    ),
    otlp_logs: variant('otlp_logs', { url: MonitorUrl }, { headers: t.record(t.string, Secret) }),
  },
  'a sink',
);
export type SinkCreateInput = t.TypeOf<typeof SinkCreateInput>;

const Changes = t.partial({ name: t.union([t.null, boundedString(1, 100)]), active: t.boolean, filter: SinkFilter });
export const SinkUpdateInput = closed(t.exact(Changes), 'field', 'a sink update');
export type SinkUpdateInput = t.TypeOf<typeof SinkUpdateInput>;

/** What delivery needs, secrets included: kept in the log and the read store, never answered.
 *  Defaults are filled in when the sink is created. */
const Target = t.union([
  t.intersection([t.type({ type: t.literal('http'), url: t.string }), t.partial({ secret: t.string })]),
  t.intersection([
    t.type({ type: t.literal('splunk_hec'), url: t.string, token: t.string }),
    t.partial({ index: t.string, source: t.string, sourcetype: t.string }),
  ]),
  t.intersection([
    t.type({ type: t.literal('elastic'), url: t.string, index: t.string }),
    t.partial({ api_key: t.string, username: t.string, password: t.string }),
  ]),
  t.intersection([
    t.type({ type: t.literal('datadog'), url: t.string, api_key: t.string }),
    t.partial({ service: t.string, tags: t.array(t.string) }),
  ]),
  t.intersection([
    t.type({
      type: t.literal('syslog'),
      host: t.string,
      port: t.number,
      tls: t.boolean,
      reject_unauthorized: t.boolean,
      app_name: t.string,
    }),
    t.partial({ ca: t.string }),
  ]),
  t.intersection([
    t.type({ type: t.literal('otlp_logs'), url: t.string }),
    t.partial({ headers: t.record(t.string, t.string) }),
  ]),
]);
export type SinkTarget = t.TypeOf<typeof Target>;

/** The sink's target from the input, with each default filled in. */
export const sinkTargetOf = (input: SinkCreateInput): SinkTarget => {
  const { name: _n, active: _a, filter: _f, ...target } = input;
  switch (target.type) {
    case 'datadog':
      return { ...target, url: target.url ?? DATADOG_INTAKE_URL };
    case 'syslog': {
      const tls = target.tls ?? false;
      return {
        ...target,
        tls,
        port: target.port ?? (tls ? SYSLOG_TLS_PORT : SYSLOG_TCP_PORT),
        reject_unauthorized: target.reject_unauthorized ?? true,
        app_name: target.app_name ?? 'watchlog',
      };
    }
    default:
      return target;
  }
};

const SECRET_FIELDS = new Set(['secret', 'token', 'api_key', 'password']);

/** The target as answers show it: every secret (and every OTLP header's value) as `********`. */
export const publicSettingsOf = (target: SinkTarget): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(target)
      .filter(([key]) => key !== 'type')
      .map(([key, value]) => [
        key,
        SECRET_FIELDS.has(key)
          ? MASKED
          : key === 'headers' && typeof value === 'object' && value !== null
            ? Object.fromEntries(Object.keys(value).map((h) => [h, MASKED]))
            : value,
      ]),
  );

/** Where a sink connects, by field, for the egress policy's check when it is saved; a syslog
 *  host is read as an http URL of that host, as the policy reads e-mail channels' servers. */
export const sinkDestinationsOf = (input: SinkCreateInput): Array<{ path: string; url: string }> =>
  input.type === 'syslog'
    ? [{ path: 'host', url: `http://${input.host.includes(':') ? `[${input.host}]` : input.host}/` }]
    : input.url === undefined
      ? []
      : [{ path: 'url', url: input.url }];

/** Whether a sink with `filter` takes `record`. */
export const sinkTakes = (filter: SinkFilter, record: Pick<StoredAuditEvent, 'event_type' | 'service_name'>) =>
  (filter.event_type === undefined ||
    filter.event_type.length === 0 ||
    filter.event_type.includes(record.event_type)) &&
  (filter.service_name === undefined ||
    filter.service_name.length === 0 ||
    filter.service_name.includes(record.service_name));

export const sinkEvents = {
  SinkCreated: t.type({
    sink_id: t.string,
    project_id: t.string,
    target: Target,
    name: t.union([t.null, t.string]),
    active: t.boolean,
    filter: t.exact(t.partial({ event_type: t.array(t.string), service_name: t.array(t.string) })),
    created_at: t.string,
  }),
  SinkUpdated: t.type({ sink_id: t.string, project_id: t.string, changes: t.exact(Changes), updated_at: t.string }),
  SinkDeleted: t.type({ sink_id: t.string, project_id: t.string, deleted_at: t.string }),
  /** Forwarding kept failing: the sink keeps trying, and people are told. */
  SinkDegraded: t.type({
    sink_id: t.string,
    project_id: t.string,
    failures: t.number,
    reason: t.string,
    degraded_at: t.string,
  }),
  /** A batch got through again. */
  SinkRecovered: t.type({ sink_id: t.string, project_id: t.string, recovered_at: t.string }),
} as const;
