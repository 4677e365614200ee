import * as t from 'io-ts';
import { resolverHost } from '../../checks/dns-probe.ts';
import { boundedString } from '../../domain/codecs.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { CHECKS_KEPT } from '../../domain/monitor.ts';
import { MonitorCreateInput, MonitorUpdateInput } from '../../domain/monitor-input.ts';
import { IntFromString } from '../middleware/query.ts';
import { Check, CreatedMonitor, Monitor } from './monitor-answers.ts';
import { AT, ListQuery, MONITOR, NOT_VISIBLE, PROJECT, WRITERS } from './common.ts';
import { type BodyCaller, json, noContent, operation } from './operation.ts';

/** SPEC 4.10: monitors, their check history, and a check on demand. */

export const HISTORY_DEFAULT_LIMIT = 50;
export const HistoryQuery = t.exact(t.partial({ limit: IntFromString(1, CHECKS_KEPT) }));

/** A URL or resolver whose host is a literal address the egress policy denies could never be
 *  checked. */
const checkableUrl = (
  { url, resolver }: { url?: string; resolver?: string | null },
  { literalRefusal }: BodyCaller,
) => {
  const asHttp = (u: string) => (u.startsWith('tcp:') ? `http:${u.slice(4)}` : u);
  const refused = url === undefined ? null : literalRefusal(asHttp(url));
  // The resolver's address as the DNS probe reads it ("[::1]:53", "fd00::53", "1.1.1.1:53").
  const host = resolver == null ? null : resolverHost(resolver);
  const resolverRefused = host === null ? null : literalRefusal(`http://${host.includes(':') ? `[${host}]` : host}/`);
  return [
    ...(refused === null ? [] : [{ path: 'url', message: refused }]),
    ...(resolverRefused === null ? [] : [{ path: 'resolver', message: resolverRefused }]),
  ];
};

/** A beat's report: `status=down` (and `msg`) when the job failed; `ping`, its own duration. */
export const BeatQuery = t.exact(
  t.partial({
    status: t.keyof({ up: null, down: null }),
    msg: boundedString(0, 500),
    ping: IntFromString(0, 86_400_000),
  }),
);
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const HeartbeatToken = {
  codec: withSchema(
    new t.Type<string, string, unknown>(
      'a heartbeat token',
      (u): u is string => typeof u === 'string' && TOKEN.test(u),
      (u, c) => (typeof u === 'string' && TOKEN.test(u) ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', pattern: TOKEN.source },
  ),
  what: 'heartbeat token',
};
const Beat = t.type({ status: t.keyof({ recorded: null, paused: null }) });
const beat = (method: 'get' | 'post') =>
  operation({
    method,
    path: '/v1/heartbeat/:token',
    tag: 'Monitors',
    auth: 'none',
    params: { token: HeartbeatToken },
    query: BeatQuery,
    summary: method === 'get' ? 'Send a heartbeat' : 'Send a heartbeat (POST)',
    description:
      "A heartbeat monitor's beat: the token is the authentication. `status=down` (with `msg`) records " +
      'the failure the job reports; `ping` is its duration in ms. A POST body is not read. Unknown token: 404. ' +
      'A paused monitor records nothing (`paused`).',
    responses: { 200: json('what became of the beat', Beat, { status: 'recorded' }) },
    errors: [404],
  });

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
  type: 'http',
  last_certificate: null,
  uptime_24h: 0.9986,
  uptime_7d: 1,
  uptime_30d: 0.9991,
  uptime_90d: 0.9995,
  avg_response_ms_24h: 91,
  avg_response_ms_7d: 88,
  avg_response_ms_30d: 90,
  avg_response_ms_90d: 93,
  in_maintenance: false,
};
const checkExample = {
  checked_at: AT,
  status_code: 503,
  response_ms: 41,
  ok: false,
  error: 'expected status 200, received 503',
};

export const monitorOperations = {
  list: operation({
    method: 'get',
    path: '/v1/monitors',
    tag: 'Monitors',
    auth: 'jwt',
    keyScope: 'config',
    query: ListQuery,
    summary: 'List monitors',
    description: 'The monitors of the projects the caller sees (or of `project_id`), oldest first.',
    responses: { 200: json('the monitors', t.array(Monitor)) },
    errors: [NOT_VISIBLE],
  }),
  create: operation({
    method: 'post',
    path: '/v1/monitors',
    tag: 'Monitors',
    auth: 'jwt',
    keyScope: 'config',
    roles: WRITERS,
    summary: 'Create a monitor',
    description:
      'Defaults: `interval_seconds` 60, `timeout_seconds` 10 (at most the interval), `expected_status` ' +
      '200, `enabled` true, `type` http, GET, no redirect followed, DOWN on the first failed check. ' +
      'The options of each kind (tcp, dns, heartbeat), assertions, `down_after`/`up_after`, and ' +
      'certificate warnings are in docs/monitors.md. At most 10 monitors per project by default ' +
      '(WATCHLOG_MONITORS_PER_PROJECT; 409). A URL or resolver whose host is an address the egress ' +
      'policy denies is 400. A heartbeat monitor is answered with its `heartbeat_url` and token, once.',
    body: {
      what: 'monitor',
      codec: MonitorCreateInput,
      check: checkableUrl,
      example: {
        project_id: PROJECT,
        name: 'checkout-api',
        url: 'https://shop.example.com/healthz',
        interval_seconds: 30,
      },
    },
    responses: { 201: json('the monitor', CreatedMonitor, monitorExample) },
    errors: [NOT_VISIBLE, 409],
  }),
  get: operation({
    method: 'get',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'monitor',
    summary: 'A monitor',
    description:
      'With its state, its last check, `uptime_24h`, `uptime_7d`, `uptime_30d`, `uptime_90d` (the share ' +
      'of OK checks; null without checks) and `avg_response_ms_*` (the mean of the OK checks). Header ' +
      'values, passwords and tokens are answered as `********`.',
    responses: { 200: json('the monitor', Monitor, monitorExample) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'monitor',
    roles: WRITERS,
    summary: 'Change a monitor',
    description:
      'Only the fields given; `enabled: false` pauses its checks; an option set to null goes back to its ' +
      'default. A secret sent back as `********` keeps its stored value. `type` cannot change. A PUT ' +
      'that changes nothing records nothing (`updated_at` unchanged).',
    body: {
      what: 'monitor',
      codec: MonitorUpdateInput,
      check: checkableUrl,
      example: { enabled: false },
    },
    responses: { 200: json('the monitor', Monitor) },
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'monitor',
    roles: WRITERS,
    summary: 'Delete a monitor',
    responses: { 204: noContent('deleted') },
  }),
  history: operation({
    method: 'get',
    path: '/v1/monitors/:id/history',
    tag: 'Monitors',
    auth: 'jwt',
    resource: 'monitor',
    query: HistoryQuery,
    summary: 'Check history',
    description: 'The last checks, newest first: `limit` (default 50, at most 200; 200 are kept).',
    responses: { 200: json('the checks', t.array(Check), [checkExample]) },
  }),
  test: operation({
    method: 'post',
    path: '/v1/monitors/:id/test',
    tag: 'Monitors',
    auth: 'jwt',
    resource: 'monitor',
    roles: WRITERS,
    summary: 'Check now',
    description:
      "One check with the monitor's settings, now, with each assertion's result and the certificate " +
      'seen; nothing is recorded. A heartbeat monitor has nothing to check (409).',
    responses: { 200: json('what the check saw', Check, checkExample) },
    errors: [409],
  }),
  beat: beat('get'),
  beatPost: beat('post'),
};
