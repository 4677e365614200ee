import { type Check, type Monitor, type MonitorCreate, type Verbatim, verbatim } from '../../api.ts';

/** The monitor form's state as text (what the reader typed), and the bodies of POST and PUT made
 *  from it. Pure: the components are in this folder. */

export type Kind = Monitor['type'];
export type Method = NonNullable<Monitor['method']>;
export type RecordType = NonNullable<Monitor['record_type']>;
type Answered = NonNullable<Check['assertions']>[number];
export type Source = Answered['source'];
export type Op = Answered['op'];
/** An assertion as the monitor keeps it (its verdict's fields aside). */
export type Assertion = Pick<Answered, 'source' | 'op' | 'path' | 'value'>;

export const KINDS: Array<[Kind, string]> = [
  ['http', 'HTTP(S) request'],
  ['tcp', 'TCP port'],
  ['dns', 'DNS record'],
  ['heartbeat', 'Heartbeat (the job calls watchlog)'],
];
export const METHODS: Method[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
export const RECORD_TYPES: RecordType[] = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS'];

/** Which sources fit which kind (the server's monitor-rules.ts says the same). */
export const SOURCES: Record<Kind, Source[]> = {
  http: ['status', 'body', 'json', 'header', 'response_time', 'certificate_expiry_days'],
  tcp: ['response_time', 'certificate_expiry_days'],
  dns: ['dns_records', 'response_time'],
  heartbeat: [],
};
export const SOURCE_NAMES: Record<Source, string> = {
  status: 'Status code',
  body: 'Body',
  json: 'JSON value',
  header: 'Header',
  response_time: 'Response time (ms)',
  certificate_expiry_days: 'Certificate days left',
  dns_records: 'DNS records',
};
export const OP_NAMES: Record<Op, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  contains: 'contains',
  not_contains: 'does not contain',
  matches: 'matches (RE2)',
  lt: '<',
  lte: '≤',
  gt: '>',
  gte: '≥',
  exists: 'exists',
  not_exists: 'does not exist',
};
const NUMERIC: Source[] = ['status', 'response_time', 'certificate_expiry_days'];
const ORDERING: Op[] = ['lt', 'lte', 'gt', 'gte'];
export const PRESENCE: Op[] = ['exists', 'not_exists'];

/** The operators that make sense for a source: a number is not searched as text. */
export const opsFor = (source: Source): Op[] =>
  (Object.keys(OP_NAMES) as Op[]).filter(
    (op) => !NUMERIC.includes(source) || !['contains', 'not_contains', 'matches'].includes(op),
  );
export const wantsPath = (source: Source) => source === 'json' || source === 'header';

let rowKey = 0;
/** A key for a new row of headers or assertions (rows hold inputs: their keys must stay). */
export const nextKey = () => ++rowKey;

export interface HeaderRow {
  key: number;
  name: string;
  value: string;
}
export interface AssertionRow {
  key: number;
  source: Source;
  path: string;
  op: Op;
  value: string;
}
export type AuthKind = 'none' | 'basic' | 'bearer';

export interface Values {
  type: Kind;
  name: string;
  url: string;
  hostname: string;
  record_type: RecordType;
  resolver: string;
  tls: boolean;
  grace_seconds: string;
  interval_seconds: string;
  timeout_seconds: string;
  expected_status: string;
  enabled: boolean;
  method: Method;
  headers: HeaderRow[];
  body: string;
  content_type: string;
  auth: AuthKind;
  username: string;
  password: string;
  token: string;
  max_redirects: string;
  ignore_tls_errors: boolean;
  accepted_statuses: string;
  down_after: string;
  up_after: string;
  retry_interval_seconds: string;
  cert_expiry_warn_days: string;
  assertions: AssertionRow[];
}

const text = (n: number | undefined) => (n === undefined ? '' : String(n));

export const newAssertion = (kind: Kind): AssertionRow => {
  const source = SOURCES[kind][0] ?? 'response_time';
  return { key: nextKey(), source, path: '', op: source === 'response_time' ? 'lt' : 'equals', value: '' };
};

