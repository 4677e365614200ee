import test, { type ExecutionContext } from 'ava';
import { randomUUID } from 'node:crypto';
import type { Scope } from '../../../src/domain/scope.ts';
import type { RecordedEvent } from '../../../src/log/event-log.ts';
import type { AuditListQuery } from '../../../src/views/audit-events/port.ts';
import type { ReadModels } from '../../../src/views/read-models.ts';
import type { QueryPlan } from '../../helpers/query-plans.ts';

/** What an adapter's test opens for each test of the contract: empty read models, and what only
 *  some adapters can tell or do. */
export interface OpenedReadModels {
  readModels: ReadModels;
  cleanup: () => Promise<void>;
  /** The plan of the audit-events list's query for `q` (not run). */
  auditListPlan?: (q: AuditListQuery, scope: Scope) => Promise<QueryPlan>;
  /** Moves a projection's checkpoint back (null: before the first event) and leaves what it
   *  wrote: the state a crash between a batch's writes and its checkpoint leaves. Absent where
   *  that state cannot happen (SQLite commits both in one transaction). */
  rewindCheckpoint?: (projection: string, position: string | null) => Promise<void>;
}

export interface ReadModelsContractOptions {
  /** Audit list shapes (by their names in the plan test) that this adapter's indexes do not
   *  serve yet: their plans must still sort in memory, so that serving them shows there. */
  auditShapesSortedInMemory?: readonly string[];
}

/** Declares one test of the contract, run on read models of its own. */
export type WithModels = (
  title: string,
  body: (t: ExecutionContext, m: ReadModels, opened: OpenedReadModels) => Promise<void>,
) => void;

export const modelsTest =
  (adapter: string, open: () => Promise<OpenedReadModels>): WithModels =>
  (title, body) =>
    test(`${adapter} read models: ${title}`, async (t) => {
      const opened = await open();
      try {
        await body(t, opened.readModels, opened);
      } finally {
        await opened.cleanup();
      }
    });

let position = 0;
/** A log record for a batch: only its position matters to a store, and positions only grow. */
export const recorded = (): RecordedEvent => {
  position += 1;
  return {
    id: randomUUID(),
    type: 'AuditEventRecorded',
    stream: 's',
    revision: 0,
    position: String(position),
    data: {},
    metadata: { recorded_at: '', actor: '', correlation_id: '', schema_version: 1 },
  };
};
