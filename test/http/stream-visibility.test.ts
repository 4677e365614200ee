import test from 'ava';
import { api, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';

/** `GET /v1/stream` answers every record acknowledged before the request began: it waits for the
 *  tree's projection to reach the log, as the other reads wait for theirs. */

const replayed = async (url: string, token: string, projectId: string, follow = false) => {
  const controller = new AbortController();
  const res = await fetch(`${url}/v1/stream?project_id=${projectId}${follow ? '&follow=true' : ''}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  if (follow || res.status !== 200) {
    const body = follow && res.status === 200 ? '' : await res.text();
    controller.abort();
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body, paths: [] as string[] };
  }
  const paths = (await res.text())
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { data?: { path?: string } }).data?.path ?? '');
  return { status: res.status, retryAfter: null, body: '', paths };
};

test('right after each ingest is acknowledged, the replay has it (12 in a row, three projects)', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const token = await login(server.url);
  for (const name of ['a', 'b', 'c']) {
    const { projectId, apiKey } = await projectWithKey(server.url, token, name);
    for (let i = 0; i < 12; i += 1) {
      const sent = await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ path: `/${name}/${i}` }) });
      t.is(sent.status, 202);
      const { status, paths } = await replayed(server.url, token, projectId);
      t.is(status, 200);
      t.deepEqual(
        paths.filter((p) => p.startsWith(`/${name}/`)),
        Array.from({ length: i + 1 }, (_, n) => `/${name}/${n}`),
        `after ingest ${i + 1} of project ${name}`,
      );
    }
  }
});

test('with no projector to reach the log, the replay and its live tail are 503 not_yet_visible', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token);
  await server.projector?.stop();
  t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() })).status, 202);
  for (const follow of [false, true]) {
    const answer = await replayed(server.url, token, projectId, follow);
    t.is(answer.status, 503, follow ? 'the live tail' : 'the replay');
    t.is(answer.retryAfter, '5');
    t.is((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'not_yet_visible');
  }
});
