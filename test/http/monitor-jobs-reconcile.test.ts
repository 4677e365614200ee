import test from 'ava';
import { deleteMonitor } from '../../src/commands/monitors.ts';
import { CHECK_JOB } from '../../src/jobs/worker-jobs.ts';
import {
  api,
  eventually,
  login,
  projectWithKey,
  serverWithTarget,
  startTestServer,
  tempDir,
} from '../helpers/server.ts';
import { startTarget } from '../helpers/target.ts';

test('a monitor missing from the read model (not projected yet) keeps its job; a deleted one loses it', async (t) => {
  const { server, target, token } = await serverWithTarget(t, { jobs: true });
  const { projectId } = await projectWithKey(server.url, token, 'reconcile');
  const { id } = (
    await api(server.url, 'POST', '/v1/monitors', {
      token,
      body: { project_id: projectId, name: 'kept', url: target.url },
    })
  ).body;
  const jobs = async () => (await server.jobs!.agenda.queryJobs({ name: CHECK_JOB, data: { monitor_id: id } })).jobs;
  await eventually(async () => ((await jobs()).length === 1 ? true : undefined), 5000);

  // The read model is emptied and not rebuilt: as during a rebuild or on a new read store.
  await server.projector!.stop();
  await server.runtime.readModels.stores.monitors.reset();
  t.deepEqual(await server.runtime.readModels.monitors.list({ all: true }), []);
  await server.jobs!.reconcile();
  t.is((await jobs()).length, 1, 'the job outlives a read model that does not know the monitor yet');

  await deleteMonitor(server.runtime.commands, id, { actor: 'test', correlationId: 't', now: () => new Date() });
  // The read model, still empty, shows no change: the full comparison (every second here, every
  // minute by default) finds the monitor's stream says it is gone.
  await eventually(async () => {
    await server.jobs!.reconcile();
    return (await jobs()).length === 0 ? true : undefined;
  }, 5000);
  t.deepEqual(await jobs(), []);
});

test('a restart resumes the stored jobs: the next check comes on schedule, not twice', async (t) => {
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
  t.is((await server.jobs!.agenda.queryJobs({ name: CHECK_JOB, data: { monitor_id: id } })).jobs.length, 1);
  const hitsAtRestart = target.hits;
  await eventually(async () => ((await history()).length === 2 ? true : undefined), 15_000);
  t.is(target.hits, hitsAtRestart + 1, 'one check after the restart, from the stored schedule');
});
