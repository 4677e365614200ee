import type Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import * as t from 'io-ts';
import { ChannelCreateInput, ChannelUpdateInput, destinationsOf } from '../../domain/channel.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { createChannel, deleteChannel, updateChannel } from '../../commands/channels.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { principalOf, requireRole, type Principal } from '../middleware/auth.ts';
import { IntFromString, NoParameters, readQuery } from '../middleware/query.ts';
import { projectResourceRoutes } from './project-resource.ts';
import { MAX_PAGE_SIZE } from './audit.ts';
import { DeliveryStatusCodec } from './deliveries.ts';

export const ChannelDeliveriesQuery = t.exact(
  t.partial({
    page: IntFromString(1, Number.MAX_SAFE_INTEGER),
    limit: IntFromString(1, MAX_PAGE_SIZE),
    status: DeliveryStatusCodec,
  }),
);

/** Notification channels, a test send, and each channel's delivery log. Answers never carry a
 *  secret, a push key or a chat webhook's token. */
export const channelRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/v1/webpush/public-key', ...deps.jwt, (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = { public_key: deps.vapidPublicKey };
  });

  // A destination whose host is a literal address the egress policy denies could never be
  // reached; a channel for all projects is an admin's.
  const problems = (input: ChannelCreateInput, principal: Principal): ErrorDetail[] => [
    ...destinationsOf(input).flatMap(({ path, url }) => {
      const refused = deps.egress.literalRefusal(url);
      return refused === null ? [] : [{ path, message: refused }];
    }),
    ...(input.project_scope === 'all' && principal.role !== 'admin'
      ? [{ path: 'project_scope', message: 'may be all only for admins' }]
      : []),
  ];
  const { visible } = projectResourceRoutes(router, deps, {
    path: '/v1/channels',
    what: 'channel',
    readModel: 'channels',
    queries: deps.readModels.channels,
    inputs: [ChannelCreateInput, ChannelUpdateInput],
    commands: { create: createChannel, update: updateChannel, remove: deleteChannel },
    problems: { create: problems },
  });

  /** One test notification now, active channel or not; nothing is recorded. */
  router.post('/v1/channels/:id/test', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const principal = principalOf(ctx.state);
    const channel = await visible(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const row = await deps.readModels.channels.target(channel.id);
    if (row === null) throw new Error(`channel ${channel.id} has no target in the read model`);
    ctx.body = await deps.testChannel(row.target, {
      id: randomUUID(),
      type: 'channel.test',
      project_id: channel.project_id,
      channel: { id: channel.id, name: channel.name },
      timestamp: deps.now().toISOString(),
    });
  });

  router.get('/v1/channels/:id/deliveries', ...deps.jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const channel = await visible(principal, ctx.params.id);
    const { page = 1, limit = 20, status } = readQuery(ctx.query, ChannelDeliveriesQuery);
    ctx.body = await deps.readModels.deliveries.forChannel(
      channel.id,
      { page, limit, ...(status === undefined ? {} : { status }) },
      principal.scope,
    );
  });
};
