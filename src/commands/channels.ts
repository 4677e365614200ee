import { randomUUID } from 'node:crypto';
import { assertChannelExists, evolveChannel, initialChannel, targetOf, type ChannelCreateInput, type ChannelUpdateInput } from '../domain/channel.ts';
import { assertProjectExists, evolveProject, initialProject } from '../domain/project.ts';
import type { ChannelView } from '../views/ports.ts';
import { loadAggregate, newEvent, type CommandContext, type CommandDeps } from './context.ts';
import { projectStream } from './projects.ts';

export const channelStream = (id: string) => `channel-${id}`;

const loadChannel = (deps: Pick<CommandDeps, 'log'>, id: string) => loadAggregate(deps.log, channelStream(id), initialChannel, evolveChannel);

const viewAfter = async (deps: CommandDeps, id: string, position: string): Promise<ChannelView | null> => {
  await deps.channelsSettled(position);
  return deps.readModels.channels.get(id, { all: true });
};

export const createChannel = async (deps: CommandDeps, input: ChannelCreateInput, ctx: CommandContext): Promise<ChannelView> => {
  const { state: project } = await loadAggregate(deps.log, projectStream(input.project_id), initialProject, evolveProject);
  assertProjectExists(project);
  const id = randomUUID();
  const { position } = await deps.log.append(channelStream(id), [newEvent('ChannelCreated', {
    channel_id: id, project_id: input.project_id, target: targetOf(input), events: input.events ?? ['healthcheck'],
    active: input.active ?? true, created_at: ctx.now().toISOString(),
  }, ctx)], 'no_stream');
  return (await viewAfter(deps, id, position))!;
};

export const updateChannel = async (deps: CommandDeps, id: string, changes: ChannelUpdateInput, ctx: CommandContext): Promise<ChannelView> => {
  const { state, revision } = await loadChannel(deps, id);
  assertChannelExists(state);
  const { position } = await deps.log.append(channelStream(id), [newEvent('ChannelUpdated', {
    channel_id: id, project_id: state.projectId, changes, updated_at: ctx.now().toISOString(),
  }, ctx)], revision);
  return (await viewAfter(deps, id, position))!;
};

export const deleteChannel = async (deps: CommandDeps, id: string, ctx: CommandContext): Promise<void> => {
  const { state, revision } = await loadChannel(deps, id);
  assertChannelExists(state);
  const { position } = await deps.log.append(channelStream(id), [newEvent('ChannelDeleted', {
    channel_id: id, project_id: state.projectId, deleted_at: ctx.now().toISOString(),
  }, ctx)], revision);
  await deps.channelsSettled(position);
};

/** A push subscription the push service no longer knows: stop sending to it (once). */
export const deactivateChannel = async (deps: Pick<CommandDeps, 'log'>, id: string, reason: string, ctx: CommandContext): Promise<void> => {
  const { state, revision } = await loadChannel(deps, id);
  if (state.id === null || state.deleted || !state.active) return;
  await deps.log.append(channelStream(id), [newEvent('ChannelDeactivated', {
    channel_id: id, project_id: state.projectId, reason, deactivated_at: ctx.now().toISOString(),
  }, ctx)], revision);
};
