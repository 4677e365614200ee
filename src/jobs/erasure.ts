import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { eraseIdentifier, type RetentionDeps } from '../commands/retention.ts';
import { decodeEvent } from '../domain/events.ts';
import type { PendingErasure, RetentionQueries } from '../views/retention/port.ts';
import type { RepeatingJob } from './worker-jobs.ts';

export const ERASURE_JOB = 'erasure';

export interface ErasureJobDeps extends RetentionDeps {
  readonly retention: Pick<RetentionQueries, 'pendingErasures'>;
}

/** Carries out the erasure requests not done yet, oldest first, one after the other
 *  (src/commands/retention.ts). The identifier is read from the request in the log. A request
 *  that fails is logged and taken again on the next run; one cut short (a crash, a deploy) goes
 *  on from where it was, since a record already replaced is left alone. */
export const erasureJob = (
  deps: ErasureJobDeps,
  logger: Logger,
  everyMs: number,
  now: () => Date = () => new Date(),
): RepeatingJob => {
  // A request the log does not hold is reported once per process, not at every run.
  const unreadable = new Set<string>();
  const carryOut = async ({ erasure_id, project_id, request_position }: PendingErasure): Promise<void> => {
    const started = Date.now();
    const [record] = await deps.log.readPositions([request_position]);
    const request = record && decodeEvent(record.position, record.type, record.data);
    if (request?.type !== 'ErasureRequested' || request.data.erasure_id !== erasure_id) {
      if (!unreadable.has(erasure_id))
        logger.error(
          { erasure_id, project_id, request_position },
          'the log holds no such erasure request at its position; it is left pending',
        );
      unreadable.add(erasure_id);
      return;
    }
    const erased = await eraseIdentifier(deps, request.data, {
      actor: 'system:erasure',
      correlationId: randomUUID(),
      now,
    });
    logger.info({ erasure_id, project_id, erased, ms: Date.now() - started }, "erased an identifier's personal fields");
  };
  return {
    name: ERASURE_JOB,
    everyMs,
    async run() {
      for (const pending of await deps.retention.pendingErasures()) {
        try {
          await carryOut(pending);
        } catch (error) {
          logger.error(
            { err: error, erasure_id: pending.erasure_id, project_id: pending.project_id },
            'erasure failed; it is tried again on the next run',
          );
        }
      }
    },
  };
};
