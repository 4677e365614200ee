import { hashApiKey } from '../../commands/projects.ts';
import type { AccessQueries } from '../../views/access/port.ts';
import { ReadThroughCache } from './read-through-cache.ts';

/** API key → project, remembered for a short time so the ingest path skips the SHA-256 and the
 *  read-model lookup. Only active keys are remembered. A revocation through this process
 *  forgets everything at once; one made through another API process takes effect here within
 *  `ttlMs`. */
export class ApiKeyCache {
  private readonly cache;

  constructor(access: Pick<AccessQueries, 'projectOfKey'>, ttlMs = 1000, maxEntries = 10_000) {
    this.cache = new ReadThroughCache<string, string | null>((key) => access.projectOfKey(hashApiKey(key)), {
      ttlMs, maxEntries, remember: (projectId) => projectId !== null,
    });
  }

  projectOf(key: string): Promise<string | null> {
    return this.cache.get(key);
  }

  invalidate(): void {
    this.cache.invalidate();
  }
}
