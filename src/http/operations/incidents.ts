import * as t from 'io-ts';
import { Uuid } from '../../domain/codecs.ts';
import { IncidentCreateInput, IncidentUpdateInput } from '../../domain/incident.ts';
import { pageOf } from './answers.ts';
import { MONITOR, NOT_VISIBLE, PROJECT, Paging, WRITERS, paging } from './common.ts';
import { json, noContent, operation } from './operation.ts';
import { Incident } from './status-answers.ts';

/** Incidents: what status pages tell their readers about an outage, with its updates. */

export const IncidentsQuery = t.exact(
  t.intersection([Paging, t.partial({ project_id: Uuid, open: t.keyof({ true: null, false: null }) })]),
);

export const incidentOperations = {
  list: operation({
    method: 'get',
    path: '/v1/incidents',
    tag: 'Status pages',
    auth: 'jwt',
    query: IncidentsQuery,
    summary: 'List incidents',
    description: `Newest first, in the visible projects (or \`project_id\`); \`open=true\`: unresolved. ${paging}`,
    responses: { 200: json('a page of incidents', pageOf(Incident)) },
    errors: [NOT_VISIBLE],
  }),
  create: operation({
    method: 'post',
    path: '/v1/incidents',
    tag: 'Status pages',
    auth: 'jwt',
    roles: WRITERS,
    summary: 'Open an incident',
    description:
      '`status`: investigating, identified, monitoring or resolved; `impact` (default minor): none, ' +
      "minor, major or critical. `message` is its first update. It shows on the project's status " +
      'pages that show one of `monitor_ids` (which must be monitors of the project), or on all of ' +
      'them when it names none; their subscribers hear of it.',
    body: {
      what: 'incident',
      codec: IncidentCreateInput,
      example: {
        project_id: PROJECT,
        title: 'Elevated API errors',
        status: 'investigating',
        impact: 'major',
        monitor_ids: [MONITOR],
        message: 'We are looking into failing requests.',
      },
    },
    responses: { 201: json('the incident', Incident) },
    errors: [NOT_VISIBLE],
  }),
  get: operation({
    method: 'get',
    path: '/v1/incidents/:id',
    tag: 'Status pages',
    auth: 'jwt',
    resource: 'incident',
    summary: 'An incident with its updates',
    responses: { 200: json('the incident', Incident) },
  }),
  postUpdate: operation({
    method: 'post',
    path: '/v1/incidents/:id/updates',
    tag: 'Status pages',
    auth: 'jwt',
    resource: 'incident',
    roles: WRITERS,
    summary: 'Post an incident update',
    description:
      "Its `status` becomes the incident's (resolved closes it; another status reopens it), and " +
      "`impact`, when given, changes the incident's. At most 200 updates (409 after).",
    body: {
      what: 'incident update',
      codec: IncidentUpdateInput,
      example: { status: 'resolved', message: 'Errors are back to normal.' },
    },
    responses: { 201: json('the incident', Incident) },
    errors: [409],
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/incidents/:id',
    tag: 'Status pages',
    auth: 'jwt',
    resource: 'incident',
    roles: WRITERS,
    summary: 'Delete an incident',
    description: 'For one opened by mistake: it leaves every page and feed.',
    responses: { 204: noContent('deleted') },
  }),
};
