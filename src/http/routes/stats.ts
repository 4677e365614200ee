import type Router from '@koa/router';
import * as t from 'io-ts';
import { Environment } from '../../domain/audit-event.ts';
import { INTERVAL_MS, exactRange, intervalFor, statisticsOf } from '../../domain/stats.ts';
import { principalOf, visibleProjectFilter } from '../middleware/auth.ts';
import { validationError } from '../middleware/errors.ts';
import { readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { ProjectServiceRange, checkDateRange } from './audit.ts';

/** More timeline points than this is a request for the wrong interval. */
export const MAX_TIMELINE_POINTS = 1500;

export const StatsQuery = t.exact(
  t.intersection([
    ProjectServiceRange,
    t.partial({ environment: Environment, interval: t.keyof({ minute: null, hour: null, day: null }) }),
  ]),
);

/** SPEC 4.4: statistics of the caller's projects (or one). `start_date` and `end_date` are exact,
 *  inclusive bounds, as in the list and the export, so the three count the same events: the whole
 *  minutes inside the range come from the stats-buckets read model (O(buckets), never a scan of
 *  events), the partial minutes at its two edges from the events in them. */
export const statsRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/v1/audit/stats', ...deps.jwt, async (ctx) => {
    const q = readQuery(ctx.query, StatsQuery);
    checkDateRange(q);
    const { scope } = principalOf(ctx.state);
    await visibleProjectFilter(deps.readModels.access, scope, q.project_id);
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
    };
    const { minutes, edges } = exactRange(from, to);
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
    ctx.body = statisticsOf([...whole, ...partial.flat()], from, to, interval);
  });
};
