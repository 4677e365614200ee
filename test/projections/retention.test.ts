import { retentionProjection } from '../../projections/retention.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(retentionProjection, (m) => m.stores.retention);

const [P, Q] = ['7c3d4e5f-6071-4c8d-9e0f-1a2b3c4d5e01', '7c3d4e5f-6071-4c8d-9e0f-1a2b3c4d5e02'];
const at = (day: number) => new Date(Date.UTC(2026, 4, day)).toISOString();

const history = (): DomainEvent[] => [
  { type: 'RetentionSet', data: { project_id: P, retention_days: 30, updated_at: at(1) } },
  { type: 'RetentionApplied', data: { project_id: P, cutoff: at(2), through_position: '9', removed: 5000, applied_at: at(3), until: { timestamp: at(1), position: '4' } } },
  { type: 'RetentionApplied', data: { project_id: P, cutoff: at(2), through_position: '9', removed: 120, applied_at: at(3) } },
  { type: 'IdentifierErased', data: { project_id: P, identifier: 'ann', through_position: '12', erased: 7, erased_at: at(4) } },
  // A project that erased an identifier and never set retention, and one that set it back to for ever.
  { type: 'IdentifierErased', data: { project_id: Q, identifier: 'bob', through_position: '13', erased: 2, erased_at: at(5) } },
  { type: 'RetentionSet', data: { project_id: Q, retention_days: 7, updated_at: at(6) } },
  { type: 'RetentionSet', data: { project_id: Q, retention_days: null, updated_at: at(7) } },
];

const read = async (m: ReadModels) => ({ p: await m.retention.retentionOf(P), q: await m.retention.retentionOf(Q), limited: await m.retention.limited() });

scenarioTests(it, {
  projectId: P,
  events: history,
  read,
  expected: () => ({
    p: { project_id: P, retention_days: 30, updated_at: at(1), last_applied_at: at(3), last_cutoff: at(2), removed_total: 5120, erased_total: 7 },
    q: { project_id: Q, retention_days: null, updated_at: at(7), last_applied_at: null, last_cutoff: null, removed_total: 0, erased_total: 2 },
    limited: [{ project_id: P, retention_days: 30 }],
  }),
});
