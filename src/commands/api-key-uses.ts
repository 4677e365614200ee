import { keyUseStream } from '../domain/streams.ts';
import { type CommandContext, type CommandDeps, newEvent } from './handle.ts';

/** Records that a key was used at `at`. Its stream keeps the last use only (maxCount 1), so the
 *  log holds one such record per key however long the key is used, and a rebuild still finds
 *  each key's `last_used_at`. A use is a fact: appended whatever the stream's revision.
 *  `capped`: the caller already set the stream's maxCount (once per key is enough). */
export const recordKeyUse = async (
  deps: CommandDeps,
  key: { readonly id: string; readonly project_id: string },
  at: Date,
  ctx: CommandContext,
  capped: boolean,
) => {
  const stream = keyUseStream(key.id);
  if (!capped) await deps.log.setStreamMaxCount(stream, 1);
  return deps.log.append(
    stream,
    [
      newEvent(
        { type: 'ApiKeyUsed', data: { project_id: key.project_id, key_id: key.id, used_at: at.toISOString() } },
        ctx,
      ),
    ],
    'any',
  );
};
