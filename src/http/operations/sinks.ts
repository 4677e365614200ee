import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { SINK_TYPES, SinkCreateInput, SinkFilter, SinkUpdateInput, sinkDestinationsOf } from '../../domain/sink.ts';
import { Count, Timestamp, nullable } from './answers.ts';
import { ADMINS, uuidParam } from './common.ts';
import { type BodyCaller, json, noContent, operation } from './operation.ts';

/** A project's log sinks (docs/sinks.md): where its audit records are forwarded. Admins create,
 *  change and delete them; whoever sees the project reads them, never a secret. */

export const Sink = t.type({
  id: Uuid,
  project_id: Uuid,
  type: t.keyof(
    Object.fromEntries(SINK_TYPES.map((type) => [type, null])) as Record<(typeof SINK_TYPES)[number], null>,
  ),
  name: nullable(t.string),
  active: t.boolean,
  filter: SinkFilter,
  /** The type's settings, every secret as `********`. */
  settings: t.UnknownRecord,
  state: t.keyof({ active: null, degraded: null, paused: null }),
  degraded_reason: nullable(t.string),
  degraded_since: nullable(Timestamp),
  /** The log position of the last record the destination took (the sink's checkpoint). */
  position: nullable(t.string),
  lag_records: Count,
  lag_exact: t.boolean,
  lag_seconds: t.number,
  forwarded_total: Count,
  last_forwarded_at: nullable(Timestamp),
  failures: Count,
  last_error: nullable(t.string),
  last_error_at: nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SinkAnswer = t.TypeOf<typeof Sink>;

/** A destination whose host is a literal address the egress policy denies could never be reached. */
const creatable = (input: SinkCreateInput, { literalRefusal }: BodyCaller): ErrorDetail[] =>
  sinkDestinationsOf(input).flatMap(({ path, url }) => {
    const refused = literalRefusal(url);
    return refused === null ? [] : [{ path, message: refused }];
  });

const sinkParam = { sinkId: uuidParam('sink') };

const state =
  'Each answer carries its forwarding state: `state` (`active`, `degraded` after repeated failures, ' +
  '`paused`), `position` (its checkpoint), `lag_records` and `lag_seconds` (the records it takes that ' +
  'are logged and not yet taken by the destination, and since when), `forwarded_total`, `failures` ' +
  'in a row and `last_error`. Secrets are shown as `********`.';

export const sinkOperations = {
  list: operation({
    method: 'get',
    path: '/v1/projects/:id/sinks',
    tag: 'Sinks',
    auth: 'jwt',
    resource: 'project',
    summary: 'Log sinks',
    description: `The project's sinks, oldest first. ${state}`,
    responses: { 200: json('the sinks', t.array(Sink)) },
  }),
  create: operation({
    method: 'post',
    path: '/v1/projects/:id/sinks',
    tag: 'Sinks',
    auth: 'jwt',
    resource: 'project',
    roles: ADMINS,
    summary: 'Create a log sink',
    description:
      'One shape per `type`: `http`, `splunk_hec`, `elastic`, `datadog`, `syslog`, `otlp_logs` ' +
      '(docs/sinks.md). `filter`: `event_type` and `service_name` lists (absent or empty: all). The ' +
      'sink forwards the records logged after it was created, in log order, at least once.',
    body: {
      what: 'sink',
      codec: SinkCreateInput,
      check: creatable,
      example: {
        type: 'http',
        url: 'https://siem.example.com/watchlog',
        secret: 'a shared secret',
        filter: { event_type: ['http'] },
      },
    },
    responses: { 201: json('the sink', Sink) },
  }),
  get: operation({
    method: 'get',
    path: '/v1/projects/:id/sinks/:sinkId',
    tag: 'Sinks',
    auth: 'jwt',
    resource: 'project',
    params: sinkParam,
    summary: 'A log sink',
    description: state,
    responses: { 200: json('the sink', Sink) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/projects/:id/sinks/:sinkId',
    tag: 'Sinks',
    auth: 'jwt',
    resource: 'project',
    params: sinkParam,
    roles: ADMINS,
    summary: 'Change a log sink',
    description:
      'Any of `name` (`null` removes it), `active` (false pauses it where it is) and `filter` (from ' +
      'its next batch on). A PUT that changes nothing records nothing.',
    body: { what: 'sink', codec: SinkUpdateInput, example: { active: false } },
    responses: { 200: json('the sink', Sink) },
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/projects/:id/sinks/:sinkId',
    tag: 'Sinks',
    auth: 'jwt',
    resource: 'project',
    params: sinkParam,
    roles: ADMINS,
    summary: 'Delete a log sink',
    responses: { 204: noContent('deleted') },
  }),
};
