import { INTERVAL_MS, exactRange, intervalFor, statisticsOf } from '../../domain/stats.ts';
import { pathFilterOf } from '../../domain/search.ts';
import type { RouteDeps } from '../deps.ts';
import { validationError } from '../middleware/errors.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import { MAX_TIMELINE_POINTS, type statsOperations } from '../operations/stats.ts';
import { narrowed } from './viewer-reads.ts';

/** SPEC 4.4: statistics of the caller's projects (or one). `start_date` and `end_date` are exact,
 *  inclusive bounds, as in the list and the export, so the three count the same events: the whole
 *  minutes inside the range come from the stats-buckets read model (O(buckets), never a scan of
 *  events), the partial minutes at its two edges from the events in them. A tenant or a path
 *  (issue 34) is not a dimension of the buckets: with one, every minute comes from the matching
 *  events, read by the index led by the project and that filter. A viewer token's statistics are
 *  its tenant's (and its identifier's), so they always come from the events. */
export const statsHandlers: Handlers<typeof statsOperations, RouteDeps> = {
  statistics: async ({ query: asked, principal }, deps) => {
    const q = narrowed(principal, asked);
    const scope = principal.scope;
    const to = q.end_date !== undefined ? Date.parse(q.end_date) : deps.now().getTime();
    const from = q.start_date !== undefined ? Date.parse(q.start_date) : to - INTERVAL_MS.day;
    const interval = q.interval ?? intervalFor(from, to);
    if ((to - from) / INTERVAL_MS[interval] > MAX_TIMELINE_POINTS) {
      throw validationError('query', [
        { path: 'interval', message: `is too fine for the range: at most ${MAX_TIMELINE_POINTS} ${interval} points` },
      ]);
    }
    const filter = {
      ...(q.project_id === undefined ? {} : { project_id: q.project_id }),
      ...(q.service_name === undefined ? {} : { service_name: q.service_name }),
      ...(q.environment === undefined ? {} : { environment: q.environment }),
      ...(q.tenant_id === undefined ? {} : { tenant_id: q.tenant_id }),
      ...(principal.viewer?.identifier ? { identifier: principal.viewer.identifier } : {}),
      ...pathFilterOf(q.path),
    };
    const bucketed = q.tenant_id === undefined && q.path === undefined;
    const { minutes, edges } = bucketed ? exactRange(from, to) : { minutes: null, edges: [[from, to] as const] };
    const [whole, partial] = await Promise.all([
      minutes
        ? deps.readModels.stats.buckets(
            { ...filter, from: minutes[0], to: minutes[1], hourly: interval !== 'minute' },
            scope,
          )
        : [],
      Promise.all(
        edges.map(([start, end]) =>
          deps.readModels.auditEvents.statsContributions({ ...filter, from: start, to: end }, scope),
        ),
      ),
    ]);
    return ok(statisticsOf([...whole, ...partial.flat()], from, to, interval));
  },
};
