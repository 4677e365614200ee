import test from 'ava';
import { createWatchlog } from '@watchlog/node';
import { eventually } from '../../helpers/server.ts';
import { serviceSetup, startService } from '../../helpers/process.ts';
import { drive, exported, projectFor, restart, startApp, stop, type Framework } from '../apps.ts';

/** @watchlog/node against the real `watchlog start`: an Express, a Koa and a Fastify app under
 *  load (about 10,000 requests in all, a file each) while watchlog is killed or stopped and started
 *  again on the same data dir and port. Every request handled is stored exactly once: the SDK keeps
 *  the events while watchlog is away, and retries with the same idempotency keys, so an attempt
 *  whose answer died with the process is answered `replayed` instead of being stored twice. */

const REQUESTS = 3400;
const RATE = 1000;

/** Declares the test of one framework's app, watchlog stopped by `signal`. */
export const exactlyOnce = (framework: Framework, signal: 'SIGKILL' | 'SIGTERM') => {
  test(
    `${framework}: ${REQUESTS} requests, ` +
      `watchlog ${signal === 'SIGKILL' ? 'killed' : 'stopped'} and restarted mid-load, every event stored once`,
    async (t) => {
      const { url, env } = await serviceSetup(t);
      const first = await startService(t, env, 60_000);
      const { token, projectId, apiKey } = await projectFor(url, `sdk-${framework}`);
      const logged: string[] = [];
      const watchlog = createWatchlog({
        endpoint: url,
        apiKey,
        serviceName: `sdk-${framework}`,
        environment: 'staging',
        batchMaxEvents: 200,
        flushIntervalMs: 50,
        retryInitialDelayMs: 50,
        retryMaxDelayMs: 500,
        logger: { warn: (m) => logged.push(m), error: (m) => logged.push(m), info: (m) => logged.push(m) },
      });
      t.teardown(() => watchlog.close({ timeoutMs: 100 }).then(() => undefined));
      const app = await startApp(t, framework, watchlog);

      const load = drive(app.url, REQUESTS, RATE);
      // A third of the way in, watchlog goes away under the load and comes back.
      await eventually(async () => (app.handled.length >= REQUESTS / 3 ? true : undefined), 30_000);
      await stop(first, signal);
      const outageStarted = app.handled.length;
      await restart(t, env);
      const { ok, other } = await load;
      t.is(ok, REQUESTS, 'the application answered every request');
      t.is(other, 0);
      t.true(await watchlog.flush({ timeoutMs: 45_000 }), 'everything delivered after the restart');

      const stats = watchlog.stats();
      t.log(
        `${framework}: outage began after ${outageStarted} requests; ` +
          `${JSON.stringify(stats)}; ${logged.length} log lines`,
      );
      t.like(stats, { queued: REQUESTS, dropped: 0, failures: 0, rejected: 0, pending: 0 });
      t.is(stats.sent + stats.replayed, REQUESTS);
      t.true(stats.retries > 0, 'the outage was seen');

      const events = await eventually(async () => {
        const all = await exported(url, token, projectId);
        return all.length >= REQUESTS ? all : undefined;
      }, 30_000);
      t.is(events.length, REQUESTS, 'nothing stored twice');
      const ids = new Set(events.map((e) => e.request_id));
      t.is(ids.size, REQUESTS, 'each request id once');
      t.deepEqual([...ids].sort(), [...app.handled].sort(), 'exactly the requests handled');
      t.true(
        events.every((e) => e.path === '/orders/:id' && e.method === 'GET' && e.service_name === `sdk-${framework}`),
      );
    },
  );
};
