import { DomainError } from '../domain/errors.ts';
import { projectDecider } from '../domain/project.ts';
import {
  WATCHLOG_PROJECT_ID,
  WATCHLOG_PROJECT_NAME,
  exportAccessEvent,
  loginAccessEvent,
  viewerTokenAccessEvent,
  type ExportRecord,
  type LoginAttemptRecord,
  type ViewerTokenRecord,
} from '../domain/self-audit.ts';
import type { StoredAuditEvent } from '../domain/audit-event.ts';
import { type ConfigApplyRecord, configApplyAccessEvent } from '../domain/self-audit-config.ts';
import { auditStream, projectStream } from '../domain/streams.ts';
import { handle, newEvent, type CommandContext, type CommandDeps } from './handle.ts';
import { newEventId } from './event-ids.ts';

/** Creates the built-in `watchlog` project, where watchlog's own audit events go, unless it
 *  exists (every process may try at start-up: one wins, the others find it). */
export const ensureWatchlogProject = async (deps: CommandDeps, ctx: CommandContext): Promise<void> => {
  try {
    await handle(
      deps,
      projectStream(WATCHLOG_PROJECT_ID),
      projectDecider,
      {
        type: 'CreateProject',
        project_id: WATCHLOG_PROJECT_ID,
        name: WATCHLOG_PROJECT_NAME,
        at: ctx.now().toISOString(),
      },
      ctx,
    );
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'conflict')) throw error;
  }
};

const record = async (deps: CommandDeps, stored: StoredAuditEvent, ctx: CommandContext) => {
  const { position } = await deps.log.append(
    auditStream(WATCHLOG_PROJECT_ID),
    [newEvent({ type: 'AuditEventRecorded', data: stored }, ctx)],
    'any',
  );
  return { id: stored.id, position };
};

/** A login attempt, as an audit event of the built-in project. */
export const recordLoginAttempt = (deps: CommandDeps, attempt: LoginAttemptRecord, ctx: CommandContext) =>
  record(deps, loginAccessEvent(newEventId(), attempt), ctx);

/** An export, before its first row is sent: who, which filters, how many rows. */
export const recordExport = (deps: CommandDeps, exported: ExportRecord, ctx: CommandContext) =>
  record(deps, exportAccessEvent(newEventId(), exported), ctx);

/** A viewer token given out, before the answer carries it: none goes unrecorded (503 otherwise). */
export const recordViewerToken = (deps: CommandDeps, issued: ViewerTokenRecord, ctx: CommandContext) =>
  record(deps, viewerTokenAccessEvent(newEventId(), issued), ctx);

/** An apply of a configuration file, naming what it changed. */
export const recordConfigApply = (deps: CommandDeps, applied: ConfigApplyRecord, ctx: CommandContext) =>
  record(deps, configApplyAccessEvent(newEventId(), applied), ctx);
