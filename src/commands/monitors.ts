import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DomainError, notFound } from '../domain/errors.ts';
import { beatResult, missedBeat, type BeatReport } from '../domain/heartbeat.ts';
import { CHECKS_KEPT, decideSettings, monitorDecider, type CheckResult, type MonitorState } from '../domain/monitor.ts';
import type { MonitorCreateInput, MonitorUpdateInput } from '../domain/monitor-input.ts';
import { checksStream, monitorStream } from '../domain/streams.ts';
import { handle, load, newEvent, type CommandContext, type CommandDeps, type Handled, type Loaded } from './handle.ts';
import { requireProject } from './projects.ts';

export const loadMonitor = (deps: CommandDeps, id: string) => load(deps.log, monitorStream(id), monitorDecider);

/** The monitor limit is counted on the monitors read model (the log has no per-project index). */
export interface MonitorCreationDeps extends CommandDeps {
  /** How many monitors the project has, once the read model has caught up with the log. */
  monitorsInProject(projectId: string): Promise<number>;
  /** The cap (SPEC 8: 10; WATCHLOG_MONITORS_PER_PROJECT). */
  readonly monitorsPerProject: number;
}

/** A heartbeat token: 32 random bytes, URL-safe; only its SHA-256 is kept. */
export const heartbeatTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

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

/** Creates a monitor; a heartbeat monitor's token is answered here only (`heartbeat_token`). */
export const createMonitor = (deps: MonitorCreationDeps, input: MonitorCreateInput, ctx: CommandContext) =>
  oneAtATime(input.project_id, async () => {
    await requireProject(deps, input.project_id);
    const { project_id, ...given } = input;
    const id = randomUUID();
    const settings = decideSettings(given, id);
    const cap = deps.monitorsPerProject;
    if ((await deps.monitorsInProject(project_id)) >= cap) {
      throw new DomainError('conflict', `a project has at most ${cap} monitors`, [
        { path: 'project_id', message: `already has ${cap} monitors` },
      ]);
    }
    const token = settings.type === 'heartbeat' ? randomBytes(32).toString('base64url') : null;
    await deps.log.setStreamMaxCount(checksStream(id), CHECKS_KEPT);
    const handled = await handle(
      deps,
      monitorStream(id),
      monitorDecider,
      {
        type: 'CreateMonitor',
        monitor_id: id,
        project_id,
        settings,
        at: ctx.now().toISOString(),
        ...(token === null ? {} : { heartbeat_token_hash: heartbeatTokenHash(token) }),
      },
      ctx,
    );
    return { ...handled, id, heartbeatToken: token };
  });

export const updateMonitor = (deps: CommandDeps, id: string, changes: MonitorUpdateInput, ctx: CommandContext) =>
  handle(deps, monitorStream(id), monitorDecider, { type: 'UpdateMonitor', changes, at: ctx.now().toISOString() }, ctx);

export const deleteMonitor = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, monitorStream(id), monitorDecider, { type: 'DeleteMonitor', at: ctx.now().toISOString() }, ctx);

/** Records a check in the monitor's checks stream and, when it changes the monitor's state, the
 *  transition in the monitor's stream (decided again if another worker recorded one first, which
 *  usually makes it none). `loaded`: the monitor as the caller just read it, to save a read. A
 *  check of a deleted monitor records nothing. `inMaintenance`: a maintenance window covered the
 *  monitor when it was checked; the check and its transition say so. */
export const recordCheck = async (
  deps: CommandDeps,
  id: string,
  result: CheckResult,
  ctx: CommandContext,
  loaded?: Loaded<MonitorState>,
  inMaintenance = false,
): Promise<Handled<MonitorState>> => {
  const current = loaded ?? (await loadMonitor(deps, id));
  const { state } = current;
  if (state.id === null || state.deleted) return { events: [], position: null, state };
  await deps.log.append(
    checksStream(id),
    [
      newEvent(
        {
          type: 'CheckRecorded',
          data: {
            monitor_id: id,
            project_id: state.projectId,
            ...result,
            ...(inMaintenance ? { in_maintenance: true as const } : {}),
          },
        },
        ctx,
      ),
    ],
    'any',
  );
  const command = { type: 'RecordCheck' as const, result, ...(inMaintenance ? { in_maintenance: true } : {}) };
  return handle(deps, monitorStream(id), monitorDecider, command, ctx, current);
};

export type BeatOutcome = 'recorded' | 'paused';

/** A beat of a heartbeat monitor (found by its token): recorded as a check, a transition when it
 *  changes the state. A paused monitor records nothing. `inMaintenance` as for recordCheck. */
export const recordBeat = async (
  deps: CommandDeps,
  id: string,
  report: BeatReport,
  ctx: CommandContext,
  inMaintenance = false,
): Promise<BeatOutcome> => {
  const loaded = await loadMonitor(deps, id);
  const { state } = loaded;
  if (state.id === null || state.deleted || state.settings.type !== 'heartbeat') throw notFound('heartbeat monitor');
  if (!state.settings.enabled) return 'paused';
  await recordCheck(deps, id, beatResult(ctx.now(), report), ctx, loaded, inMaintenance);
  return 'recorded';
};

/** The worker's look at a heartbeat monitor: a missed beat is recorded as a failed check. */
export const watchHeartbeat = async (
  deps: CommandDeps,
  id: string,
  ctx: CommandContext,
  loaded?: Loaded<MonitorState>,
  inMaintenance = false,
): Promise<Handled<MonitorState> | null> => {
  const current = loaded ?? (await loadMonitor(deps, id));
  const last = await deps.log.readLast(checksStream(id));
  const missed = missedBeat(current.state, last === null ? null : (last.data as CheckResult), ctx.now());
  return missed === null ? null : recordCheck(deps, id, missed, ctx, current, inMaintenance);
};
