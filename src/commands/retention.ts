import { randomUUID } from 'node:crypto';
import { decodeEvent } from '../domain/events.ts';
import { recordLeafHash } from '../domain/merkle.ts';
import { projectDecider, type ProjectState } from '../domain/project.ts';
import {
  eraseAuditEvent,
  retentionCutoff,
  type ErasureRequested,
  type RecordRedacted,
  type RedactableQuery,
  type RedactionReason,
  type RowRef,
} from '../domain/retention.ts';
import { projectStream, retentionStream, subscriberStream } from '../domain/streams.ts';
import { normaliseEmail } from '../domain/subscriber.ts';
import { RedactionUnsupportedError, type RecordedEvent, type Redaction } from '../log/event-log.ts';
import { handle, load, newEvent, type CommandContext, type CommandDeps, type Loaded } from './handle.ts';

/** Retention and erasure (src/domain/retention.ts, docs/retention.md). Each replaces log records by
 *  tombstones, a page at a time, then appends the event that tells the read models to drop or
 *  erase their rows of them. Which records to take is a question the log has no index for: the
 *  caller answers it (`redactable`: the audit-events read model, whose indexes answer "before this
 *  time" and "of this identifier"), once that read model has caught up with the log head read at
 *  the start; rows appended later wait for the next run. Safe to repeat after a crash:
 *  a record already replaced is left alone, and its row is found again until the event is
 *  appended. */

export interface RetentionDeps extends CommandDeps {
  /** Up to `limit` of the rows to take, after `after` in (ts, position) order. */
  readonly redactable: (query: RedactableQuery, after: RowRef | null, limit: number) => Promise<RowRef[]>;
  /** Resolves once the read models have applied the log up to `position`. */
  readonly caughtUp: (position: string) => Promise<void>;
  /** The ids of the project's status page subscriptions of an address (removed ones too): an
   *  erasure of an identifier equal to it replaces their records. Absent: none are looked for. */
  readonly subscriptionsOf?: (projectId: string, email: string) => Promise<string[]>;
  /** Rows per page (default REDACTION_PAGE). */
  readonly pageSize?: number;
  /** How long to rest after a page, as a fraction of the time the page took (default
   *  REST_FRACTION): what keeps a long removal from taking the machine from ingest. */
  readonly restFraction?: number;
}

/** Rows (and records) per page: one RetentionApplied each, so that the read models' deletes stay
 *  short transactions too. Each page is a burst of work for the job and for the projector: 2,000
 *  tripled the ingest p99 beside a removal (docs/retention.md). */
export const REDACTION_PAGE = 500;
/** A long removal works at most half the time. */
export const REST_FRACTION = 1;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SUBSCRIBER_RECORDS: ReadonlySet<string> = new Set([
  'SubscriberRequested',
  'SubscriberConfirmed',
  'SubscriberUnsubscribed',
  'SubscriberRemoved',
]);

const tombstone = (record: RecordedEvent, projectId: string, reason: RedactionReason): Redaction | null => {
  const base = { position: record.position, type: 'RecordRedacted', metadata: record.metadata };
  if (record.type === 'AuditEventRecorded') {
    const leaf_hash = recordLeafHash(record).toString('base64');
    const data: RecordRedacted = { project_id: projectId, reason, leaf_hash };
    // Only an erasure keeps the event, so only an erasure needs it decoded.
    if (reason === 'erasure') {
      const event = decodeEvent(record.position, record.type, record.data);
      if (event.type === 'AuditEventRecorded') data.event = eraseAuditEvent(event.data);
    }
    return { ...base, data };
  }
  // A subscription's records (its address among them) keep their leaf hash only: nothing of them
  // is needed once the subscription is gone.
  if (SUBSCRIBER_RECORDS.has(record.type) && reason === 'erasure')
    return { ...base, data: { project_id: projectId, reason, leaf_hash: recordLeafHash(record).toString('base64') } };
  // An erased record that then expires keeps its leaf hash and loses what the erasure kept.
  if (record.type === 'RecordRedacted' && reason === 'retention') {
    const { leaf_hash, reason: was } = record.data as RecordRedacted;
    return was === 'retention'
      ? null
      : { ...base, data: { project_id: projectId, reason, leaf_hash } satisfies RecordRedacted };
  }
  // Rows derived from other records (monitor transitions, alerts, changes) leave the read model;
  // their records stay, as the history of what they belong to.
  return null;
};

/** Replaces the page's records; resolves to how many of them now hold a tombstone of this reason,
 *  those a run that stopped half-way already replaced included, so a repeated run counts them. */
const redactPage = async (
  deps: RetentionDeps,
  projectId: string,
  refs: readonly RowRef[],
  reason: RedactionReason,
): Promise<number> => {
  const records = await deps.log.readPositions(refs.map((r) => r.position));
  const already = records.filter(
    (r) => r.type === 'RecordRedacted' && (r.data as RecordRedacted).reason === reason,
  ).length;
  const redactions = records.map((r) => tombstone(r, projectId, reason)).filter((r): r is Redaction => r !== null);
  return already + (redactions.length === 0 ? 0 : await deps.log.redact(redactions));
};

type RecordPage = Extract<Parameters<typeof projectDecider.decide>[0], { type: 'RecordRetentionApplied' }>;

/** A page's RetentionApplied is appended to the project's retention stream. Deciding it needs only
 *  the project to exist, which `project` (loaded once a run) says, and the project's own stream,
 *  which every project command reads whole, does not grow by a page at a time. Resolves to its
 *  position. */
