import * as t from 'io-ts';
import { AuditEventType, Environment, HttpMethod } from '../../domain/audit-event.ts';
import { AnomalyRule } from '../../domain/anomaly.ts';
import { IsoTimestamp, Uuid } from '../../domain/codecs.ts';
import { PathMatchFromString, SearchQueryFromString } from '../../domain/search.ts';
import { type AuditListQuery, SORT_FIELDS } from '../../views/audit-events/port.ts';
import { IntFromString } from '../middleware/query.ts';
import {
  AnomalyItem,
  AuditEvent,
  AuditListItem,
  DerivedSession,
  ExplicitSession,
  OrphanItem,
  pageOf,
} from './answers.ts';
import { AT, EVENT, NOT_VISIBLE, PROJECT, Paging, dateRange, paging, textParam, uuidParam } from './common.ts';
import { json, operation } from './operation.ts';

/** Stored events: the list with SPEC 4.2's filters, anomaly alerts, orphans, derived and
 *  explicit sessions, and one event. */

export const MAX_SESSION_EVENTS = 10_000;

/** Issue 34's filters: a tenant, and a path (exact, or a prefix ending in `*`). */
export const TenantPathQuery = t.partial({ tenant_id: t.string, path: PathMatchFromString });

/** SPEC 4.2 filters, and issue 34's (`tenant_id`, `path`, and the search `q`), shared by the list
 *  and the export. */
export const AuditFilterQuery = t.partial({
  project_id: Uuid,
  service_name: t.string,
  method: HttpMethod,
  status_code: IntFromString(100, 599),
  environment: Environment,
  identifier: t.string,
  start_date: IsoTimestamp,
  end_date: IsoTimestamp,
  event_type: AuditEventType,
  tenant_id: t.string,
  path: PathMatchFromString,
  q: SearchQueryFromString,
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
  t.intersection([Paging, ProjectServiceRange, TenantPathQuery, t.partial({ identifier: t.string })]),
);
export const OrphansQueryCodec = t.exact(t.intersection([Paging, ProjectServiceRange]));
export const AnomaliesQueryCodec = t.exact(
  t.intersection([Paging, ProjectServiceRange, t.partial({ rule: AnomalyRule })]),
);

const listItemExample = {
  id: EVENT,
  project_id: PROJECT,
  event_type: 'http',
  method: 'POST',
  path: '/login',
  status_code: 200,
  response_time: 42,
  identifier: 'user-1',
  user_email: null,
  service_name: 'auth',
  environment: 'production',
  timestamp: AT,
};

export const auditOperations = {
  list: operation({
    method: 'get',
    path: '/v1/audit',
    tag: 'Events',
    auth: 'jwt',
    keyScope: 'read',
    viewer: true,
    queryCheck: dateRange,
    query: AuditListQueryCodec,
    summary: 'List events (SPEC 4.2)',
    description:
      `Filters are exact, but \`path\` ending in \`*\` is a prefix; \`start_date\` and \`end_date\` are ` +
      `inclusive; \`q\` searches (syntax in docs/search.md). ${paging} A page past the end is empty with ` +
      `the true totals.`,
    responses: {
      200: json('a page of events', pageOf(AuditListItem), {
        data: [listItemExample],
        pagination: { page: 1, limit: 20, totalItems: 1, totalPage: 1 },
      }),
    },
    errors: [NOT_VISIBLE],
  }),
  anomalies: operation({
    method: 'get',
    path: '/v1/audit/anomalies',
    tag: 'Events',
    auth: 'jwt',
    queryCheck: dateRange,
    query: AnomaliesQueryCodec,
    summary: 'Anomaly alerts (SPEC 4.9)',
    description:
      `\`system.alert\` events, newest first, with the rule's fields in \`request_body\` and \`open\`: ` +
      `whether the condition still holds. ${paging}`,
    responses: { 200: json('a page of alerts', pageOf(AnomalyItem)) },
    errors: [NOT_VISIBLE],
  }),
  orphans: operation({
    method: 'get',
    path: '/v1/audit/orphans',
    tag: 'Events',
    auth: 'jwt',
    queryCheck: dateRange,
    query: OrphansQueryCodec,
    summary: 'Orphan browser events (SPEC 4.5)',
    description:
      `Browser events whose \`request_id\` no backend event of the project carried within 2 minutes ` +
      `either side; only events older than that are judged. ${paging}`,
    responses: { 200: json('a page of orphans', pageOf(OrphanItem)) },
    errors: [NOT_VISIBLE],
  }),
  sessions: operation({
    method: 'get',
    path: '/v1/audit/sessions',
    tag: 'Events',
    auth: 'jwt',
    keyScope: 'read',
    queryCheck: dateRange,
    query: DerivedSessionsQueryCodec,
    summary: 'Derived sessions (SPEC 4.6)',
    description:
      `An identifier's events in one service, split where 30 minutes pass without one; newest first; ` +
      `the dates bound \`session_start\`. A bare array (SPEC), paged in headers. ${paging} With ` +
      `\`tenant_id\` or \`path\`, the sessions are those of the matching events (docs/search.md).`,
    responses: {
      200: {
        ...json('a page of sessions', t.array(DerivedSession)),
        headers: {
          'X-Total-Count': { description: 'how many sessions match', codec: t.string, required: true },
          Link: {
            description: 'RFC 8288 `first`, `prev`, `next` and `last` pages, relative to the request',
            required: true,
          },
        },
      },
    },
    errors: [NOT_VISIBLE],
  }),
  session: operation({
    method: 'get',
    path: '/v1/audit/sessions/:session_id',
    tag: 'Events',
    auth: 'jwt',
    keyScope: 'read',
    params: { session_id: textParam('session') },
    summary: 'An explicit session (SPEC 4.7)',
    description:
      `Every visible event carrying the \`session_id\`, oldest first (the first ${MAX_SESSION_EVENTS}; ` +
      `\`event_count\` and \`session_end\` count them all).`,
    responses: { 200: json('the session', ExplicitSession) },
  }),
  event: operation({
    method: 'get',
    path: '/v1/audit/:id',
    tag: 'Events',
    auth: 'jwt',
    keyScope: 'read',
    viewer: true,
    params: { id: uuidParam('audit event') },
    summary: 'An event (SPEC 4.3)',
    description: 'The full stored event, masked as it was stored.',
    responses: { 200: json('the event', AuditEvent) },
  }),
};
