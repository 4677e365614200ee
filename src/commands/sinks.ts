import { randomUUID } from 'node:crypto';
import { sinkTargetOf, type SinkCreateInput, type SinkUpdateInput } from '../domain/sink.ts';
import { sinkDecider } from '../domain/sink-decider.ts';
import { sinkStream } from '../domain/streams.ts';
import { handle, type CommandContext, type CommandDeps } from './handle.ts';
import { requireProject } from './projects.ts';

export const createSink = async (deps: CommandDeps, projectId: string, input: SinkCreateInput, ctx: CommandContext) => {
  await requireProject(deps, projectId);
  const id = randomUUID();
  const handled = await handle(
    deps,
    sinkStream(id),
    sinkDecider,
    {
      type: 'CreateSink',
      sink_id: id,
      project_id: projectId,
      target: sinkTargetOf(input),
      name: input.name ?? null,
      active: input.active ?? true,
      filter: input.filter ?? {},
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { ...handled, id };
};

export const updateSink = (deps: CommandDeps, id: string, changes: SinkUpdateInput, ctx: CommandContext) =>
  handle(deps, sinkStream(id), sinkDecider, { type: 'UpdateSink', changes, at: ctx.now().toISOString() }, ctx);

export const deleteSink = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, sinkStream(id), sinkDecider, { type: 'DeleteSink', at: ctx.now().toISOString() }, ctx);

export const degradeSink = (deps: CommandDeps, id: string, failures: number, reason: string, ctx: CommandContext) =>
  handle(
    deps,
    sinkStream(id),
    sinkDecider,
    { type: 'DegradeSink', failures, reason, at: ctx.now().toISOString() },
    ctx,
  );

export const recoverSink = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, sinkStream(id), sinkDecider, { type: 'RecoverSink', at: ctx.now().toISOString() }, ctx);
