import test from 'ava';
import { createWatchlog } from '@watchlog/node';
import { eventually } from '../helpers/server.ts';
import { serviceSetup, startService } from '../helpers/process.ts';
import { drive, exported, projectFor, restart, startApp, stop } from './apps.ts';

/** An outage longer than the SDK's queue holds: the oldest events are dropped, said once, and
 *  counted, so `stats().dropped` is exactly what the application handled minus what watchlog
 *  stored; the newest events are the ones kept. */

const QUEUE = 300;
const BEFORE = 200;
const DURING = 1500;

test('an outage past the queue bound drops the oldest, and stats().dropped equals handled minus stored', async (t) => {
  const { url, env } = await serviceSetup(t);
  const first = await startService(t, env, 60_000);
  const { token, projectId, apiKey } = await projectFor(url, 'sdk-outage');
  const lines = { warn: [] as string[], error: [] as string[], info: [] as string[] };
  const watchlog = createWatchlog({
    endpoint: url,
    apiKey,
    serviceName: 'sdk-outage',
    environment: 'production',
    maxQueueEvents: QUEUE,
    batchMaxEvents: 100,
    flushIntervalMs: 50,
    retryInitialDelayMs: 50,
    retryMaxDelayMs: 500,
    logger: { warn: (m) => lines.warn.push(m), error: (m) => lines.error.push(m), info: (m) => lines.info.push(m) },
  });
  t.teardown(() => watchlog.close({ timeoutMs: 100 }).then(() => undefined));
  const app = await startApp(t, 'express', watchlog);

  t.is((await drive(app.url, BEFORE, 2000)).ok, BEFORE);
  t.true(await watchlog.flush({ timeoutMs: 20_000 }));
  await stop(first, 'SIGKILL');
  t.is((await drive(app.url, DURING, 2000)).ok, DURING, 'the application kept answering');
  const during = watchlog.stats();
  t.true(during.dropped > 0);
  await restart(t, env);
  t.true(await watchlog.flush({ timeoutMs: 45_000 }));

  const stats = watchlog.stats();
  const events = await eventually(async () => {
    const all = await exported(url, token, projectId);
    return all.length >= stats.sent + stats.replayed ? all : undefined;
  }, 30_000);
  t.log(`${JSON.stringify(stats)}; stored ${events.length}`);
  t.is(stats.queued, BEFORE + DURING);
  t.like(stats, { failures: 0, rejected: 0, pending: 0 });
  t.is(stats.dropped, app.handled.length - events.length, 'dropped = handled - stored');
  t.is(new Set(events.map((e) => e.request_id)).size, events.length, 'nothing stored twice');
  const stored = new Set(events.map((e) => e.request_id));
  // Events already in flight when the queue overflowed are kept with the newest (they are the
  // oldest of the outage, retried until watchlog is back); whatever else was dropped was older
  // than everything still queued.
  t.true(
    app.handled.slice(-QUEUE + 50).every((id) => stored.has(id)),
    'the newest events are kept',
  );
  t.true(
    app.handled.slice(0, BEFORE).every((id) => stored.has(id)),
    'the events sent before the outage are there',
  );
  t.is(lines.warn.filter((l) => /queue full/.test(l)).length, 1, 'one warning for all the drops');
  t.is(lines.warn.filter((l) => /cannot deliver/.test(l)).length, 1);
  t.is(lines.info.length, 1);
  t.true(lines.info[0]!.includes(`${stats.dropped} events dropped meanwhile`), lines.info[0]);
});
