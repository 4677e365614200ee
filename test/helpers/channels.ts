import { recordCheck } from '../../src/commands/monitors.ts';
import type { CheckResult } from '../../src/domain/monitor.ts';
import { comparePositions } from '../../src/log/event-log.ts';
import { api, eventually, login, projectWithKey, type TestServer } from './server.ts';

/** Channels and their deliveries through the real app: a monitor whose checks the test records,
 *  channels on its project, and when the notification reactor has nothing left to send. */

const ctx = { actor: 'test', correlationId: 'test', now: () => new Date() };
const check = (ok: boolean, offsetS: number): CheckResult => ({
  checked_at: new Date(Date.now() + offsetS * 1000).toISOString(),
  ok,
  response_ms: 5,
  ...(ok ? { status_code: 200 } : { status_code: 503 }),
});

/** A monitor (never checked by a job: its checks are recorded by the test) in a new project. */
export const setUp = async (server: TestServer, name = 'shop') => {
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, name);
  const monitor = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'checkout-api', url: 'http://127.0.0.1:9/health' },
    })
  ).body as { id: string };
  const channel = async (body: Record<string, unknown>) => {
    const res = await api(server.url, 'POST', '/v1/channels', { token, body: { project_id: projectId, ...body } });
    if (res.status !== 201) throw new Error(`channel: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string } & Record<string, unknown>;
  };
  /** Records checks with these outcomes, `step` seconds apart from `from`, through `on` (the
   *  server, or the one started after a restart). */
  const checks = async (outcomes: boolean[], from = 0, step = 1, on = server) => {
    for (const [i, ok] of outcomes.entries())
      await recordCheck(on.runtime.commands, monitor.id, check(ok, from + i * step), ctx);
  };
  return { token, projectId, monitor, channel, checks };
};

/** The fields a 400 names, sorted. */
export const paths = (res: { body: { error: { details: Array<{ path: string }> } } }) =>
  res.body.error.details.map((d) => d.path).sort();

/** Resolves once the server's notification reactor has applied the log up to its head and holds
 *  no delivery still to send: every transition recorded so far has had its deliveries, and every
 *  delivery its last try. From then on nothing more is sent until something new is recorded. */
export const deliveriesSettled = async (server: TestServer, timeoutMs = 10_000): Promise<void> => {
  const states = server.runtime.reactorStates;
  await eventually(async () => {
    const head = await server.runtime.log.headPosition();
    if (comparePositions(await states.stores.notifications.checkpoint(), head) < 0) return undefined;
    return (await states.notifications.pending()).length === 0 ? true : undefined;
  }, timeoutMs);
};
