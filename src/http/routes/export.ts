import type Router from '@koa/router';
import { stringify } from 'csv-stringify';
import * as t from 'io-ts';
import { PassThrough, Readable, pipeline } from 'node:stream';
import { CSV_COLUMNS, toCsvRow } from '../../domain/export-csv.ts';
import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import { principalOf } from '../middleware/auth.ts';
import { decodeOrThrow } from '../middleware/errors.ts';
import { singleValued } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';
import { AuditFilterQuery, checkDateRange } from './audit.ts';

export const MAX_EXPORT_EVENTS = 100_000;

const ExportQuery = t.exact(t.intersection([AuditFilterQuery, t.partial({ format: t.keyof({ csv: null, json: null }, 'csv | json') })]));

async function* csvRecords(batches: AsyncIterable<StoredAuditEvent[]>): AsyncIterable<string[]> {
  for await (const batch of batches) for (const event of batch) yield toCsvRow(event);
}

/** A JSON array, one string per batch, so the response streams without holding the array. */
async function* jsonArray(batches: AsyncIterable<StoredAuditEvent[]>): AsyncIterable<string> {
  let first = true;
  yield '[';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    yield (first ? '' : ',') + batch.map((e) => JSON.stringify(e)).join(',');
    first = false;
  }
  yield ']';
}

/** SPEC 4.8: the list's filters, newest first, at most MAX_EXPORT_EVENTS; `X-Export-Total` says
 *  how many matched and `X-Export-Truncated: true` when that is more than were sent. */
export const exportRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  router.get('/v1/audit/export', ...deps.jwt, async (ctx) => {
    const { format = 'csv', ...filter } = decodeOrThrow(ExportQuery, singleValued(ctx.query), 'query');
    checkDateRange(filter);
    const scope = principalOf(ctx.state).scope;
    const total = await deps.readModels.auditEvents.count(filter, scope);
    ctx.set('X-Export-Total', String(total));
    if (total > MAX_EXPORT_EVENTS) ctx.set('X-Export-Truncated', 'true');
    ctx.attachment(`watchlog-audit-${deps.now().toISOString().slice(0, 10)}.${format}`);
    const batches = deps.readModels.auditEvents.exportBatches(filter, scope, MAX_EXPORT_EVENTS);
    const onError = (err: Error | null) => {
      if (err) deps.logger.error({ err, req_id: ctx.state.correlationId }, 'export failed while streaming');
    };
    if (format === 'json') {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = pipeline(Readable.from(jsonArray(batches)), new PassThrough(), onError);
    } else {
      ctx.type = 'text/csv; charset=utf-8';
      // Text cells are quoted even when RFC 4180 does not need it (empty ones are not): a
      // spreadsheet that splits on ";" then keeps "a;=1+1" in one cell (OWASP, CSV injection).
      ctx.body = pipeline(Readable.from(csvRecords(batches)), stringify({ header: true, columns: [...CSV_COLUMNS], quoted_string: true, quoted_empty: false }), onError);
    }
  });
};
