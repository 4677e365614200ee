import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { CommandDeps } from '../commands/handle.ts';
import { observeMaintenance } from '../commands/maintenances.ts';
import type { MaintenanceWindows } from './maintenance-windows.ts';
import type { RepeatingJob } from './worker-jobs.ts';

export const MAINTENANCE_CLOCK_JOB = 'maintenance-clock';

/** How often the clock looks: a window's MaintenanceStarted and MaintenanceEnded (and their
 *  audit events) come at most about this long after their time. Checks do not wait for them:
 *  they read the schedules themselves (maintenance-windows.ts). */
export const MAINTENANCE_CLOCK_EVERY_MS = 5000;

export interface MaintenanceClockDeps extends CommandDeps {
  readonly windows: Pick<MaintenanceWindows, 'reload' | 'openAt'>;
}

const sameOpen = (a: { start: number; end: number } | null, b: { start: string; end: string } | null): boolean =>
  a === null || b === null ? a === b : a.start === Date.parse(b.start) && a.end === Date.parse(b.end);

/** The maintenance clock, one worker at a time: for each window whose occurrence open now is
 *  not the one the read model says is open, `observeMaintenance` records the end of the one
 *  that closed and the start of the one that opened. A window where nothing changed costs no
 *  append and no read of its stream, so a quiet system adds nothing to the log. A read model
 *  behind the log only makes the clock look at a window again: the command decides on the
 *  window's stream, which then says there is nothing to record. */
export const maintenanceClockJob = (
  deps: MaintenanceClockDeps,
  logger: Logger,
  everyMs: number = MAINTENANCE_CLOCK_EVERY_MS,
  now: () => Date = () => new Date(),
): RepeatingJob => ({
  name: MAINTENANCE_CLOCK_JOB,
  everyMs,
  async run() {
    const at = now();
    for (const window of await deps.windows.reload()) {
      if (sameOpen(deps.windows.openAt(window, at.getTime()), window.open)) continue;
      try {
        const { events } = await observeMaintenance(deps, window.id, {
          actor: 'system:maintenance',
          correlationId: randomUUID(),
          now: () => at,
        });
        for (const e of events)
          logger.info(
            { maintenance_id: window.id, project_id: window.project_id, event: e.type },
            'maintenance window',
          );
      } catch (err) {
        logger.error({ err, maintenance_id: window.id }, 'could not record a maintenance window opening or closing');
      }
    }
  },
});
