import { createHash } from 'node:crypto';
import * as t from 'io-ts';
import { StoredAuditEvent } from './audit-event.ts';
import type { DomainEvent } from './events.ts';
import { boundedString, closed, intRange } from './codecs.ts';

/** Retention and erasure (docs/retention.md). A project may keep its ingested audit events for
 *  `retention_days`; older ones leave the log and the read models. An erasure request for one
 *  identifier removes the personal fields of that identifier's events. Either way the log keeps,
 *  in place of each record it changes, a `RecordRedacted` tombstone that carries the record's leaf
 *  hash, so the project's Merkle tree, its signed checkpoints and a rebuild are unchanged. Pure. */

export const RETENTION_MAX_DAYS = 36_500;

/** The settings body: `null` keeps events for ever (the default). */
export const RetentionBody = closed(
  t.type({ retention_days: t.union([t.null, intRange(1, RETENTION_MAX_DAYS)]) }),
  'field',
  'retention settings',
);
export type RetentionBody = t.TypeOf<typeof RetentionBody>;

export const ErasureBody = closed(t.type({ identifier: boundedString(1, 100) }), 'field', 'an erasure request');
export type ErasureBody = t.TypeOf<typeof ErasureBody>;

export const RedactionReason = t.keyof({ retention: null, erasure: null });
export type RedactionReason = t.TypeOf<typeof RedactionReason>;

export const retentionEvents = {
  RetentionSet: t.type({ project_id: t.string, retention_days: t.union([t.null, t.number]), updated_at: t.string }),
  /** Audit events with `timestamp` before `cutoff` and log position at most `through_position`
   *  were removed (`removed` records in the log), taken in (timestamp, position) order: with
   *  `until`, those up to it (one page of a long removal), without, all of them. The read models
   *  drop their rows of the same. */
  RetentionApplied: t.intersection([
    t.type({
      project_id: t.string,
      cutoff: t.string,
      through_position: t.string,
      removed: t.number,
      applied_at: t.string,
    }),
    t.partial({ until: t.type({ timestamp: t.string, position: t.string }) }),
  ]),
  /** An admin asked for the personal fields of `identifier`'s events up to `through_position`
   *  (the log head then) to be erased; the erasure job does it (src/jobs/erasure.ts). */
  ErasureRequested: t.type({
    project_id: t.string,
    erasure_id: t.string,
    identifier: t.string,
    through_position: t.string,
    requested_at: t.string,
  }),
  /** The events of `identifier` up to `through_position` lost their personal fields; with
   *  `erasure_id`, the request it completes (erasures made before requests were jobs have none). */
  IdentifierErased: t.intersection([
    t.type({
      project_id: t.string,
      identifier: t.string,
      through_position: t.string,
      erased: t.number,
      erased_at: t.string,
    }),
    t.partial({ erasure_id: t.string }),
  ]),
  /** What the log keeps in place of a removed (retention) or erased record: its leaf hash, and for
   *  an erasure the event without its personal fields. */
  RecordRedacted: t.intersection([
    t.type({ project_id: t.string, reason: RedactionReason, leaf_hash: t.string }),
    t.partial({ event: StoredAuditEvent }),
  ]),
} as const;

export type RecordRedacted = t.TypeOf<typeof retentionEvents.RecordRedacted>;
export type RetentionApplied = t.TypeOf<typeof retentionEvents.RetentionApplied>;
export type ErasureRequested = t.TypeOf<typeof retentionEvents.ErasureRequested>;

/** The audit event a record holds: an ingested one, or an erased one in its tombstone; undefined
 *  for any other record (a retention tombstone included). */
export const auditEventOf = (event: DomainEvent): StoredAuditEvent | undefined =>
  event.type === 'AuditEventRecorded' ? event.data : event.type === 'RecordRedacted' ? event.data.event : undefined;

/** An audit row's place in the order retention takes them: (timestamp in ms, log position). */
export interface RowRef {
  readonly ts: number;
  readonly position: string;
}

/** Which audit rows retention or an erasure takes, in (ts, position) order. */
export interface RedactableQuery {
  readonly project_id: string;
  readonly through: string;
  /** Rows before this time (retention), epoch ms. */
  readonly before?: number;
  /** Rows of this identifier (erasure). */
  readonly identifier?: string;
}

/** What one RetentionApplied removes from a read model, in epoch ms: the audit rows with
 *  ts < cutoff and position <= through, and, with `until`, (ts, position) <= until; and the rows
 *  of aggregates and derived data (statistics buckets, sessions, orphan pairs) that lie wholly
 *  before `before`. */
export interface ExpiredRange {
  readonly project_id: string;
  readonly cutoff: number;
  readonly through: string;
  readonly until: RowRef | null;
  readonly before: number;
}

export const expiredRangeOf = (e: RetentionApplied): ExpiredRange => {
  const cutoff = Date.parse(e.cutoff);
  const until = e.until ? { ts: Date.parse(e.until.timestamp), position: e.until.position } : null;
  return {
    project_id: e.project_id,
    cutoff,
    through: e.through_position,
    until,
    before: until ? Math.min(cutoff, until.ts) : cutoff,
  };
};

const HOUR_MS = 3_600_000;

/** The instant before which events expire: `days` before `now`, down to the hour, so that the
 *  hourly and per-minute statistics buckets before it hold expired events only. */
export const retentionCutoff = (now: Date, days: number): Date =>
  new Date(Math.floor((now.getTime() - days * 24 * HOUR_MS) / HOUR_MS) * HOUR_MS);

/** What an erased event's identifier becomes. */
export const ERASED_IDENTIFIER = '[erased]';

/** The fields an erasure removes: who the person is and what they sent or were sent. */
export const PERSONAL_FIELDS = [
  'user_email',
  'user_name',
  'ip',
  'user_agent',
  'query_params',
  'path_params',
  'request_body',
  'response_body',
  'error_message',
] as const satisfies ReadonlyArray<keyof StoredAuditEvent>;

/** How erasure requests and their status name the identifier: a person's identifier is kept in
 *  the log's request (what the erasure job reads) and nowhere else. */
export const identifierDigest = (identifier: string): string => createHash('sha256').update(identifier).digest('hex');

/** The event without its personal fields, its identifier replaced by ERASED_IDENTIFIER; what it
 *  keeps (time, service, route, method, status, timing, ids) still counts in statistics. */
export const eraseAuditEvent = (event: StoredAuditEvent): StoredAuditEvent => {
  const erased: Record<string, unknown> = { ...event, identifier: ERASED_IDENTIFIER };
  for (const field of PERSONAL_FIELDS) delete erased[field];
  return erased as StoredAuditEvent;
};