const recordPage = async (
  deps: CommandDeps,
  project: Loaded<ProjectState>,
  command: RecordPage,
  ctx: CommandContext,
): Promise<string | null> => {
  const events = projectDecider.decide(command, project.state).map((e) => newEvent(e, ctx));
  return events.length === 0
    ? null
    : (await deps.log.append(retentionStream(command.project_id), events, 'any')).position;
};

/** Removes the project's audit events older than `retentionDays` (down to the hour) from the log
 *  and, through RetentionApplied, from every read model. Resolves to how many records it replaced;
 *  appends nothing when no row is due. */
export const applyRetention = async (
  deps: RetentionDeps,
  projectId: string,
  retentionDays: number,
  ctx: CommandContext,
): Promise<number> => {
  const through = await deps.log.headPosition();
  if (through === null) return 0;
  await deps.caughtUp(through);
  const cutoff = retentionCutoff(ctx.now(), retentionDays);
  const page = deps.pageSize ?? REDACTION_PAGE;
  const rest = deps.restFraction ?? REST_FRACTION;
  const project = await load(deps.log, projectStream(projectId), projectDecider);
  let after: RowRef | null = null;
  let total = 0;
  for (;;) {
    const started = Date.now();
    const refs = await deps.redactable({ project_id: projectId, through, before: cutoff.getTime() }, after, page);
    if (refs.length === 0) return total;
    const removed = await redactPage(deps, projectId, refs, 'retention');
    total += removed;
    const last = refs[refs.length - 1]!;
    const final = refs.length < page;
    const position = await recordPage(
      deps,
      project,
      {
        type: 'RecordRetentionApplied',
        project_id: projectId,
        cutoff: cutoff.toISOString(),
        through_position: through,
        removed,
        at: ctx.now().toISOString(),
        ...(final ? {} : { until: { timestamp: new Date(last.ts).toISOString(), position: last.position } }),
      },
      ctx,
    );
    const worked = Date.now() - started;
    // Paced by the read models (each page is applied before the next is taken), then rested as
    // long as the page's own work took (waiting for the read models is not work).
    if (position !== null) await deps.caughtUp(position);
    if (final) return total;
    after = last;
    await sleep(worked * rest);
  }
};

/** Records an erasure request for the project's events of `identifier` so far (up to the log
 *  head now); the erasure job carries it out. Throws RedactionUnsupportedError on a log that cannot
 *  replace records, before recording anything. */
export const requestErasure = async (deps: CommandDeps, projectId: string, identifier: string, ctx: CommandContext) => {
  if (!deps.log.redacts) throw new RedactionUnsupportedError();
  const request = {
    erasure_id: randomUUID(),
    through_position: (await deps.log.headPosition()) ?? '0',
    requested_at: ctx.now().toISOString(),
  };
  const { position } = await handle(
    deps,
    projectStream(projectId),
    projectDecider,
    {
      type: 'RequestErasure',
      project_id: projectId,
      identifier,
      erasure_id: request.erasure_id,
      through_position: request.through_position,
      at: request.requested_at,
    },
    ctx,
  );
  return { ...request, position };
};

/** Erases the personal fields of the requested identifier's events (those up to the request's
 *  position) from the log, a page at a time, paced like retention, then appends IdentifierErased,
 *  which erases them from every read model and completes the request. Resolves to how many
 *  events it erased; a request already done appends nothing. */
export const eraseIdentifier = async (
  deps: RetentionDeps,
  request: ErasureRequested,
  ctx: CommandContext,
): Promise<number> => {
  const { project_id: projectId, identifier, through_position: through, erasure_id } = request;
  await deps.caughtUp(through);
  const page = deps.pageSize ?? REDACTION_PAGE;
  const rest = deps.restFraction ?? REST_FRACTION;
  let after: RowRef | null = null;
  let erased = 0;
  for (;;) {
    const started = Date.now();
    const refs = await deps.redactable({ project_id: projectId, through, identifier }, after, page);
    if (refs.length > 0) erased += await redactPage(deps, projectId, refs, 'erasure');
    if (refs.length < page) break;
    after = refs[refs.length - 1]!;
    await sleep((Date.now() - started) * rest);
  }
  erased += await eraseSubscriptions(deps, projectId, identifier);
  const { position } = await handle(
    deps,
    projectStream(projectId),
    projectDecider,
    {
      type: 'RecordErasure',
      project_id: projectId,
      erasure_id,
      identifier,
      through_position: through,
      erased,
      at: ctx.now().toISOString(),
    },
    ctx,
  );
  if (position !== null) await deps.caughtUp(position);
  return erased;
};

/** Replaces every record of the project's status page subscriptions of an address equal to the
 *  identifier (compared as addresses are: trimmed, lower-case). Their streams are then empty of
 *  anything but tombstones: a subscription of the address afterwards starts anew. Resolves to how
 *  many records it replaced; the IdentifierErased that follows takes them from the read model. */
const eraseSubscriptions = async (deps: RetentionDeps, projectId: string, identifier: string): Promise<number> => {
  const ids = (await deps.subscriptionsOf?.(projectId, normaliseEmail(identifier))) ?? [];
  let erased = 0;
  for (const id of ids) {
    const records = await deps.log.readStream(subscriberStream(id));
    const redactions = records.map((r) => tombstone(r, projectId, 'erasure')).filter((r): r is Redaction => r !== null);
    if (redactions.length > 0) erased += await deps.log.redact(redactions);
  }
  return erased;
};

/** Sets how long the project keeps its ingested events (null: for ever). */
export const setRetention = (deps: CommandDeps, projectId: string, retentionDays: number | null, ctx: CommandContext) =>
  handle(
    deps,
    projectStream(projectId),
    projectDecider,
    { type: 'SetRetention', project_id: projectId, retention_days: retentionDays, at: ctx.now().toISOString() },
    ctx,
  );
