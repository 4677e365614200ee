import { ORPHAN_WINDOW_MS } from '../../domain/orphans.ts';
import { pageOf } from '../../domain/page.ts';
import { type PathMatch, type SearchQuery, pathFilterOf } from '../../domain/search.ts';
import { sessionsOfEvents, summarizeExplicitSession } from '../../domain/sessions.ts';
import type { AuditListQuery } from '../../views/audit-events/port.ts';
import type { RouteDeps } from '../deps.ts';
import { HttpError } from '../middleware/errors.ts';
import { pageInHeaders } from '../middleware/paging.ts';
import { MAX_SESSION_EVENTS, type auditOperations } from '../operations/audit.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import { narrowed, readable, shown } from './viewer-reads.ts';

/** How many of the newest matching events derived sessions are made of when a filter the
 *  derived-sessions read model does not keep (a tenant, a path) asks for them. */
export const MAX_SESSION_ACTIVITY = 100_000;

/** A list's or an export's query as the audit-events read model's filter: `path` exact or a
 *  prefix, `q` parsed. */
export const auditFilterOf = <Q extends { path?: PathMatch; q?: SearchQuery }>({ path, q, ...rest }: Q) => ({
  ...rest,
  ...pathFilterOf(path),
  ...(q === undefined ? {} : { search: q }),
});

export const auditHandlers: Handlers<typeof auditOperations, RouteDeps> = {
  list: async ({ query: q, principal }, deps) => {
    const query: AuditListQuery = {
      ...auditFilterOf(narrowed(principal, q)),
      page: q.page ?? 1,
      limit: q.limit ?? 20,
      sort_by: q.sort_by ?? 'timestamp',
      sort_order: q.sort_order ?? 'desc',
    };
    const page = await deps.readModels.auditEvents.list(query, principal.scope);
    return ok(principal.viewer ? { ...page, data: page.data.map((item) => shown(principal, item, true)) } : page);
  },

  // SPEC 4.9: alerts, newest first, paginated like the list; `rule` filters on the alert's path;
  // `open` says whether the alert's condition still holds.
  anomalies: async ({ query: { rule, page = 1, limit = 20, ...filter }, principal }, deps) => {
    const query: AuditListQuery = {
      ...filter,
      ...(rule === undefined ? {} : { path: rule }),
      event_type: 'system.alert',
      page,
      limit,
      sort_by: 'timestamp',
      sort_order: 'desc',
    };
    const alerts = await deps.readModels.auditEvents.list(query, principal.scope, { withRequestBody: true });
    // Whether each alert's condition still holds: the open alerts are few, and kept apart from
    // the events so that clearing an alert never rewrites its audit event.
    const open = new Set((await deps.readModels.anomalies.openAlerts()).map((a) => a.alert_id));
    return ok({
      ...alerts,
      data: alerts.data.map((item) => ({ ...item, request_body: item.request_body ?? null, open: open.has(item.id) })),
    });
  },

  // SPEC 4.5: browser events with a request_id that no backend event of the project carried
  // within ORPHAN_WINDOW_MS; only events older than the window are judged.
  orphans: async ({ query: { page = 1, limit = 20, ...filter }, principal }, deps) => {
    const settledBefore = deps.now().getTime() - ORPHAN_WINDOW_MS;
    return ok(await deps.readModels.orphans.list({ ...filter, settledBefore, page, limit }, principal.scope));
  },

  // SPEC 4.6: a bare array of derived sessions, newest first; dates bound session_start. Paged
  // like the list, with the paging in headers (X-Total-Count, Link).
  // A tenant or a path is not kept by the derived-sessions read model: the sessions are then
  // those of the matching events (the newest MAX_SESSION_ACTIVITY), derived on the fly.
  sessions: async ({ query: { page = 1, limit = 20, tenant_id, path, ...filter }, principal, ctx }, deps) => {
    if (tenant_id === undefined && path === undefined) {
      return pageInHeaders(
        ctx,
        await deps.readModels.derivedSessions.list({ ...filter, page, limit }, principal.scope),
      );
    }
    const { start_date, end_date, ...byEvent } = filter;
    const events = await deps.readModels.auditEvents.sessionActivity(
      { ...byEvent, ...(tenant_id === undefined ? {} : { tenant_id }), ...pathFilterOf(path) },
      principal.scope,
      MAX_SESSION_ACTIVITY,
    );
    const sessions = sessionsOfEvents(events).filter(
      (s) =>
        (start_date === undefined || Date.parse(s.session_start) >= Date.parse(start_date)) &&
        (end_date === undefined || Date.parse(s.session_start) <= Date.parse(end_date)),
    );
    const first = (page - 1) * limit;
    return pageInHeaders(ctx, pageOf(sessions.slice(first, first + limit), { page, limit }, sessions.length));
  },

  // SPEC 4.7: every event carrying the session_id, oldest first (the first MAX_SESSION_EVENTS of
  // them; event_count and session_end cover all).
  session: async ({ params: { session_id: sessionId }, principal }, deps) => {
    const found = await deps.readModels.auditEvents.sessionEvents(sessionId, principal.scope, MAX_SESSION_EVENTS);
    const session = summarizeExplicitSession(sessionId, found);
    if (!session) throw new HttpError(404, 'not_found', 'session not found');
    return ok(session);
  },

  event: async ({ params: { id }, principal }, deps) => {
    const event = await deps.readModels.auditEvents.get(id, principal.scope);
    if (!event || !readable(principal, event)) throw new HttpError(404, 'not_found', 'audit event not found');
    return ok(shown(principal, event));
  },
};
