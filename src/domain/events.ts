import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { StoredAuditEvent } from './audit-event.ts';
import { monitorEvents } from './monitor.ts';
import { channelEvents } from './channel.ts';
import { deliveryEvents } from './delivery.ts';
import { anomalyEvents } from './anomaly.ts';
import { userEvents } from './user.ts';
import { maskingEvents } from './masking-rules.ts';
import { otlpEvents } from './otlp-mapping.ts';
import { retentionEvents } from './retention.ts';
import { statusPageEvents } from './status-page.ts';
import { incidentEvents } from './incident.ts';
import { maintenanceEvents } from './maintenance.ts';
import { subscriberEvents } from './subscriber.ts';
import { KeyScope } from './api-keys.ts';
import { sinkEvents } from './sink.ts';
import { factorEvents } from './factors.ts';
import { sessionEvents } from './session.ts';
import { ssoEvents } from './sso.ts';

/** The event catalogue: every event type the log may hold and the codec of its `data`.
 *  A stored event that fails its codec is an error on read, never skipped. */

/** `idempotency_key` and `idempotency_fingerprint`: an event stored once per key (a client's
 *  Idempotency-Key): the key as sent, and a digest of the request it was stored for, so that a
 *  replay of the key with another request is told apart. */
export const EventMetadata = t.intersection(
  [
    t.type({
      recorded_at: t.string,
      actor: t.string,
      correlation_id: t.string,
      schema_version: t.number,
    }),
    t.partial({ idempotency_key: t.string, idempotency_fingerprint: t.string }),
  ],
  'EventMetadata',
);
export type EventMetadata = t.TypeOf<typeof EventMetadata>;

export const catalogue = {
  ProjectCreated: t.type({ project_id: t.string, name: t.string, created_at: t.string }),
  ApiKeyIssued: t.intersection([
    t.type({
      project_id: t.string,
      key_id: t.string,
      name: t.string,
      prefix: t.string,
      key_hash: t.string,
      issued_at: t.string,
    }),
    // Absent on keys issued before keys could be restricted: any origin, the default rate; and
    // before keys had scopes and expiry: ingest only, for ever.
    t.partial({
      allowed_origins: t.array(t.string),
      rate_limit: t.union([t.null, t.number]),
      scopes: t.array(KeyScope),
      expires_at: t.union([t.null, t.string]),
    }),
  ]),
  ApiKeyRestricted: t.intersection([
    t.type({
      project_id: t.string,
      key_id: t.string,
      allowed_origins: t.array(t.string),
      rate_limit: t.union([t.null, t.number]),
      changed_at: t.string,
    }),
    // Absent on changes made before keys had scopes and expiry: ingest only, for ever.
    t.partial({ scopes: t.array(KeyScope), expires_at: t.union([t.null, t.string]) }),
  ]),
  /** A key was used, at most once a minute per key and API process (docs/security.md): its
   *  stream keeps the last one only, which is all `last_used_at` needs. */
  ApiKeyUsed: t.type({ project_id: t.string, key_id: t.string, used_at: t.string }),
  ApiKeyRevoked: t.type({ project_id: t.string, key_id: t.string, revoked_at: t.string }),
  ...userEvents,
  ...factorEvents,
  ...maskingEvents,
  ...otlpEvents,
  AuditEventRecorded: StoredAuditEvent,
  ...monitorEvents,
  ...channelEvents,
  ...deliveryEvents,
  ...anomalyEvents,
  ...retentionEvents,
  ...statusPageEvents,
  ...incidentEvents,
  ...maintenanceEvents,
  ...subscriberEvents,
  ...sinkEvents,
  ...sessionEvents,
  ...ssoEvents,
  /** A project's tree head, signed (docs/auditors.md): not a leaf of the tree it signs. */
  CheckpointSigned: t.type({
    project_id: t.string,
    size: t.number,
    root: t.string,
    note: t.string,
    signed_at: t.string,
  }),
} as const;

export type EventType = keyof typeof catalogue;
export type EventData<K extends EventType> = t.TypeOf<(typeof catalogue)[K]>;
export type DomainEvent = { [K in EventType]: { type: K; data: EventData<K> } }[EventType];

export const isEventType = (s: string): s is EventType => Object.hasOwn(catalogue, s);

export class CorruptEventError extends Error {
  constructor(
    readonly position: string,
    readonly type: string,
    reason: string,
  ) {
    super(`event at position ${position} (${type}) does not match its codec: ${reason}`);
  }
}

/** Decodes a stored event's type and data against the catalogue. */
export const decodeEvent = (position: string, type: string, data: unknown): DomainEvent => {
  if (!isEventType(type)) throw new CorruptEventError(position, type, 'unknown event type');
  const result = catalogue[type].decode(data);
  if (isLeft(result)) throw new CorruptEventError(position, type, `${result.left.length} invalid field(s)`);
  return { type, data: result.right } as DomainEvent;
};
