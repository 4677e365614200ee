import type { Logger } from 'pino';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer, type TestServer } from './server.ts';
import { startTarget, type Target } from './target.ts';

/** The scenario of the HTTP contract tests (test/http/contract*.test.ts): a server whose clock
 *  stands still after the events below, with a metrics token; a target answering 200; projects A
 *  and B; EVENTS events of A by three users in one session, and one of B; a monitor (disabled) and
 *  a webhook channel of A; a member who sees A only. */

export const T0 = Date.parse('2026-09-01T10:00:00.000Z');
/** Events of project A: one every 7 s from 10:00:03, so minutes hold 8 or 9 and ranges cut through them. */
export const EVENTS = 45;
export const eventTime = (i: number) => T0 + 3000 + i * 7000;
export const METRICS_TOKEN = 'contract-metrics-token-0123';

export interface ContractScenario {
  server: TestServer;
  target: Target;
  admin: string;
  member: string;
  a: { projectId: string; apiKey: string };
  b: { projectId: string; apiKey: string };
  ids: { event: string; monitor: string; channel: string };
}

export const startContractScenario = async (logger?: Logger): Promise<ContractScenario> => {
  let clock = T0;
  const server = await startTestServer({
    now: () => new Date(clock),
    logger,
    env: { WATCHLOG_METRICS_TOKEN: METRICS_TOKEN },
  });
  const target = await startTarget(200);
  const admin = await login(server.url);
  const a = await projectWithKey(server.url, admin, 'a');
  const b = await projectWithKey(server.url, admin, 'b');
  let first = '';
  for (let i = 0; i < EVENTS; i += 1) {
    clock = eventTime(i);
    const res = await api(server.url, 'POST', '/v1/audit', {
      apiKey: a.apiKey,
      body: sampleEvent({ identifier: `user-${i % 3}`, status_code: [200, 404, 500][i % 3], session_id: 'sess-1' }),
    });
    first ||= res.body.id;
  }
  clock = eventTime(EVENTS);
  await api(server.url, 'POST', '/v1/audit', { apiKey: b.apiKey, body: sampleEvent() });
  await eventually(async () =>
    (await api(server.url, 'GET', '/v1/audit?event_type=http', { token: admin })).body.pagination.totalItems ===
    EVENTS + 1
      ? true
      : undefined,
  );
  const monitor = await api(server.url, 'POST', '/v1/monitors', {
    token: admin,
    body: { project_id: a.projectId, name: 'orders', url: target.url, enabled: false },
  });
  const channel = await api(server.url, 'POST', '/v1/channels', {
    token: admin,
    body: { project_id: a.projectId, type: 'webhook', url: 'http://127.0.0.1:9/hook' },
  });
  const ids = { event: first, monitor: monitor.body.id, channel: channel.body.id };
  await api(server.url, 'POST', '/v1/users', {
    token: admin,
    body: { email: 'member-a@example.com', password: 'member-a-password', role: 'member', project_ids: [a.projectId] },
  });
  const member = await login(server.url, 'member-a@example.com', 'member-a-password');
  return { server, target, admin, member, a, b, ids };
};
