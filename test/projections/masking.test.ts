import { maskingProjection } from '../../projections/masking.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(maskingProjection, (m) => m.stores.masking);

const [P, Q, R] = [
  'c2ad8f5b-d6e7-49fa-8b7c-8d9e0f1a2b01',
  'c2ad8f5b-d6e7-49fa-8b7c-8d9e0f1a2b02',
  'c2ad8f5b-d6e7-49fa-8b7c-8d9e0f1a2b03',
];

const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 9, minute)).toISOString();

const rulesSet = (project_id: string, minute: number, keys: string[], patterns: string[]): DomainEvent => ({
  type: 'MaskingRulesSet',
  data: { project_id, keys, patterns, updated_at: at(minute) },
});

const read = async (m: ReadModels) => ({
  p: await m.masking.rulesOf(P),
  q: await m.masking.rulesOf(Q),
  r: await m.masking.rulesOf(R),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    rulesSet(P, 0, ['Session-Id'], ['sk_live_[0-9a-z]+']),
    rulesSet(Q, 1, ['internal_ref'], []),
    // Each replaces the project's rules whole.
    rulesSet(P, 2, ['Session-Id', 'x-tenant-secret'], ['(?i)^bearer ', 'AKIA[0-9A-Z]{16}']),
    rulesSet(Q, 3, [], []),
    rulesSet(P, 4, ['x-tenant-secret'], ['AKIA[0-9A-Z]{16}']),
  ],
  read,
  expected: () => ({
    p: { project_id: P, keys: ['x-tenant-secret'], patterns: ['AKIA[0-9A-Z]{16}'], updated_at: at(4) },
    q: { project_id: Q, keys: [], patterns: [], updated_at: at(3) },
    r: null,
  }),
});

it('rules read back exactly as set: spelling, order and escapes kept', async (t, f) => {
  const patterns = ['\\b[0-9]{3}-[0-9]{2}-[0-9]{4}\\b', '"quoted"', '$.key', 'ü+'];
  await f.fold([rulesSet(R, 9, ['Z-key', 'a.b', '$where'], patterns)]);
  t.deepEqual(await f.models.masking.rulesOf(R), {
    project_id: R,
    keys: ['Z-key', 'a.b', '$where'],
    patterns,
    updated_at: at(9),
  });
  t.is(await f.models.masking.rulesOf(P), null);
});
