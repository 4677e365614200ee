import test from 'ava';
import { arrivedIds, firstArrivals, httpReceiver } from '../helpers/sink-receivers.ts';
import { runCli, serviceSetup, waitForLog } from '../helpers/process.ts';
import { api, eventually, login, projectWithKey, sampleEvent } from '../helpers/server.ts';

/** A log sink through a kill -9 of watchlog in the middle of forwarding: after the restart every
 *  record arrives, in log order, with no gap (some twice: the batch in flight when it died). */

test('kill -9 mid-forwarding: after a restart every record arrives, in order, none missing', async (t) => {
  const { url, env } = await serviceSetup(t, {
    WATCHLOG_SINK_BATCH_SIZE: '50',
    WATCHLOG_SINK_BACKOFF_MIN_MS: '20',
    WATCHLOG_SINK_BACKOFF_MAX_MS: '200',
  });
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  // Slow enough that the kill lands while batches are still going out.
  receiver.delayMs = 40;
  const first = runCli(['start'], env);
  t.teardown(() => first.child.kill('SIGKILL'));
  await waitForLog(first, 'admin user created', 45_000);
  const token = await login(url);
  const { projectId, apiKey } = await projectWithKey(url, token);
  const sink = await api(url, 'POST', `/v1/projects/${projectId}/sinks`, {
    token,
    body: { type: 'http', url: `${receiver.url}/in` },
  });
  t.is(sink.status, 201);
  const ids: string[] = [];
  for (let b = 0; b < 4; b += 1) {
    const res = await api(url, 'POST', '/v1/audit/batch', {
      apiKey,
      body: Array.from({ length: 500 }, (_, i) => sampleEvent({ path: `/orders/${b}/${i}` })),
    });
    t.is(res.status, 202);
    ids.push(...(res.body as { accepted: Array<{ id: string }> }).accepted.map((a) => a.id));
  }
  const arrived = () => arrivedIds(receiver);
  await eventually(async () => (arrived().length >= 300 ? true : undefined), 30_000);
  first.child.kill('SIGKILL');
  await first.exited;
  const before = new Set(arrived()).size;
  t.true(before < ids.length, `killed after ${before} of ${ids.length}`);

  receiver.delayMs = 0;
  const second = runCli(['start'], env);
  t.teardown(() => second.child.kill('SIGKILL'));
  await waitForLog(second, 'listening', 45_000);
  await eventually(async () => (new Set(arrived()).size >= ids.length ? true : undefined), 60_000);
  t.deepEqual(firstArrivals(arrived()), ids);
  const state = await eventually(async () => {
    const s = await api(url, 'GET', `/v1/projects/${projectId}/sinks/${sink.body.id}`, { token: await login(url) });
    return s.body.lag_records === 0 ? s.body : undefined;
  }, 10_000);
  t.like(state, { state: 'active', lag_seconds: 0 });
  t.log(`${before} records had arrived before the kill; ${arrived().length - ids.length} were sent twice`);
});
