import type { Scope } from '../../domain/scope.ts';
import { maskedOptions } from '../../domain/monitor-options.ts';
import { uptimeAt } from '../../domain/monitor-uptime.ts';
import type { ProjectView } from '../../views/access/port.ts';
import type { ChannelView } from '../../views/channels/port.ts';
import type { DeliveryView } from '../../views/deliveries/port.ts';
import type { MonitorResponse, MonitorView } from '../../views/monitors/port.ts';
import type { ReadModels } from '../../views/read-models.ts';

/** The resources of a project a path names by `:id`, as their handlers get them. Each kind is
 *  also its name in a 404's message (`monitor not found`). */
export interface Resources {
  project: ProjectView;
  /** Secrets included: answer it through `monitorAnswers`. */
  monitor: MonitorView;
  channel: ChannelView;
  delivery: DeliveryView;
}
export type ResourceKind = keyof Resources;

/** Finds a resource among those the caller's scope sees; null when there is none. */
export type ResourceLoaders = {
  readonly [K in ResourceKind]: (id: string, scope: Scope) => Promise<Resources[K] | null>;
};

/** Monitors as the API answers them: with their uptime at the service clock's now, and their
 *  header values and credentials masked. */
export const monitorAnswers = async (
  monitors: ReadModels['monitors'],
  views: MonitorView[],
  now: Date,
): Promise<MonitorResponse[]> => {
  const uptime = await monitors.uptime(
    views.map((v) => v.id),
    now,
  );
  return views.map((v) => ({ ...maskedOptions(v), ...(uptime.get(v.id) ?? uptimeAt([], [], now)) }));
};

export const resourceLoaders = (readModels: ReadModels): ResourceLoaders => ({
  project: (id, scope) => readModels.access.getProject(id, scope),
  monitor: (id, scope) => readModels.monitors.get(id, scope),
  channel: (id, scope) => readModels.channels.get(id, scope),
  delivery: (id, scope) => readModels.deliveries.get(id, scope),
});
