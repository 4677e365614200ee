import { useQuery } from '@tanstack/react-query';
import { call } from './api.ts';

/** How often live views ask again: a DOWN transition reaches the banner within this plus the
 *  projector's lag (well inside 10 s). */
export const LIVE_MS = 4_000;

export const useProjects = () =>
  useQuery({ queryKey: ['projects'], queryFn: () => call('GET /v1/projects'), staleTime: 30_000 });

/** Every monitor the user may see, refreshed live (the banner, the Health column, All Projects). */
export const useAllMonitors = () =>
  useQuery({ queryKey: ['monitors', 'all'], queryFn: () => call('GET /v1/monitors'), refetchInterval: LIVE_MS });

/** A project's monitors, refreshed live (the Monitors page, the pickers and previews of status
 *  pages, incidents and maintenance windows share this query). */
export const useProjectMonitors = (projectId: string) =>
  useQuery({
    queryKey: ['monitors', 'project', projectId],
    queryFn: () => call('GET /v1/monitors', { query: { project_id: projectId } }),
    refetchInterval: LIVE_MS,
  });
