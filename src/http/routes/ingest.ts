import type Router from '@koa/router';
import cors from '@koa/cors';
import type { Context, Middleware } from 'koa';
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { AuditEventInput } from '../../domain/audit-event.ts';
import { originAllowed } from '../../domain/api-keys.ts';
import { describeErrors } from '../../domain/decode-errors.ts';
import { withSchema } from '../../domain/json-schema.ts';
import type { ErrorDetail } from '../../domain/errors.ts';
import { recordAuditEvents, type IngestItem, type Ingested } from '../../commands/ingest.ts';
import type { ActiveKey } from '../../views/access/port.ts';
import { Admission } from '../admission.ts';
import { readJsonBody } from '../middleware/body.ts';
import { HttpError, decodeOrThrow, validationError } from '../middleware/errors.ts';
import { readQuery } from '../middleware/query.ts';
import type { RouteDeps } from '../deps.ts';
import type { AppState } from '../state.ts';

/** The ingest edge: one event (`POST /v1/audit`, SPEC 4.1) or a batch (`POST /v1/audit/batch`,
 *  watchlog's extension), with idempotency keys, per-key origins and rate, and CORS for
 *  browsers. */

export const INGEST_PATHS = ['/v1/audit', '/v1/audit/batch'] as const;

/** What clients send as a key: printable ASCII, no spaces (a UUID, a request id, a hash). */
export const IdempotencyKey = withSchema(
  new t.Type<string, string, unknown>(
    '1 to 255 printable ASCII characters without spaces',
    (u): u is string => typeof u === 'string' && /^[\x21-\x7e]{1,255}$/.test(u),
    (u, c) => (typeof u === 'string' && /^[\x21-\x7e]{1,255}$/.test(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', pattern: '^[!-~]{1,255}$', examples: ['5f0c1a52-8c1e-4f57-9a43-2f1b7f0e9d11'] },
);

/** The path of a detail about a batch item as a whole (not an object, say). */
const EVENT = '(event)';

export const BatchItem = t.intersection(
  [AuditEventInput, t.exact(t.partial({ idempotency_key: IdempotencyKey }))],
  'an audit event',
);

/** `api_key`: for `navigator.sendBeacon`, which cannot set headers. */
export const BatchQuery = t.exact(t.partial({ api_key: t.string }));

/** Browsers may send events from any page: a key's own `allowed_origins` decide who may use it
 *  (403 otherwise). Preflights are answered here for any origin; they carry no key. */
export const ingestCors = (): Middleware<AppState> => {
  const allow: Middleware<AppState> = cors({
    origin: (ctx) => ctx.get('Origin') || '*',
    allowMethods: ['POST'],
    allowHeaders: ['Content-Type', 'X-API-Key', 'Idempotency-Key', 'X-Request-ID'],
    exposeHeaders: ['Retry-After', 'Idempotent-Replayed', 'X-Request-Id'],
    maxAge: 600,
  });
  const paths = new Set<string>(INGEST_PATHS);
  return (ctx, next) =>
    paths.has(ctx.path) && (ctx.method === 'POST' || ctx.method === 'OPTIONS') ? allow(ctx, next) : next();
};

/** The request's key (header, or for a batch the `api_key` parameter), active, and allowed from
 *  the page that sent it. */
const keyOf = async (ctx: Context, deps: RouteDeps, fromQuery: string | undefined): Promise<ActiveKey> => {
  const given = ctx.get('x-api-key') || fromQuery;
  const key = given ? await deps.apiKeys.activeKey(given) : null;
  if (!key) throw new HttpError(401, 'unauthorized', given ? 'invalid or revoked API key' : 'missing X-API-Key header');
  const origin = ctx.get('Origin') || null;
  if (!originAllowed(key, origin)) {
    throw new HttpError(
      403,
      'forbidden',
      `this API key may not be used from ${origin}: it is restricted to ${key.allowed_origins.join(', ')}`,
    );
  }
  return key;
};

const headerKey = (ctx: Context): string | undefined => {
  const given = ctx.get('idempotency-key');
  if (given === '') return undefined;
  return decodeOrThrow(IdempotencyKey, given, 'Idempotency-Key header', 'headers.idempotency-key');
};

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
    {
      actor: `project:${key.project_id}`,
      correlationId: ctx.state.correlationId,
      now: deps.now,
    },
    masking,
    deps.ingest.idempotencyWindowMs,
  );
};

export const ingestRoutes = (router: Router<AppState>, deps: RouteDeps): void => {
  const batches = new Admission(deps.ingest.batchConcurrency, (queued) => deps.metrics?.batchesWaiting(queued));

  router.post('/v1/audit', async (ctx) => {
    const key = await keyOf(ctx, deps, undefined);
    const items = await readEvent(ctx);
    await deps.ingestRate.take(key, 1);
    // Emptied as it is handed over, like a batch's items.
    const [ingested] = await record(ctx, deps, key, items.splice(0));
    if (ingested!.conflict) {
      throw new HttpError(409, 'conflict', `Idempotency-Key ${conflictMessage}`, [
        { path: 'headers.idempotency-key', message: conflictMessage },
      ]);
    }
    if (ingested!.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.status = 202;
    ctx.body = { id: ingested!.id };
  });

  /** The single event and its header key. Unknown fields are dropped, not refused: SDKs newer
   *  than the server may send more. */
  const readEvent = async (ctx: Context & { state: AppState }): Promise<IngestItem[]> => {
    const idempotencyKey = headerKey(ctx);
    return [{ input: decodeOrThrow(AuditEventInput, await readJsonBody(ctx, deps), 'audit event'), idempotencyKey }];
  };

  router.post('/v1/audit/batch', async (ctx) => {
    const { api_key: queryKey } = readQuery(ctx.query, BatchQuery);
    const key = await keyOf(ctx, deps, queryKey);
    await batches.run(() => recordBatch(ctx, key));
  });

  /** A batch's turn: its body read, its events decoded and appended, the answer set. */
  const recordBatch = async (ctx: Context & { state: AppState }, key: ActiveKey): Promise<void> => {
    const { indexes, items, rejected } = await readBatch(ctx);
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
    ctx.status = 202;
    ctx.body = { accepted: answers, rejected };
  };

  /** The batch's body, decoded: the events accepted (with their indexes in the batch) and the
   *  items refused. The parsed body is dropped with this function's frame, before the commit. */
  const readBatch = async (
    ctx: Context & { state: AppState },
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
};
