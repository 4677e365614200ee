import { createHash, randomUUID } from 'node:crypto';
import { incidentDecider, type IncidentCreateInput, type IncidentUpdateInput } from '../domain/incident.ts';
import { incidentStream } from '../domain/streams.ts';
import { handle, type CommandContext, type CommandDeps } from './handle.ts';
import { requireProject } from './projects.ts';

export const openIncident = async (deps: CommandDeps, input: IncidentCreateInput, ctx: CommandContext) => {
  await requireProject(deps, input.project_id);
  const id = randomUUID();
  const handled = await handle(
    deps,
    incidentStream(id),
    incidentDecider,
    {
      type: 'OpenIncident',
      incident_id: id,
      update_id: randomUUID(),
      project_id: input.project_id,
      title: input.title,
      status: input.status,
      impact: input.impact ?? 'minor',
      monitor_ids: input.monitor_ids ?? [],
      message: input.message,
      auto: null,
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  return { ...handled, id };
};

export const postIncidentUpdate = (deps: CommandDeps, id: string, input: IncidentUpdateInput, ctx: CommandContext) =>
  handle(
    deps,
    incidentStream(id),
    incidentDecider,
    {
      type: 'PostIncidentUpdate',
      update_id: randomUUID(),
      status: input.status,
      message: input.message,
      ...(input.impact === undefined ? {} : { impact: input.impact }),
      at: ctx.now().toISOString(),
    },
    ctx,
  );

export const deleteIncident = (deps: CommandDeps, id: string, ctx: CommandContext) =>
  handle(deps, incidentStream(id), incidentDecider, { type: 'DeleteIncident', at: ctx.now().toISOString() }, ctx);

/** The id of the incident a monitor's DOWN opens: derived from that event, so a replay of the
 *  reactor finds it instead of opening another. Shaped as a UUID (version nibble 5). */
export const autoIncidentId = (downEventId: string): string => {
  const h = createHash('sha256').update(`auto-incident\n${downEventId}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

export interface AutoIncident {
  project_id: string;
  monitor_id: string;
  /** The monitor's name as its status pages show it. */
  monitor_name: string;
  down_event_id: string;
  at: string;
}

export const openAutoIncident = (deps: CommandDeps, down: AutoIncident, ctx: CommandContext) => {
  const id = autoIncidentId(down.down_event_id);
  return handle(
    deps,
    incidentStream(id),
    incidentDecider,
    {
      type: 'OpenIncident',
      incident_id: id,
      update_id: randomUUID(),
      project_id: down.project_id,
      title: `${down.monitor_name} is down`,
      status: 'investigating',
      impact: 'major',
      monitor_ids: [down.monitor_id],
      message: `${down.monitor_name} is not responding as expected. We are looking into it.`,
      auto: { monitor_id: down.monitor_id, down_event_id: down.down_event_id },
      at: down.at,
    },
    ctx,
  );
};

export const resolveAutoIncident = (
  deps: CommandDeps,
  incidentId: string,
  monitorName: string,
  at: string,
  ctx: CommandContext,
) =>
  handle(
    deps,
    incidentStream(incidentId),
    incidentDecider,
    {
      type: 'ResolveAutomatically',
      update_id: randomUUID(),
      message: `${monitorName} is up again.`,
      at,
    },
    ctx,
  );
