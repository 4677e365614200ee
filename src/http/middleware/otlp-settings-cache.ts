import { DEFAULT_OTLP_SETTINGS, type OtlpSettings } from '../../domain/otlp-mapping.ts';
import type { OtlpQueries } from '../../views/otlp/port.ts';
import { ReadThroughCache } from './read-through-cache.ts';

/** Project → its OTLP settings (the defaults until it sets them), remembered for a short time so
 *  that OTLP ingest reads the read model about once a second per project. A PUT through this
 *  process forgets the project here once the read model has it; one through another API process
 *  applies within `ttlMs`. */
export class OtlpSettingsCache {
  private readonly cache;

  constructor(otlp: Pick<OtlpQueries, 'settingsOf'>, ttlMs = 1000, maxEntries = 10_000) {
    this.cache = new ReadThroughCache<string, OtlpSettings>(
      async (projectId) => {
        const own = await otlp.settingsOf(projectId);
        if (own === null) return DEFAULT_OTLP_SETTINGS;
        const { identifier_attribute, default_environment, unsupported_methods } = own;
        return { identifier_attribute, default_environment, unsupported_methods };
      },
      { ttlMs, maxEntries },
    );
  }

  of(projectId: string): Promise<OtlpSettings> {
    return this.cache.get(projectId);
  }

  invalidate(projectId: string): void {
    this.cache.invalidate(projectId);
  }
}
