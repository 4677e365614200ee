import { createHash } from 'node:crypto';
import { retentionProjection } from '../../projections/retention.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(retentionProjection, (m) => m.stores.retention);

const [P, Q] = ['7c3d4e5f-6071-4c8d-9e0f-1a2b3c4d5e01', '7c3d4e5f-6071-4c8d-9e0f-1a2b3c4d5e02'];
const [E1, E2, E3] = [
  '8d4e5f60-7182-4d9e-8f01-2b3c4d5e6f01',
  '8d4e5f60-7182-4d9e-8f01-2b3c4d5e6f02',
  '8d4e5f60-7182-4d9e-8f01-2b3c4d5e6f03',
];
const digest = (s: string) => createHash('sha256').update(s).digest('hex');
const at = (day: number) => new Date(Date.UTC(2026, 4, day)).toISOString();

const history = (): DomainEvent[] => [
  { type: 'RetentionSet', data: { project_id: P, retention_days: 30, updated_at: at(1) } },
  {
    type: 'RetentionApplied',
    data: {
      project_id: P,
      cutoff: at(2),
      through_position: '9',
      removed: 5000,
      applied_at: at(3),
      until: { timestamp: at(1), position: '4' },
    },
  },
  {
    type: 'RetentionApplied',
    data: { project_id: P, cutoff: at(2), through_position: '9', removed: 120, applied_at: at(3) },
  },
  {
    type: 'IdentifierErased',
    data: { project_id: P, identifier: 'ann', through_position: '12', erased: 7, erased_at: at(4) },
  },
  // Requests: one done, one still pending, one of another project.
  {
    type: 'ErasureRequested',
    data: { project_id: P, erasure_id: E1, identifier: 'cid', through_position: '14', requested_at: at(8) },
  },
  {
    type: 'ErasureRequested',
    data: { project_id: P, erasure_id: E2, identifier: 'dan', through_position: '15', requested_at: at(9) },
  },
  {
    type: 'ErasureRequested',
    data: { project_id: Q, erasure_id: E3, identifier: 'cid', through_position: '16', requested_at: at(9) },
  },
  {
    type: 'IdentifierErased',
    data: { project_id: P, erasure_id: E1, identifier: 'cid', through_position: '14', erased: 3, erased_at: at(10) },
  },
  // A project that erased an identifier and never set retention, and one that set it back to for ever.
  {
    type: 'IdentifierErased',
    data: { project_id: Q, identifier: 'bob', through_position: '13', erased: 2, erased_at: at(5) },
  },
  { type: 'RetentionSet', data: { project_id: Q, retention_days: 7, updated_at: at(6) } },
  { type: 'RetentionSet', data: { project_id: Q, retention_days: null, updated_at: at(7) } },
];

const read = async (m: ReadModels) => ({
  p: await m.retention.retentionOf(P),
  q: await m.retention.retentionOf(Q),
  limited: await m.retention.limited(),
  erasures: await m.retention.erasures(P, { page: 1, limit: 10 }),
  second: await m.retention.erasures(P, { page: 2, limit: 1 }),
  one: await m.retention.erasure(P, E1),
  elsewhere: await m.retention.erasure(P, E3),
  pending: (await m.retention.pendingErasures()).map(({ erasure_id, project_id }) => ({ erasure_id, project_id })),
});

scenarioTests(it, {
  projectId: P,
  events: history,
  read,
  expected: () => ({
    p: {
      project_id: P,
      retention_days: 30,
      updated_at: at(1),
      last_applied_at: at(3),
      last_cutoff: at(2),
      removed_total: 5120,
      erased_total: 10,
    },
    q: {
      project_id: Q,
      retention_days: null,
      updated_at: at(7),
      last_applied_at: null,
      last_cutoff: null,
      removed_total: 0,
      erased_total: 2,
    },
    limited: [{ project_id: P, retention_days: 30 }],
    erasures: {
      data: [
        {
          id: E2,
          project_id: P,
          identifier_sha256: digest('dan'),
          status: 'pending',
          requested_at: at(9),
          through_position: '15',
          erased: null,
          erased_at: null,
        },
        {
          id: E1,
          project_id: P,
          identifier_sha256: digest('cid'),
          status: 'done',
          requested_at: at(8),
          through_position: '14',
          erased: 3,
          erased_at: at(10),
        },
      ],
      pagination: { page: 1, limit: 10, totalItems: 2, totalPage: 1 },
    },
    second: {
      data: [
        {
          id: E1,
          project_id: P,
          identifier_sha256: digest('cid'),
          status: 'done',
          requested_at: at(8),
          through_position: '14',
          erased: 3,
          erased_at: at(10),
        },
      ],
      pagination: { page: 2, limit: 1, totalItems: 2, totalPage: 2 },
    },
    one: {
      id: E1,
      project_id: P,
      identifier_sha256: digest('cid'),
      status: 'done',
      requested_at: at(8),
      through_position: '14',
      erased: 3,
      erased_at: at(10),
    },
    elsewhere: null,
    pending: [
      { erasure_id: E2, project_id: P },
      { erasure_id: E3, project_id: Q },
    ],
  }),
});
