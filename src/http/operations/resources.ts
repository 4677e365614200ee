import { coversMonitor } from '../../domain/maintenance.ts';
import type { Scope } from '../../domain/scope.ts';
import { maskedOptions } from '../../domain/monitor-options.ts';
import { uptimeAt } from '../../domain/monitor-uptime.ts';
import type { ProjectView } from '../../views/access/port.ts';
import type { ChannelView } from '../../views/channels/port.ts';
import type { DeliveryView } from '../../views/deliveries/port.ts';
import type { IncidentView } from '../../views/incidents/port.ts';
import type { MaintenanceView } from '../../views/maintenances/port.ts';
import type { StatusPageView } from '../../views/status-pages/port.ts';
import type { MonitorResponse, MonitorView } from '../../views/monitors/port.ts';
import type { ReadModels } from '../../views/read-models.ts';

/** The resources of a project a path names by `:id`, as their handlers get them. Each kind is
 *  has its name in words for a 404's message (`status page not found`). */
export interface Resources {
  project: ProjectView;
  /** Secrets included: answer it through `monitorAnswers`. */
  monitor: MonitorView;
  channel: ChannelView;
  delivery: DeliveryView;
  statusPage: StatusPageView;
  incident: IncidentView;
  maintenance: MaintenanceView;
}
export type ResourceKind = keyof Resources;

/** Each kind's name in words, for its 404 (`status page not found`). */
export const RESOURCE_NAMES: { readonly [K in ResourceKind]: string } = {
  project: 'project',
  monitor: 'monitor',
  channel: 'channel',
  delivery: 'delivery',
  statusPage: 'status page',
  incident: 'incident',
  maintenance: 'maintenance window',
};

/** Finds a resource among those the caller's scope sees; null when there is none. */
export type ResourceLoaders = {
  readonly [K in ResourceKind]: (id: string, scope: Scope) => Promise<Resources[K] | null>;
};

/** The monitors among these that an open maintenance window covers at `now`: open as the
 *  maintenance clock recorded it, and not past its end (the clock records the end a few seconds
 *  late). One read of each project's windows, however many monitors. */
export const inMaintenance = async (
  maintenances: ReadModels['maintenances'],
  monitors: ReadonlyArray<{ id: string; project_id: string }>,
  now: Date,
): Promise<Set<string>> => {
  const covered = new Set<string>();
  const time = now.getTime();
  for (const projectId of new Set(monitors.map((m) => m.project_id))) {
    const open = (await maintenances.ofProject(projectId)).filter(
      ({ open }) => open !== null && Date.parse(open.start) <= time && time < Date.parse(open.end),
    );
    if (open.length === 0) continue;
    for (const m of monitors)
      if (m.project_id === projectId && open.some((w) => coversMonitor(w.monitor_ids, m.id))) covered.add(m.id);
  }
  return covered;
};

/** Monitors as the API answers them: with their uptime at the service clock's now, whether a
 *  maintenance window covers them now, and their header values and credentials masked. */
export const monitorAnswers = async (
  readModels: Pick<ReadModels, 'monitors' | 'maintenances'>,
  views: MonitorView[],
  now: Date,
): Promise<MonitorResponse[]> => {
  const uptime = await readModels.monitors.uptime(
    views.map((v) => v.id),
    now,
  );
  const covered = await inMaintenance(readModels.maintenances, views, now);
  return views.map((v) => ({
    ...maskedOptions(v),
    ...(uptime.get(v.id) ?? uptimeAt([], [], now)),
    in_maintenance: covered.has(v.id),
  }));
};

export const resourceLoaders = (readModels: ReadModels): ResourceLoaders => ({
  project: (id, scope) => readModels.access.getProject(id, scope),
  monitor: (id, scope) => readModels.monitors.get(id, scope),
  channel: (id, scope) => readModels.channels.get(id, scope),
  delivery: (id, scope) => readModels.deliveries.get(id, scope),
  statusPage: (id, scope) => readModels.statusPages.get(id, scope),
  incident: (id, scope) => readModels.incidents.get(id, scope),
  maintenance: (id, scope) => readModels.maintenances.get(id, scope),
});
