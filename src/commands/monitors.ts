import { randomUUID } from 'node:crypto';
import { DomainError } from '../domain/errors.ts';
import {
  CHECKS_KEPT, DEFAULTS, MONITORS_PER_PROJECT, assertMonitorExists, assertTimeoutBelowInterval, decideTransition, decideUpdate,
  evolveMonitor, initialMonitor, type CheckResult, type MonitorCreateInput, type MonitorState, type MonitorUpdateInput, type Transition,
} from '../domain/monitor.ts';
import { assertProjectExists, evolveProject, initialProject } from '../domain/project.ts';
import { WrongExpectedRevisionError } from '../log/event-log.ts';
import type { MonitorView } from '../views/ports.ts';
import { loadAggregate, newEvent, type CommandContext, type CommandDeps } from './context.ts';
import { projectStream } from './projects.ts';

export const monitorStream = (id: string) => `monitor-${id}`;
export const checksStream = (id: string) => `monitor-${id}-checks`;

export const loadMonitor = (deps: Pick<CommandDeps, 'log'>, id: string) =>
  loadAggregate(deps.log, monitorStream(id), initialMonitor, evolveMonitor);

/** The monitor as the read model shows it once it has applied `position`. */
const viewAfter = async (deps: CommandDeps, id: string, position: string): Promise<MonitorView | null> => {
  await deps.monitorsSettled(position);
  return deps.readModels.monitors.get(id, { all: true });
};

/** Creations per project run one at a time in this process, so two concurrent requests cannot
 *  both see room for one more monitor. (Across API processes the count is read from the read
 *  model: two processes racing for the last slot may both win; documented.) */
const creationQueues = new Map<string, Promise<unknown>>();
const oneAtATime = <T>(key: string, work: () => Promise<T>): Promise<T> => {
  const previous = creationQueues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(work);
  creationQueues.set(key, next);
  void next.catch(() => undefined).finally(() => creationQueues.get(key) === next && creationQueues.delete(key));
  return next;
};

export const createMonitor = (deps: CommandDeps, input: MonitorCreateInput, ctx: CommandContext): Promise<MonitorView> =>
  oneAtATime(input.project_id, async () => {
    const { state: project } = await loadAggregate(deps.log, projectStream(input.project_id), initialProject, evolveProject);
    assertProjectExists(project);
    const settings = { ...DEFAULTS, ...input };
    assertTimeoutBelowInterval(settings);
    const head = await deps.log.headPosition();
    if (head !== null) await deps.monitorsSettled(head);
    if ((await deps.readModels.monitors.countInProject(input.project_id)) >= MONITORS_PER_PROJECT) {
      throw new DomainError('conflict', `a project has at most ${MONITORS_PER_PROJECT} monitors`, [
        { path: 'project_id', message: `already has ${MONITORS_PER_PROJECT} monitors` },
      ]);
    }
    const id = randomUUID();
    await deps.log.setStreamMaxCount(checksStream(id), CHECKS_KEPT);
    const { position } = await deps.log.append(monitorStream(id), [newEvent('MonitorCreated', {
      monitor_id: id, created_at: ctx.now().toISOString(), ...settings,
    }, ctx)], 'no_stream');
    return (await viewAfter(deps, id, position))!;
  });

export const updateMonitor = async (deps: CommandDeps, id: string, input: MonitorUpdateInput, ctx: CommandContext): Promise<MonitorView> => {
  const { state, revision } = await loadMonitor(deps, id);
  const changes = decideUpdate(state, input);
  if (Object.keys(changes).length === 0) return (await viewAfter(deps, id, (await deps.log.headPosition()) ?? '0'))!;
  const { position } = await deps.log.append(monitorStream(id), [newEvent('MonitorUpdated', {
    monitor_id: id, project_id: state.projectId, changes, updated_at: ctx.now().toISOString(),
  }, ctx)], revision);
  return (await viewAfter(deps, id, position))!;
};

export const deleteMonitor = async (deps: CommandDeps, id: string, ctx: CommandContext): Promise<void> => {
  const { state, revision } = await loadMonitor(deps, id);
  assertMonitorExists(state);
  const { position } = await deps.log.append(monitorStream(id), [newEvent('MonitorDeleted', {
    monitor_id: id, project_id: state.projectId, deleted_at: ctx.now().toISOString(),
  }, ctx)], revision);
  await deps.monitorsSettled(position);
};

/** Records a check and, when it changes the monitor's state, the transition. The transition is
 *  appended at the revision the decision was made on: when another worker recorded one first,
 *  the decision is made again on the new state (which usually makes it no transition at all). */
export const recordCheck = async (
  deps: Pick<CommandDeps, 'log'>, id: string, result: CheckResult, ctx: CommandContext,
): Promise<{ state: MonitorState; transition: Transition | null }> => {
  for (let attempt = 0; ; attempt += 1) {
    const { state, revision } = await loadMonitor(deps, id);
    if (state.id === null || state.deleted) return { state, transition: null };
    if (attempt === 0) {
      await deps.log.append(checksStream(id), [newEvent('CheckRecorded', { monitor_id: id, project_id: state.projectId, ...result }, ctx)], 'any');
    }
    const transition = decideTransition(state, result);
    if (!transition) return { state, transition: null };
    try {
      await deps.log.append(monitorStream(id), [newEvent(transition.type, transition.data, ctx)], revision);
      return { state: evolveMonitor(state, transition), transition };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 4) throw error;
    }
  }
};
