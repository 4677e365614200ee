import { hashApiKey } from '../../commands/projects.ts';
import type { AccessQueries, ActiveKey } from '../../views/access/port.ts';
import { ReadThroughCache } from './read-through-cache.ts';

/** API key → the active key (its project and restrictions), remembered for a short time so the
 *  ingest path skips the SHA-256 and the read-model lookup. Only active keys are remembered. A
 *  revocation or restriction through this process forgets everything at once; one made through
 *  another API process takes effect here within `ttlMs`. */
export class ApiKeyCache {
  private readonly cache;

  constructor(access: Pick<AccessQueries, 'activeKey'>, ttlMs = 1000, maxEntries = 10_000) {
    this.cache = new ReadThroughCache<string, ActiveKey | null>((key) => access.activeKey(hashApiKey(key)), {
      ttlMs,
      maxEntries,
      remember: (found) => found !== null,
    });
  }

  activeKey(key: string): Promise<ActiveKey | null> {
    return this.cache.get(key);
  }

  invalidate(): void {
    this.cache.invalidate();
  }
}
