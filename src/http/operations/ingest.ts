import * as t from 'io-ts';
import { AuditEventInput } from '../../domain/audit-event.ts';
import { withSchema } from '../../domain/json-schema.ts';
import { BatchAnswer, Ingested } from './answers.ts';
import { EVENT, eventExample } from './common.ts';
import { json, operation } from './operation.ts';

/** The ingest edge: one event (`POST /v1/audit`, SPEC 4.1) or a batch (`POST /v1/audit/batch`,
 *  watchlog's extension), with idempotency keys, per-key origins and rate, and CORS for
 *  browsers (src/http/middleware/ingest-cors.ts). */

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

export const BatchItem = t.intersection(
  [AuditEventInput, t.exact(t.partial({ idempotency_key: IdempotencyKey }))],
  'an audit event',
);

/** `api_key`: for `navigator.sendBeacon`, which cannot set headers. */
export const BatchQuery = t.exact(t.partial({ api_key: t.string }));

/** The batch body: its bounds are checked by the handler (from the configuration), its items by
 *  BatchItem, so this codec only describes the array. */
const batchOf = (max: number) =>
  withSchema(
    new t.Type<unknown[], unknown[], unknown>(
      `an array of 1 to ${max} events`,
      (u): u is unknown[] => Array.isArray(u) && u.length >= 1 && u.length <= max,
      (u, c) => (Array.isArray(u) && u.length >= 1 && u.length <= max ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { minItems: 1, maxItems: max },
    t.array(BatchItem),
  );

/** What the description says of the deployment: WATCHLOG_BATCH_MAX_EVENTS. */
export interface IngestDescription {
  readonly batchMaxEvents: number;
}

export const ingestOperations = ({ batchMaxEvents }: IngestDescription) => ({
  event: operation({
    method: 'post',
    path: '/v1/audit',
    tag: 'Ingest',
    auth: 'api-key',
    keyScope: 'ingest',
    ignoresQuery: true,
    summary: 'Ingest an event (SPEC 4.1)',
    description:
      'One audit event per request an application handled. Unknown fields are dropped (SDKs newer than ' +
      'the server may send more) and `null` on an optional field means absent. Secrets are masked ' +
      'before anything is stored. The answer comes once the event is durably in the log. Checks, in ' +
      "order: the key (401), its origins (403), the body (413, 415, 400), the key's rate (429).",
    headers: {
      'Idempotency-Key': {
        codec: IdempotencyKey,
        description:
          'Unique per event (a UUID is right): a repeat within `WATCHLOG_IDEMPOTENCY_WINDOW_SECONDS` (24 ' +
          "h) stores nothing and answers the first event's `id`; the same key with another event is 409.",
      },
    },
    body: {
      what: 'audit event',
      codec: AuditEventInput,
      description: 'SPEC 2.1',
      readBy: 'handler',
      example: eventExample,
    },
    responses: {
      202: {
        ...json('accepted: in the log', Ingested, { id: EVENT }),
        headers: {
          'Idempotent-Replayed': {
            description: '`true` when an earlier request with the same `Idempotency-Key` stored the event',
            codec: t.literal('true'),
          },
        },
      },
    },
    errors: [409, 429],
  }),
  batch: operation({
    method: 'post',
    path: '/v1/audit/batch',
    tag: 'Ingest',
    auth: 'api-key-or-query',
    keyScope: 'ingest',
    query: BatchQuery,
    summary: 'Ingest a batch of events',
    description:
      `A JSON array of 1 to ${batchMaxEvents} events (\`WATCHLOG_BATCH_MAX_EVENTS\`), each validated ` +
      `on its own, with an optional \`idempotency_key\`. \`text/plain\` holding JSON is taken too, as ` +
      `\`navigator.sendBeacon\` sends it (with the key as \`?api_key=\`). 400 only when no event is ` +
      `valid; otherwise 202 with the accepted and the rejected, by index.`,
    body: {
      what: 'batch',
      codec: batchOf(batchMaxEvents),
      mediaTypes: ['application/json', 'text/plain'],
      readBy: 'handler',
      example: [
        { ...eventExample, idempotency_key: '5f0c1a52-8c1e-4f57-9a43-2f1b7f0e9d11' },
        { ...eventExample, path: '/logout' },
      ],
    },
    responses: {
      202: json('at least one event accepted; each invalid one is rejected with its details, by index', BatchAnswer, {
        accepted: [{ index: 0, id: EVENT, replayed: true }],
        rejected: [{ index: 1, details: [{ path: 'method', message: 'must be one of GET, POST, PUT, DELETE' }] }],
      }),
    },
    errors: [429],
  }),
});
