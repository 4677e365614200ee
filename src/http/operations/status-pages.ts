import * as t from 'io-ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { StatusPageCreateInput, StatusPageUpdateInput } from '../../domain/status-page.ts';
import { ListQuery, MONITOR, NOT_VISIBLE, PROJECT, WRITERS } from './common.ts';
import { json, noContent, operation } from './operation.ts';
import { StatusPage } from './status-answers.ts';

/** Status pages: their settings (the public pages themselves are in public.ts). A page shows the
 *  monitors its groups name, which must be monitors of its project. */

const noDuplicateMonitors = (input: { groups?: Array<{ monitor_ids: string[] }> }): ErrorDetail[] => {
  const seen = new Set<string>();
  return (input.groups ?? []).flatMap((group, g) =>
    group.monitor_ids.flatMap((id, i) => {
      if (!seen.has(id)) {
        seen.add(id);
        return [];
      }
      return [{ path: `groups.${g}.monitor_ids.${i}`, message: 'is already on the page' }];
    }),
  );
};

export const statusPageOperations = {
  list: operation({
    method: 'get',
    path: '/v1/status-pages',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    query: ListQuery,
    summary: 'List status pages',
    description: 'The status pages of the projects the caller sees (or of `project_id`), oldest first.',
    responses: { 200: json('the status pages', t.array(StatusPage)) },
    errors: [NOT_VISIBLE],
  }),
  create: operation({
    method: 'post',
    path: '/v1/status-pages',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    roles: WRITERS,
    summary: 'Create a status page',
    description:
      'Public at `/status/{slug}` once `published` (default false), and at `/` of `custom_domain` when ' +
      'one is set. `slug` and `custom_domain` are unique (409 when taken). Each group names monitors of ' +
      "the page's project (400 on another's); the page shows their names, states and daily uptime, " +
      'never a URL, a host or an error. `auto_incidents`: open an incident when a monitor on the page ' +
      'is confirmed DOWN, and resolve it when it is UP again.',
    body: {
      what: 'status page',
      codec: StatusPageCreateInput,
      check: noDuplicateMonitors,
      example: {
        project_id: PROJECT,
        slug: 'acme',
        title: 'Acme status',
        groups: [{ name: 'API', monitor_ids: [MONITOR] }],
        published: true,
      },
    },
    responses: { 201: json('the status page', StatusPage) },
    errors: [NOT_VISIBLE, 409],
  }),
  get: operation({
    method: 'get',
    path: '/v1/status-pages/:id',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'statusPage',
    summary: 'A status page',
    responses: { 200: json('the status page', StatusPage) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/status-pages/:id',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'statusPage',
    roles: WRITERS,
    summary: 'Change a status page',
    description: 'The fields given change; `description` and `custom_domain` are removed with null.',
    body: {
      what: 'status page',
      codec: StatusPageUpdateInput,
      check: noDuplicateMonitors,
      example: { published: true },
    },
    responses: { 200: json('the status page', StatusPage) },
    errors: [409],
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/status-pages/:id',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'statusPage',
    roles: WRITERS,
    summary: 'Delete a status page',
    description: 'Its slug and custom domain are free again at once.',
    responses: { 204: noContent('deleted') },
  }),
};
