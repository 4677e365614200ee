import type { AccessQueries, UserView } from '../../views/access/port.ts';
import { ReadThroughCache } from './read-through-cache.ts';

/** A user's current state (role, projects, disabled, `tokens_valid_after`) for the token check
 *  of every request, remembered for `ttlMs` so a burst of requests reads the access read model
 *  once. A change made through this process forgets its user at once; one made through another
 *  API process takes effect here within `ttlMs` after the access projection has applied it. */
export class UserStateCache {
  private readonly cache;

  constructor(
    access: Pick<AccessQueries, 'userById'>,
    readonly ttlMs = 1000,
    maxEntries = 10_000,
  ) {
    this.cache = new ReadThroughCache<string, UserView | null>((id) => access.userById(id), {
      ttlMs,
      maxEntries,
      remember: (user) => user !== null,
    });
  }

  get(id: string): Promise<UserView | null> {
    return this.cache.get(id);
  }

  invalidate(id: string): void {
    this.cache.invalidate(id);
  }
}
