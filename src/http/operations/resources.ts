import type { Scope } from '../../domain/scope.ts';
import type { ProjectView } from '../../views/access/port.ts';
import type { ChannelView } from '../../views/channels/port.ts';
import type { DeliveryView } from '../../views/deliveries/port.ts';
import type { MonitorResponse, MonitorView } from '../../views/monitors/port.ts';
import type { ReadModels } from '../../views/read-models.ts';

/** The resources of a project a path names by `:id`, as their handlers get them. Each kind is
 *  also its name in a 404's message (`monitor not found`). */
export interface Resources {
  project: ProjectView;
  monitor: MonitorResponse;
  channel: ChannelView;
  delivery: DeliveryView;
}
export type ResourceKind = keyof Resources;

/** Finds a resource among those the caller's scope sees; null when there is none. */
export type ResourceLoaders = {
  readonly [K in ResourceKind]: (id: string, scope: Scope) => Promise<Resources[K] | null>;
};

/** Monitors with their uptime at the service clock's now: every monitor the API answers with
 *  carries it. */
export const withUptime = async (
  monitors: ReadModels['monitors'],
  views: MonitorView[],
  now: Date,
): Promise<MonitorResponse[]> => {
  const uptime = await monitors.uptime(
    views.map((v) => v.id),
    now,
  );
  return views.map((v) => ({ ...v, ...(uptime.get(v.id) ?? { uptime_24h: null, uptime_7d: null }) }));
};

export const resourceLoaders = (readModels: ReadModels, now: () => Date): ResourceLoaders => ({
  project: (id, scope) => readModels.access.getProject(id, scope),
  monitor: async (id, scope) => {
    const view = await readModels.monitors.get(id, scope);
    return view && (await withUptime(readModels.monitors, [view], now()))[0]!;
  },
  channel: (id, scope) => readModels.channels.get(id, scope),
  delivery: (id, scope) => readModels.deliveries.get(id, scope),
});
