import { randomUUID } from 'node:crypto';
import {
  maintenanceDecider,
  scheduleFields,
  scheduleOf,
  type MaintenanceCreateInput,
  type MaintenanceSettings,
  type MaintenanceUpdateInput,
} from '../domain/maintenance.ts';
import { openAt } from '../domain/maintenance-schedule.ts';
import { maintenanceStream } from '../domain/streams.ts';
import { handle, load, type CommandContext, type CommandDeps } from './handle.ts';
import { requireProject } from './projects.ts';

export const scheduleMaintenance = async (deps: CommandDeps, input: MaintenanceCreateInput, ctx: CommandContext) => {
  const schedule = scheduleOf(input);
  await requireProject(deps, input.project_id);
  const id = randomUUID();
  const handled = await handle(
    deps,
    maintenanceStream(id),
    maintenanceDecider,
    {
      type: 'ScheduleMaintenance',
      maintenance_id: id,
      project_id: input.project_id,
      settings: {
        title: input.title,
        description: input.description ?? null,
        monitor_ids: input.monitor_ids,
        schedule,
        ...(input.managed_by === undefined ? {} : { managed_by: input.managed_by }),
      },
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { ...handled, id };
};

const SCHEDULE_KEYS = ['starts_at', 'ends_at', 'rrule', 'duration_minutes', 'timezone'] as const;

/** A change of schedule gives the fields it changes; switching between one-off and recurring
 *  takes the new kind's fields whole. */
export const updateMaintenance = async (
  deps: CommandDeps,
  id: string,
  input: MaintenanceUpdateInput,
  ctx: CommandContext,
) => {
  const loaded = await load(deps.log, maintenanceStream(id), maintenanceDecider);
  const current = loaded.state.settings;
  const changes: Partial<MaintenanceSettings> = {};
  if (input.title !== undefined) changes.title = input.title;
  if (input.description !== undefined) changes.description = input.description;
  if (input.monitor_ids !== undefined) changes.monitor_ids = input.monitor_ids;
  if (input.managed_by !== undefined) changes.managed_by = input.managed_by;
  if (current !== null && SCHEDULE_KEYS.some((key) => input[key] !== undefined)) {
    const switching = (input.rrule !== undefined) !== (current.schedule.kind === 'recurring');
    const base = switching ? { starts_at: current.schedule.starts_at } : scheduleFields(current.schedule);
    const given = Object.fromEntries(
      SCHEDULE_KEYS.flatMap((key) => (input[key] === undefined ? [] : [[key, input[key]]])),
    );
    changes.schedule = scheduleOf({ ...base, ...given });
  }
  return handle(
    deps,
    maintenanceStream(id),
    maintenanceDecider,
    { type: 'UpdateMaintenance', changes, at: ctx.now().toISOString() },
    ctx,
    loaded,
  );
};

export const deleteMaintenance = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(
    deps,
    maintenanceStream(id),
    maintenanceDecider,
    { type: 'DeleteMaintenance', at: ctx.now().toISOString() },
    ctx,
  );

/** The maintenance clock's look at one window at `ctx.now()`: records its occurrence's start and
 *  end when they have come. */
export const observeMaintenance = async (deps: CommandDeps, id: string, ctx: CommandContext) => {
  const loaded = await load(deps.log, maintenanceStream(id), maintenanceDecider);
  const settings = loaded.state.settings;
  if (settings === null) return { events: [], position: null, state: loaded.state };
  const now = ctx.now();
  const open = openAt(settings.schedule, now.getTime());
  return handle(
    deps,
    maintenanceStream(id),
    maintenanceDecider,
    {
      type: 'ObserveMaintenance',
      open: open === null ? null : { start: new Date(open.start).toISOString(), end: new Date(open.end).toISOString() },
      at: now.toISOString(),
    },
    ctx,
    loaded,
  );
};
