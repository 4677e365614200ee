import type { ApiClient } from './client.ts';

/** What the API answers about the projects a file names: the state a plan compares the file
 *  with. Only the fields the file can set are read. */

export interface Named {
  readonly id: string;
  readonly name: string;
}
export type MonitorAnswer = Named & Record<string, unknown> & { managed_by?: string; type: string };
export type ChannelAnswer = { id: string; name: string | null; type: string } & Record<string, unknown>;
export type PageAnswer = { id: string; slug: string; groups: Array<{ name: string; monitor_ids: string[] }> } & Record<
  string,
  unknown
>;
export interface Schedule {
  kind: 'once' | 'recurring';
  starts_at: string;
  ends_at?: string;
  rrule?: string;
  duration_minutes?: number;
  timezone?: string;
}
export type MaintenanceAnswer = {
  id: string;
  title: string;
  description: string | null;
  monitor_ids: 'all' | string[];
  schedule: Schedule;
  managed_by?: string;
};

export interface ProjectState {
  readonly id: string;
  readonly name: string;
  readonly monitors: MonitorAnswer[];
  readonly channels: ChannelAnswer[];
  readonly pages: PageAnswer[];
  readonly maintenances: MaintenanceAnswer[];
  readonly masking: { keys: string[]; patterns: string[] };
  readonly retention_days: number | null;
  readonly anomaly: Record<string, Record<string, unknown>>;
}

export const listProjects = (client: ApiClient) => client.get<Named[]>('/v1/projects');

export const readProject = async (client: ApiClient, project: Named): Promise<ProjectState> => {
  const q = `?project_id=${project.id}`;
  const at = `/v1/projects/${project.id}`;
  const [monitors, channels, pages, maintenances, masking, retention, anomaly] = await Promise.all([
    client.get<MonitorAnswer[]>(`/v1/monitors${q}`),
    client.get<ChannelAnswer[]>(`/v1/channels${q}`),
    client.get<PageAnswer[]>(`/v1/status-pages${q}`),
    client.get<MaintenanceAnswer[]>(`/v1/maintenances${q}`),
    client.get<{ keys: string[]; patterns: string[] }>(`${at}/masking`),
    client.get<{ retention_days: number | null }>(`${at}/retention`),
    client.get<Record<string, unknown>>(`${at}/anomaly-settings`),
  ]);
  const { project_id: _p, updated_at: _u, ...rules } = anomaly;
  return {
    id: project.id,
    name: project.name,
    // A channel of `project_scope: all` made in another project is listed for each; it is its own.
    monitors: monitors.filter((m) => m.project_id === project.id),
    channels: channels.filter((c) => c.project_id === project.id),
    pages,
    maintenances,
    masking: { keys: masking.keys, patterns: masking.patterns },
    retention_days: retention.retention_days,
    anomaly: rules as Record<string, Record<string, unknown>>,
  };
};
