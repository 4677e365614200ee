import type Router from '@koa/router';
import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { ChannelCreateInput, ChannelUpdateInput } from '../../domain/channel.ts';
import { createChannel, deleteChannel, updateChannel } from '../../commands/channels.ts';
import { commandContext, principalOf, requireRole, visibleOr404, type Principal } from '../middleware/auth.ts';
import { readJsonBody } from '../middleware/body.ts';
import { decodeOrThrow } from '../middleware/errors.ts';
import { singleValued } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

const ListQuery = t.exact(t.partial({ project_id: Uuid }));

/** Notification channels. Answers never carry a webhook secret or push subscription keys. */
export const channelRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const jwt = deps.jwt;
  const context = (principal: Principal, correlationId: string) => commandContext(principal, correlationId, deps.now);
  const visibleChannel = (principal: Principal, id: string | undefined) =>
    visibleOr404(id, 'channel', (uuid) => deps.readModels.channels.get(uuid, principal.scope));
  /** The channel as the read model shows it once it has applied the command's events. */
  const viewAfter = async (id: string, position: string | null) => {
    await deps.caughtUp(['channels'], position);
    return deps.readModels.channels.get(id, { all: true });
  };

  router.get('/v1/webpush/public-key', ...jwt, (ctx) => {
    ctx.body = { public_key: deps.vapidPublicKey };
  });

  router.get('/v1/channels', ...jwt, async (ctx) => {
    const { project_id } = decodeOrThrow(ListQuery, singleValued(ctx.query), 'query');
    ctx.body = await deps.readModels.channels.list(principalOf(ctx.state).scope, project_id);
  });

  router.post('/v1/channels', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    requireRole(principal, 'admin', 'member');
    const input = decodeOrThrow(ChannelCreateInput, await readJsonBody(ctx, deps.bodyLimitBytes), 'channel');
    await visibleOr404(input.project_id, 'project', (uuid) => deps.readModels.access.getProject(uuid, principal.scope));
    const { id, position } = await createChannel(deps.commands, input, context(principal, ctx.state.correlationId));
    ctx.status = 201;
    ctx.body = await viewAfter(id, position);
  });

  router.get('/v1/channels/:id', ...jwt, async (ctx) => {
    ctx.body = await visibleChannel(principalOf(ctx.state), ctx.params.id);
  });

  router.put('/v1/channels/:id', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const channel = await visibleChannel(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const input = decodeOrThrow(ChannelUpdateInput, await readJsonBody(ctx, deps.bodyLimitBytes), 'channel');
    const { position } = await updateChannel(deps.commands, channel.id, input, context(principal, ctx.state.correlationId));
    ctx.body = await viewAfter(channel.id, position);
  });

  router.delete('/v1/channels/:id', ...jwt, async (ctx) => {
    const principal = principalOf(ctx.state);
    const channel = await visibleChannel(principal, ctx.params.id);
    requireRole(principal, 'admin', 'member');
    const { position } = await deleteChannel(deps.commands, channel.id, context(principal, ctx.state.correlationId));
    await deps.caughtUp(['channels'], position);
    ctx.status = 204;
  });
};
