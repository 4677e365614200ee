import { RE2JS } from 're2js';
import type { ErrorDetail } from './errors.ts';
import { JsonPathError, parseJsonPath } from './json-path.ts';
import type { MonitorSettings } from './monitor.ts';
import type { Assertion, AssertionSource, MonitorType } from './monitor-options.ts';

/** Which settings belong to which kind of monitor, what each kind requires, and which
 *  assertions make sense where: the rules a codec cannot say field by field. Pure. */

const ONLY: Record<string, readonly MonitorType[]> = {
  method: ['http'],
  headers: ['http'],
  body: ['http'],
  content_type: ['http'],
  auth: ['http'],
  max_redirects: ['http'],
  accepted_statuses: ['http'],
  ignore_tls_errors: ['http', 'tcp'],
  tls: ['tcp'],
  hostname: ['dns'],
  record_type: ['dns'],
  resolver: ['dns'],
  grace_seconds: ['heartbeat'],
  assertions: ['http', 'tcp', 'dns'],
  cert_expiry_warn_days: ['http', 'tcp'],
};

const SOURCES: Record<MonitorType, readonly AssertionSource[]> = {
  http: ['status', 'body', 'json', 'header', 'response_time', 'certificate_expiry_days'],
  tcp: ['response_time', 'certificate_expiry_days'],
  dns: ['dns_records', 'response_time'],
  heartbeat: [],
};

const NUMERIC: readonly AssertionSource[] = ['status', 'response_time', 'certificate_expiry_days'];
const ORDERING = new Set(['lt', 'lte', 'gt', 'gte']);
const TEXT_ONLY = new Set(['contains', 'not_contains', 'matches']);
const PRESENCE = new Set(['exists', 'not_exists']);

export const typeOf = (s: Pick<MonitorSettings, 'type'>): MonitorType => s.type ?? 'http';

/** What a dns or heartbeat monitor shows as its `url` (and what its events name): a URI of what
 *  it watches. http and tcp monitors have the URL they were given. */
export const targetOf = (s: MonitorSettings, monitorId: string): string => {
  switch (typeOf(s)) {
    case 'dns':
      return `dns://${s.resolver ?? ''}/${s.hostname ?? ''}?type=${s.record_type ?? 'A'}`;
    case 'heartbeat':
      return `heartbeat:${monitorId}`;
    default:
      return s.url;
  }
};

const assertionIssues = (type: MonitorType, a: Assertion, path: string): ErrorDetail[] => {
  const issues: ErrorDetail[] = [];
  if (!SOURCES[type].includes(a.source))
    return [{ path: `${path}.source`, message: `${type} monitors assert on ${SOURCES[type].join(', ') || 'nothing'}` }];
  const wantsPath = a.source === 'json' || a.source === 'header';
  if (wantsPath && a.path === undefined)
    issues.push({
      path: `${path}.path`,
      message: `required: ${a.source === 'json' ? 'a JSONPath such as $.status' : 'a header name'}`,
    });
  if (!wantsPath && a.path !== undefined)
    issues.push({ path: `${path}.path`, message: `not used with source ${a.source}` });
  if (a.source === 'json' && a.path !== undefined && !a.path.startsWith('$'))
    issues.push({ path: `${path}.path`, message: 'must be a JSONPath starting with $' });
  else if (a.source === 'json' && a.path !== undefined) {
    try {
      parseJsonPath(a.path);
    } catch (error) {
      if (!(error instanceof JsonPathError)) throw error;
      issues.push({ path: `${path}.path`, message: error.message });
    }
  }
  if (PRESENCE.has(a.op)) {
    if (a.value !== undefined) issues.push({ path: `${path}.value`, message: `not used with ${a.op}` });
    return issues;
  }
  if (a.value === undefined) return [...issues, { path: `${path}.value`, message: `required with ${a.op}` }];
  if (ORDERING.has(a.op) && typeof a.value !== 'number')
    issues.push({ path: `${path}.value`, message: `must be a number with ${a.op}` });
  if (NUMERIC.includes(a.source) && TEXT_ONLY.has(a.op))
    issues.push({ path: `${path}.op`, message: `${a.source} is a number: use equals, not_equals, lt, lte, gt or gte` });
  if (a.op === 'matches') {
    if (typeof a.value !== 'string') issues.push({ path: `${path}.value`, message: 'must be a pattern (a string)' });
    else {
      try {
        RE2JS.compile(a.value);
      } catch (error) {
        issues.push({ path: `${path}.value`, message: `not a valid RE2 pattern: ${(error as Error).message}` });
      }
    }
  }
  return issues;
};

/** Everything wrong with a monitor's settings as a whole, by field. `given`: the fields the
 *  request named (a default is never at fault). */
export const settingsIssues = (s: MonitorSettings, given: ReadonlySet<string>): ErrorDetail[] => {
  const type = typeOf(s);
  const issues: ErrorDetail[] = [];
  for (const [field, types] of Object.entries(ONLY)) {
    if (given.has(field) && (s as Record<string, unknown>)[field] !== undefined && !types.includes(type))
      issues.push({ path: field, message: `only for ${types.join(' and ')} monitors; this one is ${type}` });
  }
  if (type === 'http' || type === 'tcp') {
    const scheme = s.url === '' ? null : new URL(s.url).protocol;
    if (scheme === null) issues.push({ path: 'url', message: `required for ${type} monitors` });
    else if (type === 'http' && scheme === 'tcp:')
      issues.push({ path: 'url', message: 'must be an http or https URL (set type to tcp for tcp://)' });
    else if (type === 'tcp' && (scheme !== 'tcp:' || new URL(s.url).port === ''))
      issues.push({ path: 'url', message: 'must be tcp://host:port' });
  } else if (given.has('url')) issues.push({ path: 'url', message: `not used by ${type} monitors` });
  if (type === 'dns' && s.hostname === undefined)
    issues.push({ path: 'hostname', message: 'required for dns monitors' });
  if (given.has('expected_status') && type !== 'http')
    issues.push({ path: 'expected_status', message: `only for http monitors; this one is ${type}` });
  if (s.body !== undefined && (s.method === undefined || s.method === 'GET' || s.method === 'HEAD'))
    issues.push({
      path: 'body',
      message: `not sent with ${s.method ?? 'GET'}: choose POST, PUT, PATCH, DELETE or OPTIONS`,
    });
  if (s.retry_interval_seconds !== undefined && s.retry_interval_seconds > s.interval_seconds)
    issues.push({
      path: 'retry_interval_seconds',
      message: `must not exceed interval_seconds (${s.interval_seconds})`,
    });
  if (s.timeout_seconds > s.interval_seconds && type !== 'heartbeat')
    issues.push({ path: 'timeout_seconds', message: `must not exceed interval_seconds (${s.interval_seconds})` });
  (s.assertions ?? []).forEach((a, i) => {
    issues.push(...assertionIssues(type, a as Assertion, `assertions.${i}`));
  });
  return issues;
};
