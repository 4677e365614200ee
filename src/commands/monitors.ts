import { randomUUID } from 'node:crypto';
import { DomainError } from '../domain/errors.ts';
import {
  CHECKS_KEPT,
  DEFAULTS,
  MONITORS_PER_PROJECT,
  monitorDecider,
  type CheckResult,
  type MonitorCreateInput,
  type MonitorState,
  type MonitorUpdateInput,
} from '../domain/monitor.ts';
import { checksStream, monitorStream } from '../domain/streams.ts';
import { handle, load, newEvent, type CommandContext, type CommandDeps, type Handled, type Loaded } from './handle.ts';
import { requireProject } from './projects.ts';

export const loadMonitor = (deps: CommandDeps, id: string) => load(deps.log, monitorStream(id), monitorDecider);

/** The monitor limit is counted on the monitors read model (the log has no per-project index). */
export interface MonitorCreationDeps extends CommandDeps {
  /** How many monitors the project has, once the read model has caught up with the log. */
  monitorsInProject(projectId: string): Promise<number>;
}

/** Creations per project run one at a time in this process, so two concurrent requests cannot
 *  both see room for one more monitor. (Across API processes two requests racing for the last
 *  slot may both win; documented.) */
const creationQueues = new Map<string, Promise<unknown>>();
const oneAtATime = <T>(key: string, work: () => Promise<T>): Promise<T> => {
  const previous = creationQueues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  creationQueues.set(key, next);
  void next.catch(() => undefined).finally(() => creationQueues.get(key) === next && creationQueues.delete(key));
  return next;
};

export const createMonitor = (deps: MonitorCreationDeps, input: MonitorCreateInput, ctx: CommandContext) =>
  oneAtATime(input.project_id, async () => {
    await requireProject(deps, input.project_id);
    const { project_id, ...given } = input;
    if ((await deps.monitorsInProject(project_id)) >= MONITORS_PER_PROJECT) {
      throw new DomainError('conflict', `a project has at most ${MONITORS_PER_PROJECT} monitors`, [
        { path: 'project_id', message: `already has ${MONITORS_PER_PROJECT} monitors` },
      ]);
    }
    const id = randomUUID();
    await deps.log.setStreamMaxCount(checksStream(id), CHECKS_KEPT);
    const handled = await handle(
      deps,
      monitorStream(id),
      monitorDecider,
      {
        type: 'CreateMonitor',
        monitor_id: id,
        project_id,
        settings: { ...DEFAULTS, ...given },
        at: ctx.now().toISOString(),
      },
      ctx,
    );
    return { ...handled, id };
  });

export const updateMonitor = (deps: CommandDeps, id: string, changes: MonitorUpdateInput, ctx: CommandContext) =>
  handle(deps, monitorStream(id), monitorDecider, { type: 'UpdateMonitor', changes, at: ctx.now().toISOString() }, ctx);

export const deleteMonitor = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, monitorStream(id), monitorDecider, { type: 'DeleteMonitor', at: ctx.now().toISOString() }, ctx);

/** Records a check in the monitor's checks stream and, when it changes the monitor's state, the
 *  transition in the monitor's stream (decided again if another worker recorded one first, which
 *  usually makes it none). `loaded`: the monitor as the caller just read it, to save a read. A
 *  check of a deleted monitor records nothing. */
export const recordCheck = async (
  deps: CommandDeps,
  id: string,
  result: CheckResult,
  ctx: CommandContext,
  loaded?: Loaded<MonitorState>,
): Promise<Handled<MonitorState>> => {
  const current = loaded ?? (await loadMonitor(deps, id));
  const { state } = current;
  if (state.id === null || state.deleted) return { events: [], position: null, state };
  await deps.log.append(
    checksStream(id),
    [newEvent({ type: 'CheckRecorded', data: { monitor_id: id, project_id: state.projectId, ...result } }, ctx)],
    'any',
  );
  return handle(deps, monitorStream(id), monitorDecider, { type: 'RecordCheck', result }, ctx, current);
};
