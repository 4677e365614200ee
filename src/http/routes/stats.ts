import type Router from '@koa/router';
import * as t from 'io-ts';
import { Environment } from '../../domain/audit-event.ts';
import { INTERVAL_MS, intervalFor, minuteOf, statisticsOf } from '../../domain/stats.ts';
import { principalOf } from '../middleware/auth.ts';
import { HttpError, decodeOrThrow } from '../middleware/errors.ts';
import { singleValued } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { ProjectServiceRange, checkDateRange } from './audit.ts';

/** More timeline points than this is a request for the wrong interval. */
export const MAX_TIMELINE_POINTS = 1500;

const StatsQuery = t.exact(t.intersection([
  ProjectServiceRange,
  t.partial({ environment: Environment, interval: t.keyof({ minute: null, hour: null, day: null }, 'minute | hour | day') }),
]));

/** SPEC 4.4: statistics of the caller's projects (or one), from the stats-buckets read model:
 *  O(buckets in the range), never a scan of events. Ranges resolve to whole minutes. */
export const statsRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/v1/audit/stats', ...deps.jwt, async (ctx) => {
    const q = decodeOrThrow(StatsQuery, singleValued(ctx.query), 'query');
    checkDateRange(q);
    const to = q.end_date !== undefined ? Date.parse(q.end_date) : deps.now().getTime();
    const from = q.start_date !== undefined ? Date.parse(q.start_date) : to - INTERVAL_MS.day;
    const interval = q.interval ?? intervalFor(from, to);
    if ((to - from) / INTERVAL_MS[interval] > MAX_TIMELINE_POINTS) {
      throw new HttpError(400, 'validation_error', `invalid query: more than ${MAX_TIMELINE_POINTS} ${interval} points in the range`,
        [{ path: 'interval', message: `too fine for the range (at most ${MAX_TIMELINE_POINTS} points)` }]);
    }
    const buckets = await deps.readModels.stats.buckets({
      ...(q.project_id === undefined ? {} : { project_id: q.project_id }),
      ...(q.service_name === undefined ? {} : { service_name: q.service_name }),
      ...(q.environment === undefined ? {} : { environment: q.environment }),
      from: minuteOf(from), to: minuteOf(to), hourly: interval !== 'minute',
    }, principalOf(ctx.state).scope);
    ctx.body = statisticsOf(buckets, from, to, interval);
  });
};
