import type { SessionView, SessionsQueries } from '../../views/sessions/port.ts';
import { ReadThroughCache } from './read-through-cache.ts';

/** Whether a token's session still stands, for the token check of every request: not ended,
 *  not past its absolute end, and the token's user's. Remembered for `ttlMs`, as users are
 *  (user-cache.ts): a session ended through this process is forgotten at once; one ended through
 *  another API process is refused here within `ttlMs` after the sessions projection applied it. */
export class SessionStateCache {
  private readonly cache;

  constructor(
    sessions: Pick<SessionsQueries, 'get'>,
    private readonly now: () => Date,
    readonly ttlMs = 1000,
    maxEntries = 10_000,
  ) {
    this.cache = new ReadThroughCache<string, SessionView | null>((id) => sessions.get(id), {
      ttlMs,
      maxEntries,
      remember: (session) => session !== null,
    });
  }

  async open(id: string, userId: string): Promise<boolean> {
    const session = await this.cache.get(id);
    return (
      session !== null &&
      session.user_id === userId &&
      session.ended_at === null &&
      this.now().getTime() < Date.parse(session.expires_at)
    );
  }

  invalidate(id: string): void {
    this.cache.invalidate(id);
  }
}
