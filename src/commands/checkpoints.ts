import type { EventLog } from '../log/event-log.ts';
import { checkpointsStream } from '../domain/streams.ts';
import { newEvent, type CommandContext } from './handle.ts';

/** A signed checkpoint of a project's tree, kept in the log beside what it signs. Appended with
 *  "any": checkpoints are facts about the tree, and two for one size are the same note. */
export const recordCheckpoint = async (
  log: EventLog,
  checkpoint: { project_id: string; size: number; root: string; note: string },
  ctx: CommandContext,
): Promise<void> => {
  const signed_at = ctx.now().toISOString();
  await log.append(
    checkpointsStream(checkpoint.project_id),
    [newEvent({ type: 'CheckpointSigned', data: { ...checkpoint, signed_at } }, ctx)],
    'any',
  );
};
