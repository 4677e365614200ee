import type Router from '@koa/router';
import { ChannelCreateInput, ChannelUpdateInput } from '../../domain/channel.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
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

  // A destination whose host is a literal address the egress policy denies could never be reached.
  const destination = (input: ChannelCreateInput): ErrorDetail[] => {
    const [path, url] = input.type === 'webhook' ? ['url', input.url] : ['subscription.endpoint', input.subscription.endpoint];
    const refused = deps.egress.literalRefusal(url);
    return refused === null ? [] : [{ path, message: refused }];
  };
  projectResourceRoutes(router, deps, {
    path: '/v1/channels', what: 'channel', readModel: 'channels', queries: deps.readModels.channels,
    inputs: [ChannelCreateInput, ChannelUpdateInput], commands: { create: createChannel, update: updateChannel, remove: deleteChannel },
    problems: { create: destination },
  });
};
