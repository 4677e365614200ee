import { randomUUID } from 'node:crypto';
import type { ChannelCreateInput, ChannelUpdateInput } from '../domain/channel.ts';
import { channelDecider } from '../domain/channel-decider.ts';
import { targetOf } from '../domain/channel-target.ts';
import { channelStream } from '../domain/streams.ts';
import { handle, type CommandContext, type CommandDeps } from './handle.ts';
import { requireProject } from './projects.ts';

export const createChannel = async (deps: CommandDeps, input: ChannelCreateInput, ctx: CommandContext) => {
  await requireProject(deps, input.project_id);
  const id = randomUUID();
  const handled = await handle(
    deps,
    channelStream(id),
    channelDecider,
    {
      type: 'CreateChannel',
      channel_id: id,
      project_id: input.project_id,
      target: targetOf(input),
      events: input.events ?? ['healthcheck'],
      active: input.active ?? true,
      name: input.name ?? null,
      project_scope: input.project_scope ?? 'project',
      quiet_minutes: input.quiet_minutes ?? 0,
      ...(input.managed_by === undefined ? {} : { managed_by: input.managed_by }),
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { ...handled, id };
};

export const updateChannel = (deps: CommandDeps, id: string, changes: ChannelUpdateInput, ctx: CommandContext) =>
  handle(deps, channelStream(id), channelDecider, { type: 'UpdateChannel', changes, at: ctx.now().toISOString() }, ctx);

export const deleteChannel = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, channelStream(id), channelDecider, { type: 'DeleteChannel', at: ctx.now().toISOString() }, ctx);

export const deactivateChannel = (deps: CommandDeps, id: string, reason: string, ctx: CommandContext) =>
  handle(
    deps,
    channelStream(id),
    channelDecider,
    { type: 'DeactivateChannel', reason, at: ctx.now().toISOString() },
    ctx,
  );

export const degradeChannel = (deps: CommandDeps, id: string, failures: number, reason: string, ctx: CommandContext) =>
  handle(
    deps,
    channelStream(id),
    channelDecider,
    { type: 'DegradeChannel', failures, reason, at: ctx.now().toISOString() },
    ctx,
  );

export const recoverChannel = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, channelStream(id), channelDecider, { type: 'RecoverChannel', at: ctx.now().toISOString() }, ctx);
