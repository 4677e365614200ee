import * as t from 'io-ts';
import { MaintenanceCreateInput, MaintenanceUpdateInput } from '../../domain/maintenance.ts';
import { ListQuery, MONITOR, NOT_VISIBLE, PROJECT, WRITERS } from './common.ts';
import { json, noContent, operation } from './operation.ts';
import { Maintenance } from './status-answers.ts';

/** Maintenance windows: planned work, during which transitions notify no one. */

export const maintenanceOperations = {
  list: operation({
    method: 'get',
    path: '/v1/maintenances',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    query: ListQuery,
    summary: 'List maintenance windows',
    description: 'Of the projects the caller sees (or of `project_id`), oldest first, each with its next occurrences.',
    responses: { 200: json('the windows', t.array(Maintenance)) },
    errors: [NOT_VISIBLE],
  }),
  create: operation({
    method: 'post',
    path: '/v1/maintenances',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    roles: WRITERS,
    summary: 'Schedule a maintenance window',
    description:
      'One-off: `starts_at` and `ends_at` (at most 31 days apart). Recurring: an RFC 5545 `rrule` ' +
      '(`FREQ=WEEKLY;BYDAY=SU`; not more often than hourly), `starts_at` (its first start, DTSTART), ' +
      '`duration_minutes` and an IANA `timezone` the rule is read in. `monitor_ids`: monitors of the ' +
      'project, or "all". During a window checks run and are recorded, but transitions notify no one, ' +
      'uptime leaves those checks out, the monitors answer `in_maintenance: true`, and status pages ' +
      'say "under maintenance".',
    body: {
      what: 'maintenance window',
      codec: MaintenanceCreateInput,
      example: {
        project_id: PROJECT,
        title: 'Weekly database upgrade',
        monitor_ids: [MONITOR],
        rrule: 'FREQ=WEEKLY;BYDAY=SU',
        starts_at: '2026-09-06T02:00:00+02:00',
        duration_minutes: 60,
        timezone: 'Europe/Berlin',
      },
    },
    responses: { 201: json('the window', Maintenance) },
    errors: [NOT_VISIBLE],
  }),
  get: operation({
    method: 'get',
    path: '/v1/maintenances/:id',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'maintenance',
    summary: 'A maintenance window',
    responses: { 200: json('the window', Maintenance) },
  }),
  update: operation({
    method: 'put',
    path: '/v1/maintenances/:id',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'maintenance',
    roles: WRITERS,
    summary: 'Change a maintenance window',
    description:
      'The fields given change. Schedule fields lay over the current schedule of the same kind; ' +
      "giving `rrule` to a one-off window (or `ends_at` to a recurring one) needs the new kind's fields.",
    body: { what: 'maintenance window', codec: MaintenanceUpdateInput, example: { title: 'Database upgrade' } },
    responses: { 200: json('the window', Maintenance) },
  }),
  remove: operation({
    method: 'delete',
    path: '/v1/maintenances/:id',
    tag: 'Status pages',
    auth: 'jwt',
    keyScope: 'config',
    resource: 'maintenance',
    roles: WRITERS,
    summary: 'Delete a maintenance window',
    description: 'An open occurrence ends now.',
    responses: { 204: noContent('deleted') },
  }),
};
