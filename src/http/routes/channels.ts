import { randomUUID } from 'node:crypto';
import { createChannel, deleteChannel, updateChannel } from '../../commands/channels.ts';
import type { RouteDeps } from '../deps.ts';
import type { channelOperations } from '../operations/channels.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import { projectResourceHandlers } from './project-resource.ts';

/** Notification channels, a test send, and each channel's delivery log. */
export const channelHandlers: Handlers<typeof channelOperations, RouteDeps> = {
  webPushKey: (_, deps) => ok({ public_key: deps.vapidPublicKey }),

  ...projectResourceHandlers({
    readModel: 'channels',
    list: (deps, scope, projectId) => deps.readModels.channels.list(scope, projectId),
    get: (deps, id) => deps.readModels.channels.get(id, { all: true }),
    commands: { create: createChannel, update: updateChannel, remove: deleteChannel },
  }),

  /** One test notification now, active channel or not; nothing is recorded. */
  test: async ({ resource: channel }, deps) => {
    const row = await deps.readModels.channels.target(channel.id);
    if (row === null) throw new Error(`channel ${channel.id} has no target in the read model`);
    return ok(
      await deps.testChannel(row.target, {
        id: randomUUID(),
        type: 'channel.test',
        project_id: channel.project_id,
        channel: { id: channel.id, name: channel.name },
        timestamp: deps.now().toISOString(),
      }),
    );
  },

  deliveries: async ({ resource: channel, query: { page = 1, limit = 20, status }, principal }, deps) =>
    ok(
      await deps.readModels.deliveries.forChannel(
        channel.id,
        { page, limit, ...(status === undefined ? {} : { status }) },
        principal.scope,
      ),
    ),
};
