import { randomUUID } from 'node:crypto';
import type { AuditEventInput, StoredAuditEvent } from '../domain/audit-event.ts';
import { eventMasker, type ProjectMasking } from '../domain/masking.ts';
import type { EventLog } from '../log/event-log.ts';
import { auditStream } from '../domain/streams.ts';
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

/** Ingested events are facts: appended with "any" to the project's audit stream, masked first.
 *  Resolves once the event is durably in the log. */
export const recordAuditEvent = async (
  log: EventLog, projectId: string, input: AuditEventInput, ctx: CommandContext, masking: ProjectMasking | null = null,
): Promise<{ id: string; position: string }> => {
  const stored = toStoredAuditEvent(projectId, input, ctx.now(), masking);
  const { position } = await log.append(auditStream(projectId), [newEvent({ type: 'AuditEventRecorded', data: stored }, ctx)], 'any');
  return { id: stored.id, position };
};
