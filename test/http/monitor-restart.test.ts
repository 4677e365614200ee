import test from 'ava';
import { SHARDS } from '../../src/jobs/check-schedule.ts';
import { SHARD_JOB } from '../../src/jobs/worker-jobs.ts';
import { api, eventually, login, projectWithKey, startTestServer, tempDir } from '../helpers/server.ts';
import { startTarget } from '../helpers/target.ts';

test('a restart resumes the schedule from the last check: the next check comes on time, not twice', async (t) => {
  const dataDir = tempDir();
  let server = await startTestServer({ dataDir, jobs: true });
  const target = await startTarget(200);
  t.teardown(async () => {
    await server.stop();
    await target.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token, 'restart');
  const { id } = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'resumed', url: target.url, interval_seconds: 10, timeout_seconds: 2 },
    })
  ).body;
  const history = async () => (await api(server.url, 'GET', `/v1/monitors/${id}/history`, { token })).body as unknown[];
  await eventually(async () => ((await history()).length === 1 ? true : undefined), 5000);
  await server.stop({ remove: false });

  server = await startTestServer({ dataDir, jobs: true });
  t.is((await server.jobs!.agenda.queryJobs({ name: SHARD_JOB })).jobs.length, SHARDS, 'the shard jobs were kept');
  const hitsAtRestart = target.hits;
  await eventually(async () => ((await history()).length === 2 ? true : undefined), 15_000);
  t.is(target.hits, hitsAtRestart + 1, 'one check after the restart, one interval after the last');
});
