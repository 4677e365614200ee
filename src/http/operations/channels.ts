import * as t from 'io-ts';
import { ChannelCreateInput, ChannelUpdateInput, destinationsOf } from '../../domain/channel.ts';
import { DeliveryStatus } from '../../domain/delivery.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { IntFromString } from '../middleware/query.ts';
import { Channel, Delivery, TestAnswer, VapidKey, pageOf } from './answers.ts';
import { ListQuery, MAX_PAGE_SIZE, NOT_VISIBLE, PROJECT, WRITERS } from './common.ts';
import { type BodyCaller, json, noContent, operation } from './operation.ts';

/** Notification channels, a test send, and each channel's delivery log. Answers never carry a
 *  secret, a push key or a chat webhook's token. */

export const ChannelDeliveriesQuery = t.exact(
  t.partial({
    page: IntFromString(1, Number.MAX_SAFE_INTEGER),
    limit: IntFromString(1, MAX_PAGE_SIZE),
    status: DeliveryStatus,
  }),
);

/** A destination whose host is a literal address the egress policy denies could never be
 *  reached; a channel for all projects is an admin's. */
const creatable = (input: ChannelCreateInput, { principal, literalRefusal }: BodyCaller): ErrorDetail[] => [
  ...destinationsOf(input).flatMap(({ path, url }) => {
    const refused = literalRefusal(url);
    return refused === null ? [] : [{ path, message: refused }];
  }),
  ...(input.project_scope === 'all' && principal.role !== 'admin'
    ? [{ path: 'project_scope', message: 'may be all only for admins' }]
    : []),
];

export const channelOperations = {
  webPushKey: operation({
    method: 'get',
    path: '/v1/webpush/public-key',
    tag: 'Notifications',
    auth: 'jwt',
    summary: 'The Web Push key',
    description: 'The VAPID public key browsers subscribe with.',
    responses: { 200: json('the key', VapidKey) },
  }),
  list: operation({
    method: 'get',
    path: '/v1/channels',
    tag: 'Notifications',
    auth: 'jwt',
    keyScope: 'config',
    query: ListQuery,
    summary: 'List notification channels',
    description:
      'The channels of the projects the caller sees (or of `project_id`), oldest first. Never a secret or a key.',
    responses: { 200: json('the channels', t.array(Channel)) },
    errors: [NOT_VISIBLE],
  }),
  create: operation({
    method: 'post',
    path: '/v1/channels',
    tag: 'Notifications',
    auth: 'jwt',
    keyScope: 'config',
    roles: WRITERS,
    summary: 'Create a notification channel',
    description:
      'One shape per `type`. `events`: `healthcheck` (monitor transitions, the default) and/or `alert` ' +
      '(anomaly alerts).',
    body: {
      what: 'channel',
      codec: ChannelCreateInput,
      check: creatable,
      example: {
        project_id: PROJECT,
        type: 'webhook',
        url: 'https://hooks.example.com/watchlog',
        secret: 'a shared secret',
        events: ['healthcheck', 'alert'],
      },
    },
    responses: { 201: json('the channel', Channel) },
    errors: [NOT_VISIBLE],
  }),
  get: operation({
    method: 'get',
    path: '/v1/channels/:id',
    tag: 'Notifications',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'channel',
    summary: 'A notification channel',
    responses: { 200: json('the channel', Channel) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/channels/:id',
    tag: 'Notifications',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'channel',
    roles: WRITERS,
    summary: 'Change a notification channel',
    body: {
      what: 'channel',
      codec: ChannelUpdateInput,
      example: { active: false },
    },
    responses: { 200: json('the channel', Channel) },
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/channels/:id',
    tag: 'Notifications',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'channel',
    roles: WRITERS,
    summary: 'Delete a notification channel',
    responses: { 204: noContent('deleted') },
  }),
  test: operation({
    method: 'post',
    path: '/v1/channels/:id/test',
    tag: 'Notifications',
    auth: 'jwt',
    resource: 'channel',
    roles: WRITERS,
    summary: 'Send a test notification',
    description:
      'One `channel.test` notification to the channel now, paused or not, through the egress policy; ' +
      "nothing is recorded. The answer is the provider's: `ok` false with its status and the start of " +
      'its answer, or the error when none came.',
    responses: {
      200: json('what the provider answered', TestAnswer, {
        ok: true,
        status: 200,
        response: 'ok',
        error: null,
        duration_ms: 41,
      }),
    },
  }),
  deliveries: operation({
    method: 'get',
    path: '/v1/channels/:id/deliveries',
    tag: 'Notifications',
    auth: 'jwt',
    resource: 'channel',
    query: ChannelDeliveriesQuery,
    summary: "A channel's delivery log",
    description:
      'Every notification to the channel, newest first, with each try (time, outcome, provider status, ' +
      'error, the start of its answer); `status` filters (pending, delivered, failed, skipped, ' +
      'cancelled).',
    responses: { 200: json('a page of deliveries', pageOf(Delivery)) },
  }),
};