/** The form's values: SPEC's defaults for a new monitor, the monitor's settings (secrets as the
 *  server shows them, `********`) when editing. */
export const valuesOf = (m: Monitor | null): Values => ({
  type: m?.type ?? 'http',
  name: m?.name ?? '',
  url: m === null || m.type === 'dns' || m.type === 'heartbeat' ? '' : m.url,
  hostname: m?.hostname ?? '',
  record_type: m?.record_type ?? 'A',
  resolver: m?.resolver ?? '',
  tls: m?.tls ?? false,
  grace_seconds: m === null ? '60' : text(m.grace_seconds),
  interval_seconds: m === null ? '60' : String(m.interval_seconds),
  timeout_seconds: m === null ? '10' : String(m.timeout_seconds),
  expected_status: m === null ? '200' : String(m.expected_status),
  enabled: m?.enabled ?? true,
  method: m?.method ?? 'GET',
  headers: Object.entries(m?.headers ?? {}).map(([name, value]) => ({ key: nextKey(), name, value })),
  body: m?.body ?? '',
  content_type: m?.content_type ?? '',
  auth: m?.auth?.type ?? 'none',
  username: m?.auth?.type === 'basic' ? m.auth.username : '',
  password: m?.auth?.type === 'basic' ? m.auth.password : '',
  token: m?.auth?.type === 'bearer' ? m.auth.token : '',
  max_redirects: text(m?.max_redirects),
  ignore_tls_errors: m?.ignore_tls_errors ?? false,
  accepted_statuses: (m?.accepted_statuses ?? []).join(', '),
  down_after: text(m?.down_after),
  up_after: text(m?.up_after),
  retry_interval_seconds: text(m?.retry_interval_seconds),
  cert_expiry_warn_days: (m?.cert_expiry_warn_days ?? []).join(', '),
  assertions: ((m?.assertions ?? []) as Assertion[]).map((a) => ({
    key: nextKey(),
    source: a.source,
    path: a.path ?? '',
    op: a.op,
    value: a.value === undefined || a.value === null ? '' : String(a.value),
  })),
});

/** An empty field is left out; other text is sent as it reads, so the server names what is wrong. */
export const numberOf = (t: string): number | Verbatim | undefined => {
  const trimmed = t.trim();
  if (trimmed === '') return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : verbatim(trimmed);
};
const listOf = (t: string) => t.split(/[\s,]+/).filter((s) => s !== '');
const numbersOf = (t: string) => {
  const list = listOf(t).map((s) => numberOf(s)!);
  return list.length === 0 ? undefined : list;
};
const textOf = (t: string) => (t.trim() === '' ? undefined : t.trim());

const assertionOf = (a: AssertionRow) => {
  const out: { source: Source; op: Op; path?: string; value?: string | number } = { source: a.source, op: a.op };
  if (wantsPath(a.source) && a.path.trim() !== '') out.path = a.path.trim();
  if (PRESENCE.includes(a.op)) return out;
  const n = Number(a.value.trim());
  const numeric = (ORDERING.includes(a.op) || NUMERIC.includes(a.source)) && a.value.trim() !== '';
  out.value = numeric && Number.isFinite(n) ? n : a.value;
  return out;
};

