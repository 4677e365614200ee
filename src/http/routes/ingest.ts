import { isLeft } from 'fp-ts/lib/Either.js';
import type { Context } from 'koa';
import { type IngestItem, type Ingested, recordAuditEvents } from '../../commands/ingest.ts';
import { AuditEventInput } from '../../domain/audit-event.ts';
import { describeErrors } from '../../domain/decode-errors.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import type { ActiveKey } from '../../views/access/port.ts';
import type { RouteDeps } from '../deps.ts';
import { readJsonBody } from '../middleware/body.ts';
import { HttpError, decodeOrThrow, validationError } from '../middleware/errors.ts';
import { BatchItem, type ingestOperations } from '../operations/ingest.ts';
import { type Handlers, accepted } from '../operations/operation.ts';
import type { AppState } from '../state.ts';

/** The path of a detail about a batch item as a whole (not an object, say). */
const EVENT = '(event)';

type Rejected = { index: number; details: ErrorDetail[] };

const conflictMessage = 'was used within the idempotency window for another event: use a new key for a new event';

const record = async (
  ctx: Context & { state: AppState },
  deps: RouteDeps,
  key: ActiveKey,
  items: readonly IngestItem[],
): Promise<Ingested[]> => {
  const masking = await deps.maskingRules.of(key.project_id);
  return recordAuditEvents(
    deps.commands.log,
    key.project_id,
    items,
    { actor: `project:${key.project_id}`, correlationId: ctx.state.correlationId, now: deps.now },
    masking,
    deps.ingest.idempotencyWindowMs,
  );
};

/** The single event and its header key (`mount` has checked it). Unknown fields are dropped, not
 *  refused: SDKs newer than the server may send more. */
const readEvent = async (ctx: Context, deps: RouteDeps): Promise<IngestItem[]> => {
  const idempotencyKey = ctx.get('idempotency-key') || undefined;
  return [{ input: decodeOrThrow(AuditEventInput, await readJsonBody(ctx, deps), 'audit event'), idempotencyKey }];
};

/** The batch's body, decoded: the events accepted (with their indexes in the batch) and the
 *  items refused. The parsed body is dropped with this function's frame, before the commit. */
const readBatch = async (
  ctx: Context,
  deps: RouteDeps,
): Promise<{ indexes: number[]; items: IngestItem[]; rejected: Rejected[] }> => {
  const { batchMaxEvents, batchBodyLimitBytes } = deps.ingest;
  const body = await readJsonBody(ctx, { ...deps, bodyLimitBytes: batchBodyLimitBytes }, { plainText: true });
  if (!Array.isArray(body))
    throw validationError('batch', [{ path: 'body', message: 'must be a JSON array of audit events' }]);
  if (body.length === 0) throw validationError('batch', [{ path: 'body', message: 'must hold at least one event' }]);
  if (body.length > batchMaxEvents) {
    throw validationError('batch', [
      {
        path: 'body',
        message: `must hold at most ${batchMaxEvents} events (it holds ${body.length}); send several batches`,
      },
    ]);
  }
  const indexes: number[] = [];
  const items: IngestItem[] = [];
  const rejected: Rejected[] = [];
  body.forEach((raw: unknown, index) => {
    const decoded = BatchItem.decode(raw);
    if (isLeft(decoded)) rejected.push({ index, details: describeErrors(decoded.left, EVENT) });
    else {
      const { idempotency_key: idempotencyKey, ...input } = decoded.right;
      indexes.push(index);
      items.push({ input, idempotencyKey });
    }
  });
  return { indexes, items, rejected };
};

/** A batch's turn: its body read, its events decoded and appended, the answer made. */
const recordBatch = async (ctx: Context & { state: AppState }, deps: RouteDeps, key: ActiveKey) => {
  const { indexes, items, rejected } = await readBatch(ctx, deps);
  if (items.length > 0) await deps.ingestRate.take(key, items.length);
  // Emptied as it is handed over: this function's locals live through the commit's wait.
  const ingested = items.length > 0 ? await record(ctx, deps, key, items.splice(0)) : [];
  const answers: Array<{ index: number; id: string; replayed?: true }> = [];
  ingested.forEach((result, i) => {
    const index = indexes[i]!;
    if (result.conflict) rejected.push({ index, details: [{ path: 'idempotency_key', message: conflictMessage }] });
    else answers.push(result.replayed ? { index, id: result.id, replayed: true } : { index, id: result.id });
  });
  rejected.sort((a, b) => a.index - b.index);
  ctx.state.batchEvents = { accepted: answers.length, rejected: rejected.length };
  if (answers.length === 0) {
    throw validationError(
      'batch',
      rejected.flatMap(({ index, details }) =>
        details.map((d) => ({ path: d.path === EVENT ? String(index) : `${index}.${d.path}`, message: d.message })),
      ),
    );
  }
  return accepted({ accepted: answers, rejected });
};

/** One event (SPEC 4.1) or a batch: the key (checked by `mount`), the body, the key's rate, the
 *  append. Each reads its own body, so that nothing of it outlives the append. */
export const ingestHandlers: Handlers<ReturnType<typeof ingestOperations>, RouteDeps> = {
  event: async ({ ctx, key }, deps) => {
    const items = await readEvent(ctx, deps);
    await deps.ingestRate.take(key, 1);
    // Emptied as it is handed over, like a batch's items.
    const [ingested] = await record(ctx, deps, key, items.splice(0));
    if (ingested!.conflict) {
      throw new HttpError(409, 'conflict', `Idempotency-Key ${conflictMessage}`, [
        { path: 'headers.idempotency-key', message: conflictMessage },
      ]);
    }
    return accepted({ id: ingested!.id }, ingested!.replayed ? { 'Idempotent-Replayed': 'true' } : undefined);
  },
  batch: ({ ctx, key }, deps) => deps.batches.run(() => recordBatch(ctx, deps, key)),
};
