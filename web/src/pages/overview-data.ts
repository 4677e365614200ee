import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import { call, type Monitor, type MonitorStatus, type Operations } from '../api.ts';
import { formatNumber } from '../format.ts';

/** watchlog's own project (docs/security.md): its events are `system.access`, never `http`. */
export const SELF_PROJECT_ID = '00000000-0000-4000-8000-00000000a0d1';

export type Interval = NonNullable<Operations['GET /v1/audit/stats']['query']['interval']>;
export type RangeKey = '1h' | '24h' | '7d' | '30d';

/** Each range with the interval that gives a readable chart (60, 24, 168 and 30 points). */
export const RANGES: Record<RangeKey, { label: string; short: string; ms: number; interval: Interval }> = {
  '1h': { label: 'Last hour', short: '1 h', ms: 3_600_000, interval: 'minute' },
  '24h': { label: 'Last 24 hours', short: '24 h', ms: 86_400_000, interval: 'hour' },
  '7d': { label: 'Last 7 days', short: '7 d', ms: 7 * 86_400_000, interval: 'hour' },
  '30d': { label: 'Last 30 days', short: '30 d', ms: 30 * 86_400_000, interval: 'day' },
};

export const isRangeKey = (s: string | null): s is RangeKey => s !== null && Object.hasOwn(RANGES, s);

/** How often the statistics are asked again: traffic figures need not be as fresh as health. */
export const STATS_MS = 10_000;

/** The statistics of a project over a range ending now. The dates are taken when the query runs,
 *  not in its key, so each refetch slides the window forward and the cache entry stays one. The
 *  Overview and All Projects share entries ('24h'). */
export const statsQuery = (projectId: string, range: RangeKey) =>
  queryOptions({
    queryKey: ['stats', projectId, range],
    queryFn: () => {
      const end = Date.now();
      const { ms, interval } = RANGES[range];
      return call('GET /v1/audit/stats', {
        query: {
          project_id: projectId,
          start_date: new Date(end - ms).toISOString(),
          end_date: new Date(end).toISOString(),
          interval,
        },
      });
    },
    refetchInterval: STATS_MS,
    placeholderData: keepPreviousData,
  });

const RANK: Record<MonitorStatus, number> = { UP: 0, PENDING: 1, DOWN: 2 };

/** The monitor that speaks for a service: the one named as it (SPEC 2.8), the worst if several. */
export const monitorFor = (monitors: readonly Monitor[], serviceName: string): Monitor | undefined =>
  monitors.filter((m) => m.name === serviceName).sort((a, b) => RANK[b.status] - RANK[a.status])[0];

/** A part of a whole as a percentage, a dash for an empty whole. */
export const share = (part: number, total: number): string =>
  total === 0 ? '—' : `${formatNumber((part / total) * 100, 1)} %`;
