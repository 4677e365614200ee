import { randomUUID } from 'node:crypto';
import { recorded, type WithModels } from './harness.ts';

export const sessionsContract = (withModels: WithModels): void => {
  withModels('sessions: started, refreshed and ended; a user’s open ones newest first', async (t, m) => {
    const user = randomUUID();
    const [a, b, other] = [randomUUID(), randomUUID(), randomUUID()];
    const view = (id: string, userId: string, createdAt: string) => ({
      id,
      user_id: userId,
      kind: 'cookie' as const,
      method: 'password',
      address: '127.0.0.1',
      user_agent: 'Firefox/140.0',
      created_at: createdAt,
      last_used_at: createdAt,
      expires_at: '2026-02-01T00:00:00.000Z',
      ended_at: null,
      ended_reason: null,
    });
    const first = recorded();
    const start = () =>
      m.stores.sessions.commit([first], (_r, w) => {
        w.started(view(a, user, '2026-01-01T00:00:00.000Z'));
        w.started(view(b, user, '2026-01-02T00:00:00.000Z'));
        w.started(view(other, randomUUID(), '2026-01-03T00:00:00.000Z'));
      });
    await start();
    await start();
    t.deepEqual(
      (await m.sessions.openOf(user)).map((s) => s.id),
      [b, a],
    );
    t.deepEqual(await m.sessions.get(a), view(a, user, '2026-01-01T00:00:00.000Z'));
    t.is(await m.sessions.get(randomUUID()), null);

    await m.stores.sessions.commit([recorded()], (_r, w) => {
      w.refreshed(a, '2026-01-04T00:00:00.000Z', '10.0.0.2', null);
      w.ended(b, '2026-01-04T00:00:01.000Z', 'logout');
    });
    t.like(await m.sessions.get(a), {
      last_used_at: '2026-01-04T00:00:00.000Z',
      address: '10.0.0.2',
      user_agent: null,
    });
    t.like(await m.sessions.get(b), { ended_at: '2026-01-04T00:00:01.000Z', ended_reason: 'logout' });
    t.deepEqual(
      (await m.sessions.openOf(user)).map((s) => s.id),
      [a],
    );
  });
};
