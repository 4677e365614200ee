import { stringify } from 'csv-stringify';
import { PassThrough, Readable, pipeline } from 'node:stream';
import { CSV_COLUMNS, toCsvRow } from '../../domain/export-csv.ts';
import { PathMatchFromString } from '../../domain/search.ts';
import type { StoredAuditEvent } from '../../domain/audit-event.ts';
import { recordExport } from '../../commands/self-audit.ts';
import type { RouteDeps } from '../deps.ts';
import { MAX_EXPORT_EVENTS, type exportOperations } from '../operations/export.ts';
import { type Handlers, ok } from '../operations/operation.ts';
import { auditFilterOf } from './audit.ts';
import { narrowed, shown } from './viewer-reads.ts';

async function* csvRecords(
  batches: AsyncIterable<StoredAuditEvent[]>,
  show: (event: StoredAuditEvent) => StoredAuditEvent,
): AsyncIterable<string[]> {
  for await (const batch of batches) for (const event of batch) yield toCsvRow(show(event));
}

/** A JSON array, one string per batch, so the response streams without holding the array. */
async function* jsonArray(
  batches: AsyncIterable<StoredAuditEvent[]>,
  show: (event: StoredAuditEvent) => StoredAuditEvent,
): AsyncIterable<string> {
  let first = true;
  yield '[';
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    yield (first ? '' : ',') + batch.map((e) => JSON.stringify(show(e))).join(',');
    first = false;
  }
  yield ']';
}

/** SPEC 4.8: the list's filters, newest first, at most MAX_EXPORT_EVENTS; `X-Export-Total` says
 *  how many matched and `X-Export-Truncated: true` when that is more than were sent. HEAD answers
 *  the same headers without reading a single event. */
export const exportHandlers: Handlers<typeof exportOperations, RouteDeps> = {
  download: async ({ query: { format = 'csv', ...asked }, principal, command, ctx }, deps) => {
    const scope = principal.scope;
    const mine = narrowed(principal, asked);
    const filter = auditFilterOf(mine);
    const { path, q, ...exact } = mine;
    const show = (event: StoredAuditEvent) => shown(principal, event);
    const total = await deps.readModels.auditEvents.count(filter, scope);
    ctx.set('X-Export-Total', String(total));
    if (total > MAX_EXPORT_EVENTS) ctx.set('X-Export-Truncated', 'true');
    ctx.attachment(`watchlog-audit-${deps.now().toISOString().slice(0, 10)}.${format}`);
    ctx.type = format === 'json' ? 'application/json; charset=utf-8' : 'text/csv; charset=utf-8';
    // No stream: one that is never read would only be torn down when the response ends.
    if (ctx.method === 'HEAD') return { status: 200 };
    // Recorded before the first row leaves: no export goes unrecorded (503 when it cannot be).
    await recordExport(
      deps.commands,
      {
        actor: principal.actor,
        format,
        // As asked: the search's text, the path with its `*`.
        filters: {
          ...exact,
          ...(path === undefined ? {} : { path: PathMatchFromString.encode(path) }),
          ...(q === undefined ? {} : { q: q.text }),
        },
        rows: Math.min(total, MAX_EXPORT_EVENTS),
        address: ctx.request.ip || 'unknown',
        requestId: ctx.state.correlationId,
        at: deps.now(),
      },
      command,
    );
    const batches = deps.readModels.auditEvents.exportBatches(filter, scope, MAX_EXPORT_EVENTS);
    const onError = (err: (Error & { code?: string }) | null) => {
      if (!err) return;
      // A client that stops reading (closed tab, cancelled download) is not a server fault.
      if (err.code === 'ERR_STREAM_PREMATURE_CLOSE')
        deps.logger.info({ req_id: ctx.state.correlationId }, 'export stopped: the client went away');
      else deps.logger.error({ err, req_id: ctx.state.correlationId }, 'export failed while streaming');
    };
    return ok(
      format === 'json'
        ? pipeline(Readable.from(jsonArray(batches, show)), new PassThrough(), onError)
        : // Text cells are quoted even when RFC 4180 does not need it (empty ones are not): a
          // spreadsheet that splits on ";" then keeps "a;=1+1" in one cell (OWASP, CSV injection).
          pipeline(
            Readable.from(csvRecords(batches, show)),
            stringify({ header: true, columns: [...CSV_COLUMNS], quoted_string: true, quoted_empty: false }),
            onError,
          ),
    );
  },
};