/** The options the form asks for, by kind: undefined is the server's default (or none). */
const optionsOf = (v: Values): Record<string, unknown> => {
  const checked = v.type !== 'heartbeat';
  const http = v.type === 'http';
  const tls = http || (v.type === 'tcp' && v.tls);
  const headers = v.headers.filter((h) => h.name.trim() !== '');
  const withBody = http && v.method !== 'GET' && v.method !== 'HEAD';
  return {
    method: http && v.method !== 'GET' ? v.method : undefined,
    headers: http && headers.length > 0 ? Object.fromEntries(headers.map((h) => [h.name.trim(), h.value])) : undefined,
    body: withBody && v.body !== '' ? v.body : undefined,
    content_type: withBody ? textOf(v.content_type) : undefined,
    auth: !http
      ? undefined
      : v.auth === 'basic'
        ? { type: 'basic', username: v.username, password: v.password }
        : v.auth === 'bearer'
          ? { type: 'bearer', token: v.token }
          : undefined,
    max_redirects: http && v.max_redirects.trim() !== '0' ? numberOf(v.max_redirects) : undefined,
    ignore_tls_errors: tls && v.ignore_tls_errors ? true : undefined,
    accepted_statuses: http && listOf(v.accepted_statuses).length > 0 ? listOf(v.accepted_statuses) : undefined,
    tls: v.type === 'tcp' && v.tls ? true : undefined,
    hostname: v.type === 'dns' ? textOf(v.hostname) : undefined,
    record_type: v.type === 'dns' && v.record_type !== 'A' ? v.record_type : undefined,
    resolver: v.type === 'dns' ? textOf(v.resolver) : undefined,
    grace_seconds: v.type === 'heartbeat' ? numberOf(v.grace_seconds) : undefined,
    assertions: checked && v.assertions.length > 0 ? v.assertions.map(assertionOf) : undefined,
    down_after: numberOf(v.down_after),
    up_after: numberOf(v.up_after),
    retry_interval_seconds: checked ? numberOf(v.retry_interval_seconds) : undefined,
    cert_expiry_warn_days: tls ? numbersOf(v.cert_expiry_warn_days) : undefined,
  };
};

/** POST's body (`editing` null) or PUT's: a PUT names every option, null for one the form has
 *  emptied (back to its default), and sends secrets as shown (`********` keeps them). */
export const bodyOf = (v: Values, editing: Monitor | null): Omit<MonitorCreate, 'project_id'> => {
  const settings: Record<string, unknown> = {
    name: v.name,
    interval_seconds: numberOf(v.interval_seconds),
    enabled: v.enabled,
  };
  if (v.type === 'http' || v.type === 'tcp') settings.url = v.url.trim();
  if (v.type !== 'heartbeat') settings.timeout_seconds = numberOf(v.timeout_seconds);
  if (v.type === 'http') settings.expected_status = numberOf(v.expected_status);
  if (editing === null) settings.type = v.type;
  for (const [k, value] of Object.entries(optionsOf(v))) {
    if (value !== undefined) settings[k] = value;
    else if (editing !== null && (editing as Record<string, unknown>)[k] !== undefined) settings[k] = null;
  }
  for (const k of Object.keys(settings)) if (settings[k] === undefined) delete settings[k];
  return settings as Omit<MonitorCreate, 'project_id'>;
};

/** The fields the form shows for these values: a server detail at one of them (or under it) is
 *  shown there; the others go to the note above the buttons. */
export const placedPaths = (v: Values): { prefix: string[]; exact: string[] } => {
  const common = ['name', 'interval_seconds', 'enabled', 'down_after', 'up_after'];
  const byKind: Record<Kind, string[]> = {
    http: ['url', 'timeout_seconds', 'expected_status', 'method', 'headers', 'body', 'content_type', 'auth'],
    tcp: ['url', 'timeout_seconds', 'tls', 'ignore_tls_errors', 'cert_expiry_warn_days', 'retry_interval_seconds'],
    dns: ['hostname', 'record_type', 'resolver', 'timeout_seconds', 'retry_interval_seconds'],
    heartbeat: ['grace_seconds'],
  };
  const httpMore = ['max_redirects', 'ignore_tls_errors', 'accepted_statuses', 'retry_interval_seconds'];
  const rows = v.assertions.flatMap((_, i) => ['source', 'path', 'op', 'value'].map((f) => `assertions.${i}.${f}`));
  return {
    prefix: [
      ...common,
      ...byKind[v.type],
      ...(v.type === 'http' ? [...httpMore, 'cert_expiry_warn_days'] : []),
      ...rows,
    ],
    exact: ['assertions', ...v.assertions.map((_, i) => `assertions.${i}`)],
  };
};
