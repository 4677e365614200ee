import * as t from 'io-ts';
import { AUDIT_EVENT_TYPE, type StoredAuditEvent } from './audit-event.ts';
import { boundedArray, boundedString, closed } from './codecs.ts';
import { WATCHLOG_PROJECT_ID } from './self-audit.ts';

/** An apply of a configuration file (docs/config-file.md) as one `system.access` row of the
 *  built-in project, naming each change it made. The changes themselves are rows of their own,
 *  derived from their events; this row is what the applier says it did, under the same request
 *  id, so one query finds the apply and all it changed. */

export const MAX_APPLIED_CHANGES = 10_000;

const AppliedChange = closed(
  t.exact(
    t.type({
      action: t.keyof({ create: null, change: null, replace: null, delete: null }),
      kind: boundedString(1, 50),
      project: boundedString(1, 100),
      name: boundedString(1, 255),
      fields: boundedArray(boundedString(1, 255), 0, 200, 'a list of at most 200 field names'),
    }),
  ),
  'field',
  'a change',
);

export const ConfigAppliedBody = closed(
  t.exact(
    t.type({
      file: boundedString(1, 255),
      changes: boundedArray(AppliedChange, 0, MAX_APPLIED_CHANGES, `a list of at most ${MAX_APPLIED_CHANGES} changes`),
    }),
  ),
  'field',
  'an applied configuration file',
);
export type ConfigAppliedBody = t.TypeOf<typeof ConfigAppliedBody>;

export interface ConfigApplyRecord extends ConfigAppliedBody {
  readonly actor: string;
  readonly address: string;
  readonly requestId: string;
  readonly at: Date;
}

export const configApplyAccessEvent = (id: string, a: ConfigApplyRecord): StoredAuditEvent => ({
  project_id: WATCHLOG_PROJECT_ID,
  event_type: AUDIT_EVENT_TYPE.access,
  service_name: 'watchlog',
  environment: 'production',
  source: 'backend',
  id,
  timestamp: a.at.toISOString(),
  method: 'POST',
  path: '/v1/config/applies',
  status_code: 201,
  identifier: a.actor.slice(0, 100),
  ip: a.address,
  request_id: a.requestId,
  request_body: { action: 'config.applied', file: a.file, changes: a.changes.map((c) => ({ ...c })) },
});
