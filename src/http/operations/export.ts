import * as t from 'io-ts';
import { AuditFilterQuery } from './audit.ts';
import { NOT_VISIBLE, dateRange } from './common.ts';
import { operation } from './operation.ts';

export const MAX_EXPORT_EVENTS = 100_000;

export const ExportQuery = t.exact(
  t.intersection([AuditFilterQuery, t.partial({ format: t.keyof({ csv: null, json: null }) })]),
);

export const exportOperations = {
  download: operation({
    method: 'get',
    path: '/v1/audit/export',
    tag: 'Events',
    auth: 'jwt',
    keyScope: 'read',
    viewer: true,
    queryCheck: dateRange,
    query: ExportQuery,
    summary: 'Export events (SPEC 4.8)',
    description:
      `The list's filters, newest first, at most ${MAX_EXPORT_EVENTS} events, streamed. CSV (default) ` +
      `or a JSON array of full events. HEAD answers the headers without reading an event.`,
    responses: {
      200: {
        description: 'an attachment',
        text: {
          mediaTypes: ['text/csv; charset=utf-8', 'application/json; charset=utf-8'],
          description:
            'CSV with a header row (columns in docs/api.md), or a JSON array of events as `GET ' +
            '/v1/audit/{id}` answers them',
        },
        headers: {
          'Content-Disposition': {
            description: '`attachment; filename="watchlog-audit-YYYY-MM-DD.csv"` (or `.json`)',
            required: true,
          },
          'X-Export-Total': { description: 'how many events matched', codec: t.string, required: true },
          'X-Export-Truncated': {
            description: '`true` when more matched than the export holds',
            codec: t.literal('true'),
          },
        },
      },
    },
    errors: [NOT_VISIBLE],
  }),
};
