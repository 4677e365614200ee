import type { OtlpWriter } from '../src/views/otlp/port.ts';
import type { Projection } from './projection.ts';

/** Each project's OTLP settings, for the settings API and OTLP ingest. */
export const otlpProjection: Projection<OtlpWriter> = {
  name: 'otlp',
  handles: ['OtlpSettingsSet'],
  apply(event, _recorded, writer) {
    if (event.type === 'OtlpSettingsSet') {
      const { project_id, identifier_attribute, default_environment, unsupported_methods, updated_at } = event.data;
      writer.settingsSet({ project_id, identifier_attribute, default_environment, unsupported_methods, updated_at });
    }
  },
};
