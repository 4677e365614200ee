import type Router from '@koa/router';
import * as t from 'io-ts';
import { Environment, HttpMethod } from '../../domain/audit-event.ts';
import { IsoTimestamp, Uuid, isUuid } from '../../domain/codecs.ts';
import { summarizeExplicitSession } from '../../domain/sessions.ts';
import { ORPHAN_WINDOW_MS } from '../../domain/orphans.ts';
import { AnomalyRule } from '../../domain/anomaly.ts';
import { SORT_FIELDS, type AuditListQuery } from '../../views/audit-events/port.ts';
import { principalOf, visibleProjectFilter } from '../middleware/auth.ts';
import { HttpError, validationError } from '../middleware/errors.ts';
import { answerWithPageHeaders } from '../middleware/paging.ts';
import { IntFromString, NoParameters, readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

export const EventType = t.keyof({
  http: null,
  'system.alert': null,
  'system.healthcheck.down': null,
  'system.healthcheck.up': null,
  'system.access': null,
});

export const MAX_PAGE_SIZE = 100;
export const MAX_SESSION_EVENTS = 10_000;

/** SPEC 4.2 filters, shared by the list and (later) the export. */
export const AuditFilterQuery = t.partial({
  project_id: Uuid,
  service_name: t.string,
  method: HttpMethod,
  status_code: IntFromString(100, 599),
  environment: Environment,
  identifier: t.string,
  start_date: IsoTimestamp,
  end_date: IsoTimestamp,
  event_type: EventType,
});

const Paging = t.partial({
  page: IntFromString(1, Number.MAX_SAFE_INTEGER),
  limit: IntFromString(1, MAX_PAGE_SIZE),
});

export const AuditListQueryCodec = t.exact(
  t.intersection([
    AuditFilterQuery,
    Paging,
    t.partial({
      sort_by: t.keyof(
        Object.fromEntries(SORT_FIELDS.map((f) => [f, null])) as Record<AuditListQuery['sort_by'], null>,
      ),
      sort_order: t.keyof({ asc: null, desc: null }),
    }),
  ]),
);

/** The filters the read-side lists share: a project, a service, and a time range. */
export const ProjectServiceRange = t.partial({
  project_id: Uuid,
  service_name: t.string,
  start_date: IsoTimestamp,
  end_date: IsoTimestamp,
});

export const DerivedSessionsQueryCodec = t.exact(
  t.intersection([Paging, ProjectServiceRange, t.partial({ identifier: t.string })]),
);

export const OrphansQueryCodec = t.exact(t.intersection([Paging, ProjectServiceRange]));

export const AnomaliesQueryCodec = t.exact(
  t.intersection([Paging, ProjectServiceRange, t.partial({ rule: AnomalyRule })]),
);

export const checkDateRange = (q: { start_date?: string; end_date?: string }): void => {
  if (q.start_date && q.end_date && Date.parse(q.start_date) > Date.parse(q.end_date)) {
    throw validationError('query', [{ path: 'start_date', message: 'must not be after end_date' }]);
  }
};

export const auditRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/v1/audit', ...deps.jwt, async (ctx) => {
    const q = readQuery(ctx.query, AuditListQueryCodec);
    checkDateRange(q);
    const { scope } = principalOf(ctx.state);
    await visibleProjectFilter(deps.readModels.access, scope, q.project_id);
    const query: AuditListQuery = {
      ...q,
      page: q.page ?? 1,
      limit: q.limit ?? 20,
      sort_by: q.sort_by ?? 'timestamp',
      sort_order: q.sort_order ?? 'desc',
    };
    ctx.body = await deps.readModels.auditEvents.list(query, scope);
  });

  // SPEC 4.9: alerts, newest first, paginated like the list; `rule` filters on the alert's path;
  // `open` says whether the alert's condition still holds.
  router.get('/v1/audit/anomalies', ...deps.jwt, async (ctx) => {
    const { rule, page = 1, limit = 20, ...filter } = readQuery(ctx.query, AnomaliesQueryCodec);
    checkDateRange(filter);
    const { scope } = principalOf(ctx.state);
    await visibleProjectFilter(deps.readModels.access, scope, filter.project_id);
    const query: AuditListQuery = {
      ...filter,
      ...(rule === undefined ? {} : { path: rule }),
      event_type: 'system.alert',
      page,
      limit,
      sort_by: 'timestamp',
      sort_order: 'desc',
    };
    const alerts = await deps.readModels.auditEvents.list(query, scope, { withRequestBody: true });
    // Whether each alert's condition still holds: the open alerts are few, and kept apart from
    // the events so that clearing an alert never rewrites its audit event.
    const open = new Set((await deps.readModels.anomalies.openAlerts()).map((a) => a.alert_id));
    ctx.body = { ...alerts, data: alerts.data.map((item) => ({ ...item, open: open.has(item.id) })) };
  });

  // SPEC 4.5: browser events with a request_id that no backend event of the project carried
  // within ORPHAN_WINDOW_MS; only events older than the window are judged.
  router.get('/v1/audit/orphans', ...deps.jwt, async (ctx) => {
    const { page = 1, limit = 20, ...filter } = readQuery(ctx.query, OrphansQueryCodec);
    checkDateRange(filter);
    const { scope } = principalOf(ctx.state);
    await visibleProjectFilter(deps.readModels.access, scope, filter.project_id);
    const settledBefore = deps.now().getTime() - ORPHAN_WINDOW_MS;
    ctx.body = await deps.readModels.orphans.list({ ...filter, settledBefore, page, limit }, scope);
  });

  // SPEC 4.6: a bare array of derived sessions, newest first; dates bound session_start. Paged
  // like the list, with the paging in headers (X-Total-Count, Link).
  router.get('/v1/audit/sessions', ...deps.jwt, async (ctx) => {
    const { page = 1, limit = 20, ...filter } = readQuery(ctx.query, DerivedSessionsQueryCodec);
    checkDateRange(filter);
    const { scope } = principalOf(ctx.state);
    await visibleProjectFilter(deps.readModels.access, scope, filter.project_id);
    answerWithPageHeaders(ctx, await deps.readModels.derivedSessions.list({ ...filter, page, limit }, scope));
  });

  // SPEC 4.7: every event carrying the session_id, oldest first (the first MAX_SESSION_EVENTS of
  // them; event_count and session_end cover all).
  router.get('/v1/audit/sessions/:session_id', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const sessionId = ctx.params.session_id ?? '';
    const found =
      sessionId.length > 0 && sessionId.length <= 255
        ? await deps.readModels.auditEvents.sessionEvents(sessionId, principalOf(ctx.state).scope, MAX_SESSION_EVENTS)
        : null;
    const session = found && summarizeExplicitSession(sessionId, found);
    if (!session) throw new HttpError(404, 'not_found', 'session not found');
    ctx.body = session;
  });

  router.get('/v1/audit/:id', ...deps.jwt, async (ctx) => {
    readQuery(ctx.query, NoParameters);
    const id = ctx.params.id ?? '';
    const event = isUuid(id)
      ? await deps.readModels.auditEvents.get(id.toLowerCase(), principalOf(ctx.state).scope)
      : null;
    if (!event) throw new HttpError(404, 'not_found', 'audit event not found');
    ctx.body = event;
  });
};
