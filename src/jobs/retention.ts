import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { applyRetention, type RetentionDeps } from '../commands/retention.ts';
import { RedactionUnsupportedError } from '../log/event-log.ts';
import type { RetentionQueries } from '../views/retention/port.ts';
import type { RepeatingJob } from './worker-jobs.ts';

export const RETENTION_JOB = 'retention';

export interface RetentionJobDeps extends RetentionDeps {
  readonly retention: Pick<RetentionQueries, 'limited'>;
}

/** Removes expired audit events of every project that keeps them for a limited time, one project
 *  after the other, a page at a time (src/commands/retention.ts). A project that fails is logged
 *  and tried again on the next run; the others go on. */
export const retentionJob = (
  deps: RetentionJobDeps,
  logger: Logger,
  everyMs: number,
  now: () => Date = () => new Date(),
): RepeatingJob => ({
  name: RETENTION_JOB,
  everyMs,
  async run() {
    for (const { project_id, retention_days } of await deps.retention.limited()) {
      const started = Date.now();
      try {
        const removed = await applyRetention(deps, project_id, retention_days, {
          actor: 'system:retention',
          correlationId: randomUUID(),
          now,
        });
        if (removed > 0)
          logger.info(
            { project_id, retention_days, removed, ms: Date.now() - started },
            'removed expired audit events',
          );
      } catch (error) {
        if (error instanceof RedactionUnsupportedError) {
          logger.error({ project_id, retention_days }, error.message);
          return;
        }
        logger.error(
          { err: error, project_id, retention_days },
          'retention failed for this project; it is tried again on the next run',
        );
      }
    }
  },
});
