import type Router from '@koa/router';
import { ChannelCreateInput, ChannelUpdateInput } from '../../domain/channel.ts';
import { createChannel, deleteChannel, updateChannel } from '../../commands/channels.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { NoParameters, readQuery } from '../middleware/query.ts';
import { projectResourceRoutes } from './project-resource.ts';

/** Notification channels. Answers never carry a webhook secret or push subscription keys. */
export const channelRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/v1/webpush/public-key', ...deps.jwt, (ctx) => {
    readQuery(ctx.query, NoParameters);
    ctx.body = { public_key: deps.vapidPublicKey };
  });

  projectResourceRoutes(router, deps, {
    path: '/v1/channels', what: 'channel', readModel: 'channels', queries: deps.readModels.channels,
    inputs: [ChannelCreateInput, ChannelUpdateInput], commands: { create: createChannel, update: updateChannel, remove: deleteChannel },
  });
};
