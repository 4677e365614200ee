import { hash, randomUUID } from 'node:crypto';
import type { AuditEventInput, StoredAuditEvent } from '../domain/audit-event.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { eventMasker, type ProjectMasking } from '../domain/masking.ts';
import type { EventLog, NewEvent } from '../log/event-log.ts';
import { auditKeyStream, auditStream } from '../domain/streams.ts';
import { newEvent, type CommandContext } from './handle.ts';

const MASKED_FIELDS = ['request_body', 'response_body', 'query_params', 'path_params'] as const;

/** Builds the stored form of an ingested event: masked by the built-in rules and the project's
 *  own (`masking`, null for none), with the service's id and receive time. */
export const toStoredAuditEvent = (projectId: string, input: AuditEventInput, receivedAt: Date, masking: ProjectMasking | null = null): StoredAuditEvent => {
  const stored: Record<string, unknown> = {
    id: randomUUID(),
    project_id: projectId,
    event_type: 'http',
    timestamp: receivedAt.toISOString(),
  };
  for (const [key, value] of Object.entries(input)) if (value !== undefined) stored[key] = value;
  const mask = eventMasker(masking);
  for (const field of MASKED_FIELDS) {
    const value = input[field];
    if (value) stored[field] = mask(value);
  }
  stored.source = input.source ?? 'backend';
  return stored as StoredAuditEvent;
};

/** One event to ingest, with the client's idempotency key when it sent one. */
export interface IngestItem {
  readonly input: AuditEventInput;
  readonly idempotencyKey?: string | undefined;
}

/** What became of an ingested event: its id (for a replay, the id stored the first time), and
 *  whether the key had been used within the window for another event (nothing stored then). */
export interface Ingested {
  readonly id: string;
  readonly replayed: boolean;
  readonly conflict: boolean;
}

const sha256 = (text: string) => hash('sha256', text, 'hex');

/** What tells two requests under one key apart: the event as decoded, in canonical JSON, so a
 *  retry that writes its keys in another order is the same request. */
export const fingerprintOf = (input: AuditEventInput): string => sha256(canonicalJson(input));

/** Ingested events are facts: masked first, then appended with "any" to the project's audit
 *  stream, in one append for the whole batch. Events with an idempotency key go to a stream of
 *  their own per key through `appendOnce`, so a repeat within `windowMs` stores nothing and
 *  answers the first event's id; both appends are made in the same turn, so the embedded log
 *  commits them together. Resolves once every stored event is durably in the log. */
export const recordAuditEvents = async (
  log: EventLog, projectId: string, items: readonly IngestItem[], ctx: CommandContext,
  masking: ProjectMasking | null, windowMs: number,
): Promise<Ingested[]> => {
  const plain: NewEvent[] = [];
  const keyed: Array<{ stream: string; event: NewEvent; fingerprint: string }> = [];
  const slots: Array<{ plain: number } | { keyed: number }> = [];
  const receivedAt = ctx.now();
  // One receive time for the whole batch: the events' timestamps and their records'.
  const at = { ...ctx, now: () => receivedAt };
  for (const { input, idempotencyKey } of items) {
    const stored = toStoredAuditEvent(projectId, input, receivedAt, masking);
    // The log event's id is the audit event's: a replay, which finds the log event, answers it.
    const event = { ...newEvent({ type: 'AuditEventRecorded', data: stored }, at), id: stored.id };
    if (idempotencyKey === undefined) {
      slots.push({ plain: plain.push(event) - 1 });
      continue;
    }
    const fingerprint = fingerprintOf(input);
    slots.push({ keyed: keyed.length });
    keyed.push({
      stream: auditKeyStream(projectId, idempotencyKey),
      event: { ...event, metadata: { ...event.metadata, idempotency_key: idempotencyKey, idempotency_fingerprint: fingerprint } },
      fingerprint,
    });
  }
  const [, once] = await Promise.all([
    plain.length > 0 ? log.append(auditStream(projectId), plain, 'any') : null,
    keyed.length > 0 ? log.appendOnce(keyed, windowMs) : [],
  ]);
  return slots.map((slot): Ingested => {
    if ('plain' in slot) return { id: plain[slot.plain]!.id, replayed: false, conflict: false };
    const outcome = once[slot.keyed]!;
    const conflict = outcome.replay && outcome.metadata.idempotency_fingerprint !== keyed[slot.keyed]!.fingerprint;
    return { id: outcome.id, replayed: outcome.replay, conflict };
  });
};
