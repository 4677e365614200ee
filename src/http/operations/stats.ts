import * as t from 'io-ts';
import { Environment } from '../../domain/audit-event.ts';
import { Statistics } from './answers.ts';
import { ProjectServiceRange, TenantPathQuery } from './audit.ts';
import { NOT_VISIBLE, dateRange } from './common.ts';
import { json, operation } from './operation.ts';

/** More timeline points than this is a request for the wrong interval. */
export const MAX_TIMELINE_POINTS = 1500;

export const StatsQuery = t.exact(
  t.intersection([
    ProjectServiceRange,
    TenantPathQuery,
    t.partial({ environment: Environment, interval: t.keyof({ minute: null, hour: null, day: null }) }),
  ]),
);

export const statsOperations = {
  statistics: operation({
    method: 'get',
    path: '/v1/audit/stats',
    tag: 'Events',
    auth: 'jwt',
    keyScope: 'read',
    viewer: true,
    queryCheck: dateRange,
    query: StatsQuery,
    summary: 'Statistics (SPEC 4.4)',
    description:
      "Of `http` events, over exact inclusive bounds (default: the last 24 hours). The timeline's " +
      '`interval` defaults to minutes up to 2 hours, hours up to 7 days, days beyond; more than 1,500 ' +
      'points is 400.',
    responses: { 200: json('the statistics', Statistics) },
    errors: [NOT_VISIBLE],
  }),
};
