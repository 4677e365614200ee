import test from 'ava';
import { readinessProbe } from '../../src/compose/readiness.ts';
import { SqliteEventLog } from '../../src/log/sqlite/event-log.ts';
import { api, login, sampleEvent, projectWithKey, startTestServer, eventually } from '../helpers/server.ts';

/** Liveness and readiness of the in-process app: /healthz says the process answers, /readyz says
 *  whether a request would succeed, part by part. */

test('/readyz is 200 when everything is up, naming each part; /healthz stays a plain liveness answer', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  t.deepEqual((await api(server.url, 'GET', '/healthz')).body, { status: 'ok' });
  const ready = await eventually(async () => {
    const res = await api(server.url, 'GET', '/readyz');
    return res.status === 200 ? res : undefined;
  });
  t.is(ready.body.status, 'ready');
  t.deepEqual(ready.body.bootstrap, { ok: true });
  t.like(ready.body.log, { ok: true });
  t.deepEqual(Object.keys(ready.body.read_models).sort(), [
    'access',
    'anomalies',
    'audit-events',
    'channels',
    'deliveries',
    'derived-sessions',
    'factors',
    'incidents',
    'maintenances',
    'masking',
    'monitors',
    'orphans',
    'otlp',
    'retention',
    'stats-buckets',
    'status-pages',
    'subscribers',
    'tree',
  ]);
  t.like(ready.body.read_models.access, { ok: true, lag_ms: 0, projector: true });
});

test(
  'readiness is false, by name, while no projector runs a read model or it lags; ' + 'and while the log writer is down',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    let bootstrapped = true;
    const probe = readinessProbe(server.runtime, { maxLagMs: 200, bootstrapped: () => bootstrapped });
    await eventually(async () => ((await probe()).ready ? true : undefined));

    bootstrapped = false;
    t.like(await probe(), { ready: false, checks: { bootstrap: { ok: false } } });
    bootstrapped = true;

    // The projectors stop (as when no worker runs): their leases are released.
    await server.projector!.stop();
    const stopped = await probe();
    t.false(stopped.ready);
    t.like(stopped.checks.read_models['audit-events'], { ok: false, projector: false });
    // Events arrive that nobody projects: the lag grows past the limit.
    t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() })).status, 202);
    await new Promise((r) => setTimeout(r, 300));
    const lagging = await probe();
    t.true(lagging.checks.read_models['audit-events']!.lag_ms >= 200);

    if (server.runtime.log instanceof SqliteEventLog) {
      await server.runtime.log.writerThread!.terminate();
      await new Promise((r) => setImmediate(r));
      t.like((await probe()).checks.log, { ok: false });
      await eventually(async () => ((await probe()).checks.log.ok ? true : undefined));
    }
  },
);

test(
  'a change whose read model does not show it in time is 503 not_yet_visible, ' + 'not a success with stale data',
  async (t) => {
    const server = await startTestServer();
    t.teardown(() => server.stop());
    const token = await login(server.url);
    await server.projector!.stop();
    const res = await api(server.url, 'POST', '/v1/projects', { token, body: { name: 'unseen' } });
    t.is(res.status, 503);
    t.is(res.body.error.code, 'not_yet_visible');
    t.regex(
      res.body.error.message,
      /recorded in the log \(position \d+\).*access read model has not applied it yet: is a worker running/,
    );
    t.is(res.headers.get('retry-after'), '5');
  },
);
