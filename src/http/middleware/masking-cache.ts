import { compileMaskingRules } from '../../domain/masking-rules.ts';
import type { ProjectMasking } from '../../domain/masking.ts';
import type { MaskingQueries } from '../../views/masking/port.ts';

/** Project → its masking rules, compiled, remembered for a short time so that ingest reads the
 *  read model about once a second per project and compiles the patterns only when they change.
 *  A change through this process applies to the next event ingested after its PUT answered (the
 *  PUT waits for the read model, then forgets the project here); one made through another API
 *  process applies here within `ttlMs` of that read model having it. When the read model cannot
 *  be read, ingest fails rather than store an event without the project's rules. */
export class MaskingCache {
  private readonly entries = new Map<string, { updatedAt: string | null; masking: ProjectMasking | null; expiresAt: number }>();
  /** Bumped by every invalidation: a read that began before one is not remembered, so it
   *  cannot put back the rules the invalidation dropped. */
  private generation = 0;

  constructor(
    private readonly masking: Pick<MaskingQueries, 'rulesOf'>,
    private readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  /** Null when the project has no rules of its own. */
  async of(projectId: string): Promise<ProjectMasking | null> {
    const now = Date.now();
    const hit = this.entries.get(projectId);
    if (hit && hit.expiresAt > now) return hit.masking;
    const generation = this.generation;
    const rules = await this.masking.rulesOf(projectId);
    const updatedAt = rules?.updated_at ?? null;
    const masking = hit && hit.updatedAt === updatedAt ? hit.masking : rules && compileMaskingRules(rules);
    if (generation !== this.generation) return masking;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(projectId, { updatedAt, masking, expiresAt: now + this.ttlMs });
    return masking;
  }

  invalidate(projectId: string): void {
    this.generation += 1;
    this.entries.delete(projectId);
  }
}
