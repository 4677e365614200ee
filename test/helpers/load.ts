import type { ExecutionContext } from 'ava';
import { api, eventually, sampleEvent } from './server.ts';

/** Load and convergence checks shared by the fault and rebuild tests: clients sending events
 *  while something is done to the service, then every acknowledged event found once. */

export interface Load {
  acked: string[];
  refused: number[];
  stop(): Promise<void>;
}

/** `connections` clients each sending events one after another until stopped. */
export const load = (url: string, apiKey: string, connections = 8): Load => {
  const acked: string[] = [];
  const refused: number[] = [];
  let running = true;
  const clients = Array.from({ length: connections }, async (_, c) => {
    for (let i = 0; running; i += 1) {
      try {
        const res = await api(url, 'POST', '/v1/audit', {
          apiKey,
          body: sampleEvent({ identifier: `c${c}`, path: `/load/${i}` }),
        });
        if (res.status === 202) acked.push(res.body.id as string);
        else refused.push(res.status);
      } catch {
        // The process was killed under this request: no answer, nothing acknowledged.
      }
    }
  });
  return {
    acked,
    refused,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
};

/** Every event of the project, from the read model, with how often each id appears. */
export const stored = async (url: string, token: string, projectId: string) => {
  const res = await api<Array<{ id: string }>>(url, 'GET', `/v1/audit/export?format=json&project_id=${projectId}`, {
    token,
  });
  const counts = new Map<string, number>();
  for (const e of res.body) counts.set(e.id, (counts.get(e.id) ?? 0) + 1);
  return counts;
};

export const statsTotal = async (url: string, token: string, projectId: string) =>
  (await api(url, 'GET', `/v1/audit/stats?project_id=${projectId}`, { token })).body.total as number;

/** After the fault: the read models converge on the log, every acknowledged event once. */
export const converged = async (
  t: ExecutionContext,
  url: string,
  token: string,
  projectId: string,
  acked: readonly string[],
  inLog: () => Promise<number>,
) => {
  const events = await inLog();
  await eventually(async () => ((await stored(url, token, projectId)).size === events ? true : undefined), 60_000);
  const counts = await stored(url, token, projectId);
  t.true(
    acked.every((id) => counts.get(id) === 1),
    'every acknowledged event, once',
  );
  t.true(
    [...counts.values()].every((n) => n === 1),
    'no event twice',
  );
  await eventually(async () => ((await statsTotal(url, token, projectId)) === events ? true : undefined), 30_000);
};
