import type { AccessQueries, UserView } from '../../views/access/port.ts';

/** A user's current state (role, projects, disabled, `tokens_valid_after`) for the token check
 *  of every request, remembered for `ttlMs` so a burst of requests reads the access read model
 *  once. A change made through this process forgets its user at once; one made through another
 *  API process takes effect here within `ttlMs` after the access projection has applied it. */
export class UserStateCache {
  private readonly entries = new Map<string, { user: UserView; expiresAt: number }>();

  constructor(
    private readonly access: Pick<AccessQueries, 'userById'>,
    readonly ttlMs = 1000,
    private readonly maxEntries = 10_000,
  ) {}

  async get(id: string): Promise<UserView | null> {
    const now = Date.now();
    const hit = this.entries.get(id);
    if (hit && hit.expiresAt > now) return hit.user;
    const user = await this.access.userById(id);
    if (user === null) {
      this.entries.delete(id);
      return null;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(id, { user, expiresAt: now + this.ttlMs });
    return user;
  }

  invalidate(id: string): void {
    this.entries.delete(id);
  }
}
