import { hash } from 'node:crypto';
import { AUDIT_EVENT_TYPE, type AuditEventInput, type StoredAuditEvent } from '../domain/audit-event.ts';
import { canonicalJson } from '../domain/canonical-json.ts';
import { eventMasker, type ProjectMasking } from '../domain/masking.ts';
import type { EventLog, NewEvent, OnceEvent, OnceOutcome } from '../log/event-log.ts';
import { auditKeyStream, auditStream } from '../domain/streams.ts';
import { metadataOf, type CommandContext } from './handle.ts';
import { newEventId } from './event-ids.ts';

const MASKED_FIELDS = ['request_body', 'response_body', 'query_params', 'path_params'] as const;

/** Builds the stored form of an ingested event: masked by the built-in rules and the project's
 *  own (`masking`, null for none), with the service's id and receive time. */
export const toStoredAuditEvent = (
  projectId: string,
  input: AuditEventInput,
  receivedAt: Date,
  masking: ProjectMasking | null = null,
): StoredAuditEvent => storedForm(projectId, input, receivedAt.toISOString(), eventMasker(masking));

const storedForm = (
  projectId: string,
  input: AuditEventInput,
  timestamp: string,
  mask: ReturnType<typeof eventMasker>,
): StoredAuditEvent => {
  const stored: Record<string, unknown> = {
    id: newEventId(),
    project_id: projectId,
    event_type: AUDIT_EVENT_TYPE.http,
    timestamp,
  };
  for (const [key, value] of Object.entries(input)) if (value !== undefined) stored[key] = value;
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

type Answer = { readonly id: string } | { readonly keyed: number; readonly fingerprint: string };

/** Ingested events are facts: masked first, then appended with "any" to the project's audit
 *  stream, in one append for the whole batch. Events with an idempotency key go to a stream of
 *  their own per key through `appendOnce`, so a repeat within `windowMs` stores nothing and
 *  answers the first event's id; both appends are made in the same turn, so the embedded log
 *  commits them together. Resolves once every stored event is durably in the log. */
export const recordAuditEvents = (
  log: EventLog,
  projectId: string,
  items: readonly IngestItem[],
  ctx: CommandContext,
  masking: ProjectMasking | null,
  windowMs: number,
): Promise<Ingested[]> => {
  const { answers, appended } = startAppends(log, projectId, items, ctx, masking, windowMs);
  return appended.then((once) =>
    answers.map((answer): Ingested => {
      if ('id' in answer) return { id: answer.id, replayed: false, conflict: false };
      const outcome = once[answer.keyed]!;
      const conflict = outcome.replay && outcome.metadata.idempotency_fingerprint !== answer.fingerprint;
      return { id: outcome.id, replayed: outcome.replay, conflict };
    }),
  );
};

/** Builds the batch's events and hands them to the log; gives back only what the answer needs
 *  once the appends resolve. Nothing that awaits the commit holds the events or the inputs (V8
 *  keeps every local of a suspended async function, used again or not): kept through the commit's
 *  wait, a batch's worth of them survives the young generation's collections, and copying them
 *  there costs more than building them. */
const startAppends = (
  log: EventLog,
  projectId: string,
  items: readonly IngestItem[],
  ctx: CommandContext,
  masking: ProjectMasking | null,
  windowMs: number,
): { answers: Answer[]; appended: Promise<readonly OnceOutcome[]> } => {
  const plain: NewEvent[] = [];
  const keyed: OnceEvent[] = [];
  const answers: Answer[] = [];
  const receivedAt = ctx.now();
  // One receive time and one metadata for the whole batch: the events' timestamps and their
  // records' (the log writes the text of a metadata shared by consecutive events once).
  const timestamp = receivedAt.toISOString();
  const metadata = metadataOf({ ...ctx, now: () => receivedAt });
  const mask = eventMasker(masking);
  for (const { input, idempotencyKey } of items) {
    const stored = storedForm(projectId, input, timestamp, mask);
    // The log event's id is the audit event's: a replay, which finds the log event, answers it.
    if (idempotencyKey === undefined) {
      plain.push({ id: stored.id, type: 'AuditEventRecorded', data: stored, metadata });
      answers.push({ id: stored.id });
      continue;
    }
    const fingerprint = fingerprintOf(input);
    answers.push({ keyed: keyed.length, fingerprint });
    keyed.push({
      stream: auditKeyStream(projectId, idempotencyKey),
      event: {
        id: stored.id,
        type: 'AuditEventRecorded',
        data: stored,
        metadata: { ...metadata, idempotency_key: idempotencyKey, idempotency_fingerprint: fingerprint },
      },
    });
  }
  const appended = Promise.all([
    plain.length > 0 ? log.append(auditStream(projectId), plain, 'any') : null,
    keyed.length > 0 ? log.appendOnce(keyed, windowMs) : [],
  ]).then(([, once]) => once);
  return { answers, appended };
};
