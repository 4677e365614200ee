import { compileMaskingRules } from '../../domain/masking-rules.ts';
import type { ProjectMasking } from '../../domain/masking.ts';
import type { MaskingQueries } from '../../views/masking/port.ts';
import { ReadThroughCache } from './read-through-cache.ts';

interface Compiled {
  updatedAt: string | null;
  masking: ProjectMasking | null;
}

/** Project → its masking rules, compiled, remembered for a short time so that ingest reads the
 *  read model about once a second per project and compiles the patterns only when they change.
 *  A change through this process applies to the next event ingested after its PUT answered (the
 *  PUT waits for the read model, then forgets the project here); one made through another API
 *  process applies here within `ttlMs` of that read model having it. When the read model cannot
 *  be read, ingest fails rather than store an event without the project's rules. */
export class MaskingCache {
  private readonly cache;

  constructor(masking: Pick<MaskingQueries, 'rulesOf'>, ttlMs = 1000, maxEntries = 10_000) {
    this.cache = new ReadThroughCache<string, Compiled>(
      async (projectId, previous) => {
        const rules = await masking.rulesOf(projectId);
        const updatedAt = rules?.updated_at ?? null;
        if (previous && previous.updatedAt === updatedAt) return previous;
        return { updatedAt, masking: rules && compileMaskingRules(rules) };
      },
      { ttlMs, maxEntries },
    );
  }

  /** Null when the project has no rules of its own. */
  async of(projectId: string): Promise<ProjectMasking | null> {
    return (await this.cache.get(projectId)).masking;
  }

  invalidate(projectId: string): void {
    this.cache.invalidate(projectId);
  }
}
