import type { MaskingWriter } from '../src/views/masking/port.ts';
import type { Projection } from './projection.ts';

/** Each project's own masking rules, for the settings API and ingest. */
export const maskingProjection: Projection<MaskingWriter> = {
  name: 'masking',
  handles: ['MaskingRulesSet'],
  apply(event, _recorded, writer) {
    if (event.type === 'MaskingRulesSet') {
      const { project_id, keys, patterns, updated_at } = event.data;
      writer.rulesSet({ project_id, keys, patterns, updated_at });
    }
  },
};
