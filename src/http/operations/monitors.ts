import * as t from 'io-ts';
import { CHECKS_KEPT, MonitorCreateInput, MonitorUpdateInput } from '../../domain/monitor.ts';
import { IntFromString } from '../middleware/query.ts';
import { Check, Monitor } from './answers.ts';
import { AT, ListQuery, MONITOR, NOT_VISIBLE, PROJECT, WRITERS } from './common.ts';
import { type BodyCaller, json, noContent, operation } from './operation.ts';

/** SPEC 4.10: monitors, their check history, and a check on demand. */

export const HISTORY_DEFAULT_LIMIT = 50;
export const HistoryQuery = t.exact(t.partial({ limit: IntFromString(1, CHECKS_KEPT) }));

/** A URL whose host is a literal address the egress policy denies could never be checked. */
const checkableUrl = ({ url }: { url?: string }, { literalRefusal }: BodyCaller) => {
  const refused = url === undefined ? null : literalRefusal(url);
  return refused === null ? [] : [{ path: 'url', message: refused }];
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

export const monitorOperations = {
  list: operation({
    method: 'get',
    path: '/v1/monitors',
    tag: 'Monitors',
    auth: 'jwt',
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
    roles: WRITERS,
    summary: 'Create a monitor',
    description:
      'Defaults: `interval_seconds` 60, `timeout_seconds` 10 (at most the interval), `expected_status` ' +
      '200, `enabled` true. At most 10 monitors per project (409). A URL whose host is an address the ' +
      'egress policy denies is 400.',
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
    responses: { 201: json('the monitor', Monitor, monitorExample) },
    errors: [NOT_VISIBLE, 409],
  }),
  get: operation({
    method: 'get',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    resource: 'monitor',
    summary: 'A monitor',
    description:
      'With its state, its last check, and `uptime_24h`, `uptime_7d` (the share of OK checks; null without checks).',
    responses: { 200: json('the monitor', Monitor, monitorExample) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/monitors/:id',
    tag: 'Monitors',
    auth: 'jwt',
    resource: 'monitor',
    roles: WRITERS,
    summary: 'Change a monitor',
    description:
      'Only the fields given; `enabled: false` pauses its checks. A PUT that changes nothing records ' +
      'nothing (`updated_at` unchanged).',
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
    description: "One check with the monitor's settings, now; nothing is recorded.",
    responses: { 200: json('what the check saw', Check, checkExample) },
  }),
};
