import { otlpProjection } from '../../projections/otlp.ts';
import type { DomainEvent } from '../../src/domain/events.ts';
import type { OtlpSettings } from '../../src/domain/otlp-mapping.ts';
import type { ReadModels } from '../../src/views/read-models.ts';
import { projectionTests, scenarioTests } from '../helpers/fold.ts';

const it = projectionTests(otlpProjection, (m) => m.stores.otlp);

const [P, Q, R] = [
  'd3be9a6c-e7f8-4a0b-9c8d-9e0f1a2b3c01',
  'd3be9a6c-e7f8-4a0b-9c8d-9e0f1a2b3c02',
  'd3be9a6c-e7f8-4a0b-9c8d-9e0f1a2b3c03',
];

const at = (minute: number) => new Date(Date.UTC(2026, 11, 6, 9, minute)).toISOString();

const settingsSet = (project_id: string, minute: number, settings: OtlpSettings): DomainEvent => ({
  type: 'OtlpSettingsSet',
  data: { project_id, ...settings, updated_at: at(minute) },
});

const nearest: OtlpSettings = {
  identifier_attribute: 'app.user',
  default_environment: 'staging',
  unsupported_methods: 'nearest',
};
const skip: OtlpSettings = {
  identifier_attribute: null,
  default_environment: 'development',
  unsupported_methods: 'skip',
};

const read = async (m: ReadModels) => ({
  p: await m.otlp.settingsOf(P),
  q: await m.otlp.settingsOf(Q),
  r: await m.otlp.settingsOf(R),
});

scenarioTests(it, {
  projectId: P,
  events: () => [
    settingsSet(P, 0, nearest),
    settingsSet(Q, 1, skip),
    settingsSet(P, 2, skip),
    settingsSet(Q, 3, nearest),
  ],
  read,
  expected: () => ({
    p: { project_id: P, ...skip, updated_at: at(2) },
    q: { project_id: Q, ...nearest, updated_at: at(3) },
    r: null,
  }),
});
