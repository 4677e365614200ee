import * as t from 'io-ts';
import { ErasureBody, RetentionBody } from '../../domain/retention.ts';
import { IntFromString } from '../middleware/query.ts';
import { ErasureAnswer, ErasuresAnswer, RetentionAnswer } from './answers.ts';
import { ADMINS, MAX_PAGE_SIZE, paging, uuidParam } from './common.ts';
import { json, operation } from './operation.ts';

/** A project's retention (how long its ingested events are kept) and erasure requests
 *  (docs/retention.md). Everyone who sees the project reads the setting; only admins change it,
 *  or ask for and read erasures. */

export const ErasuresQuery = t.exact(
  t.partial({ page: IntFromString(1, Number.MAX_SAFE_INTEGER), limit: IntFromString(1, MAX_PAGE_SIZE) }),
);

export const retentionOperations = {
  get: operation({
    method: 'get',
    path: '/v1/projects/:id/retention',
    tag: 'Projects',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'project',
    summary: 'Retention',
    description:
      'How long the project keeps its ingested events (`null`: for ever), the last run of the ' +
      'retention job, and how many events retention removed and erasures erased.',
    responses: { 200: json('the retention', RetentionAnswer) },
  }),
  set: operation({
    method: 'put',
    path: '/v1/projects/:id/retention',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    roles: ADMINS,
    summary: 'Set retention',
    description:
      '`retention_days` from 1 to 36500, or `null` to keep events for ever. The retention job (every ' +
      '`WATCHLOG_RETENTION_INTERVAL_SECONDS`) then removes the ingested events older than that, down ' +
      'to the hour, from the log and every read model; the tree keeps their leaf hashes ' +
      '(docs/retention.md).',
    body: {
      what: 'retention settings',
      codec: RetentionBody,
      example: { retention_days: 90 },
    },
    responses: { 200: json('the retention', RetentionAnswer) },
  }),
  requestErasure: operation({
    method: 'post',
    path: '/v1/projects/:id/erasures',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    roles: ADMINS,
    summary: 'Ask for an identifier to be erased',
    description:
      'Records the request and answers at once, with its status resource in `Location`. The erasure ' +
      'job (within seconds) then removes the personal fields (`fields`) of every event of `identifier` ' +
      'in the project up to `through_position` (the log head when asked), from the log and every read ' +
      'model, and drops its sessions; the events keep their time, route, status and timing, with the ' +
      'identifier `[erased]`. `status` turns `done`, with `erased` and `erased_at`, once every read ' +
      'model shows it. Asking again while a request for the same identifier is pending answers that ' +
      'request. Recorded as audit events of the built-in project (`erasure.requested`, ' +
      '`identifier.erased`), naming the identifier by its SHA-256. `409 unsupported` on a KurrentDB ' +
      'log.',
    body: {
      what: 'erasure request',
      codec: ErasureBody,
      example: { identifier: 'user-42' },
    },
    responses: {
      202: {
        ...json('the request, pending', ErasureAnswer),
        headers: { Location: { description: "the request's status resource", required: true } },
      },
    },
    errors: [409],
  }),
  listErasures: operation({
    method: 'get',
    path: '/v1/projects/:id/erasures',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    roles: ADMINS,
    query: ErasuresQuery,
    summary: 'Erasure requests',
    description: [
      "The project's erasure requests, newest first, each naming the identifier by its SHA-256 only.",
      paging,
    ].join(' '),
    responses: { 200: json('a page of requests', ErasuresAnswer) },
  }),
  getErasure: operation({
    method: 'get',
    path: '/v1/projects/:id/erasures/:erasureId',
    tag: 'Projects',
    auth: 'jwt',
    resource: 'project',
    params: { erasureId: uuidParam('erasure') },
    roles: ADMINS,
    summary: 'An erasure request',
    description:
      '`pending` until the erasure job has erased every event it covers and every read model shows it; ' +
      'then `done`, with how many events it erased.',
    responses: { 200: json('the request', ErasureAnswer) },
  }),
};
