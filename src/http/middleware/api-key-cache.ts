import { hashApiKey } from '../../commands/projects.ts';
import type { AccessQueries } from '../../views/access/port.ts';

/** API key → project, remembered for a short time so the ingest path skips the SHA-256 and the
 *  read-model lookup. Only active keys are remembered. A revocation through this process
 *  forgets everything at once; one made through another API process takes effect here within
 *  `ttlMs`. */
export class ApiKeyCache {
  private readonly entries = new Map<string, { projectId: string; expiresAt: number }>();

  constructor(
    private readonly access: Pick<AccessQueries, 'projectOfKey'>,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  async projectOf(key: string): Promise<string | null> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.projectId;
    const projectId = await this.access.projectOfKey(hashApiKey(key));
    if (projectId === null) {
      this.entries.delete(key);
      return null;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { projectId, expiresAt: now + this.ttlMs });
    return projectId;
  }

  invalidate(): void {
    this.entries.clear();
  }
}
