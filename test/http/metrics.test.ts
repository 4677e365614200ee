import test from 'ava';
import { randomUUID } from 'node:crypto';
import { parseExposition, type Exposition } from '../helpers/prometheus.ts';
import { freePort } from '../helpers/process.ts';
import { startTarget } from '../helpers/target.ts';
import { webhookReceiver } from '../helpers/webhook-receiver.ts';
import {
  api,
  capturingLogger,
  eventually,
  login,
  projectWithKey,
  sampleEvent,
  startTestServer,
} from '../helpers/server.ts';

/** GET /metrics through the real app on real stores (the embedded ones, or the servers the
 *  environment names), parsed as Prometheus parses it. */

const TOKEN = 'metrics-token-0123456789';
const WITH_TOKEN = { WATCHLOG_METRICS_TOKEN: TOKEN };

const scrape = async (url: string, token: string | null = TOKEN): Promise<Exposition> => {
  const res = await fetch(url, token === null ? {} : { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status} ${await res.text()}`);
  return parseExposition(await res.text());
};

test('/metrics is 404 when no token is configured, and no metrics port is opened', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.stop());
  const res = await api(server.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  t.is(res.status, 404);
  t.is(res.body.error.code, 'not_found');
  t.is(server.metricsUrl, null);
});

test(
  'with WATCHLOG_METRICS_TOKEN: ' + '401 without the token or with a wrong one, the exposition format with it',
  async (t) => {
    const server = await startTestServer({ env: WITH_TOKEN, processMetrics: true });
    t.teardown(() => server.stop());
    const missing = await api(server.url, 'GET', '/metrics');
    t.is(missing.status, 401);
    t.is(missing.body.error.code, 'unauthorized');
    t.is(missing.headers.get('www-authenticate'), 'Bearer realm="watchlog-metrics"');
    for (const authorization of [
      `Bearer ${TOKEN}x`,
      'Bearer wrong-token-0123456789',
      `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`,
      TOKEN,
    ]) {
      const wrong = await api(server.url, 'GET', '/metrics', { headers: { authorization } });
      t.is(wrong.status, 401, authorization);
    }
    // A JWT of the API is not the metrics token either.
    t.is((await api(server.url, 'GET', '/metrics', { token: await login(server.url) })).status, 401);

    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    t.is(res.status, 200);
    t.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const metrics = parseExposition(await res.text());
    t.is(metrics.value('watchlog_build_info', { role: 'start', version: 'test' }), 1);
    t.is(metrics.types.get('watchlog_ingest_accepted_total'), 'counter');
    t.is(metrics.types.get('watchlog_ingest_rejected_total'), 'counter');
    t.is(metrics.types.get('watchlog_ingest_duration_seconds'), 'histogram');
    t.is(metrics.types.get('watchlog_log_commit_duration_seconds'), 'histogram');
    t.is(metrics.types.get('watchlog_projection_lag_seconds'), 'gauge');
    t.is(metrics.types.get('watchlog_monitor_check_lateness_seconds'), 'histogram');
    t.is(metrics.types.get('watchlog_anomaly_scan_duration_seconds'), 'histogram');
    t.is(metrics.value('watchlog_log_writer_up'), 1);
    // prom-client's process metrics, under their usual names.
    t.is(metrics.types.get('process_cpu_user_seconds_total'), 'counter');
    t.is(metrics.types.get('nodejs_eventloop_lag_seconds'), 'gauge');
    for (const name of metrics.types.keys()) {
      if (!name.startsWith('watchlog_')) continue;
      t.true(metrics.help.has(name), `${name} has help`);
      if (metrics.types.get(name) === 'counter') t.regex(name, /_total$/);
    }
    t.is(
      (await fetch(`${server.url}/metrics`, { method: 'HEAD', headers: { authorization: `Bearer ${TOKEN}` } })).status,
      200,
    );
  },
);

test('scrapes answered are logged at debug, refused ones at info, on either port; the token never', async (t) => {
  const { logger, lines } = capturingLogger('debug');
  const server = await startTestServer({ env: { ...WITH_TOKEN, WATCHLOG_METRICS_PORT: '0' }, logger });
  t.teardown(() => server.stop());
  await scrape(`${server.url}/metrics`);
  t.is(
    (await api(server.url, 'GET', '/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } })).status,
    401,
  );
  await scrape(server.metricsUrl!);
  t.is((await api(server.metricsUrl!, 'GET', '')).status, 401);
  await new Promise((r) => setTimeout(r, 50));
  const scrapes = lines.filter((l) => l.msg === 'request' && (l.req as { url: string }).url === '/metrics');
  t.deepEqual(
    scrapes.map((l) => [l.level, (l.res as { statusCode: number }).statusCode]),
    [
      [20, 200],
      [30, 401],
      [20, 200],
      [30, 401],
    ],
  );
  t.false(JSON.stringify(lines).includes(TOKEN));
});

test(
  'ingest: the accepted count, each rejection under its reason, latencies; ' +
    "read requests by route template; the log's commits",
  async (t) => {
    const server = await startTestServer({ env: { ...WITH_TOKEN, WATCHLOG_BODY_LIMIT_BYTES: '1024' } });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { projectId, apiKey } = await projectWithKey(server.url, token);
    const before = await scrape(`${server.url}/metrics`);
    t.is(before.value('watchlog_ingest_accepted_total'), 0);

    const accepted = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent({ identifier: `u${i}` }) }),
      ),
    );
    t.deepEqual(
      accepted.map((r) => r.status),
      Array(7).fill(202),
    );
    const rejected = [
      await api(server.url, 'POST', '/v1/audit', { apiKey, body: '{"path":' }),
      await api(server.url, 'POST', '/v1/audit', { apiKey, body: { path: '/x' } }),
      await api(server.url, 'POST', '/v1/audit', { body: sampleEvent() }),
      await api(server.url, 'POST', '/v1/audit', { apiKey: 'wl_not-a-key', body: sampleEvent() }),
      await api(server.url, 'POST', '/v1/audit', { apiKey: `${apiKey}x`, body: sampleEvent() }),
      await api(server.url, 'POST', '/v1/audit', {
        apiKey,
        body: sampleEvent({ request_body: { blob: 'x'.repeat(2000) } }),
      }),
      await api(server.url, 'POST', '/v1/audit', {
        apiKey,
        body: JSON.stringify(sampleEvent()),
        headers: { 'content-type': 'text/plain' },
      }),
    ];
    t.deepEqual(
      rejected.map((r) => r.status),
      [400, 400, 401, 401, 401, 413, 415],
    );

    const eventId = accepted[0]!.body.id as string;
    await eventually(async () =>
      (await api(server.url, 'GET', `/v1/audit/${eventId}`, { token })).status === 200 ? true : undefined,
    );
    t.is((await api(server.url, 'GET', `/v1/audit/${randomUUID()}`, { token })).status, 404);
    t.is((await api(server.url, 'GET', `/v1/audit/stats?project_id=${projectId}`, { token })).status, 200);
    t.is((await api(server.url, 'GET', `/v1/audit?project_id=${projectId}&limit=5`, { token })).status, 200);
    t.is((await api(server.url, 'GET', `/v1/monitors/${randomUUID()}/history`, { token })).status, 404);

    const m = await scrape(`${server.url}/metrics`);
    t.is(m.value('watchlog_ingest_accepted_total'), 7);
    const reasons = Object.fromEntries(m.find('watchlog_ingest_rejected_total').map((s) => [s.labels.reason, s.value]));
    t.deepEqual(reasons, {
      validation: 2,
      api_key: 3,
      payload_too_large: 1,
      unsupported_media_type: 1,
      too_many_requests: 0,
      log_unavailable: 0,
      error: 0,
    });
    t.is(m.value('watchlog_ingest_duration_seconds_count', { outcome: 'accepted' }), 7);
    t.is(m.value('watchlog_ingest_duration_seconds_count', { outcome: 'rejected' }), 7);
    t.is(m.value('watchlog_ingest_duration_seconds_bucket', { outcome: 'accepted', le: '+Inf' }), 7);
    t.true(m.value('watchlog_ingest_duration_seconds_sum', { outcome: 'accepted' }) > 0);

    // The eventual read of the detail may have taken several tries: at least one, all under the template.
    t.true(m.value('watchlog_query_duration_seconds_count', { route: '/v1/audit/:id' }) >= 2);
    t.is(m.value('watchlog_query_duration_seconds_count', { route: '/v1/audit/stats' }), 1);
    t.is(m.value('watchlog_query_duration_seconds_count', { route: '/v1/audit' }), 1);
    t.is(m.value('watchlog_query_duration_seconds_count', { route: '/v1/monitors/:id/history' }), 1);
    const labelValues = m.samples.flatMap((s) => Object.values(s.labels));
    for (const secret of [projectId, eventId, apiKey, '?'])
      t.false(
        labelValues.some((v) => v.includes(secret)),
        `no label holds ${secret}`,
      );
    t.deepEqual(m.find('watchlog_query_duration_seconds_count', { route: '/metrics' }), [], 'scrapes are not queries');

    // Every append made through this process was committed and counted: the 7 events and the
    // project, key and login events before them.
    t.true(m.value('watchlog_log_appended_events_total') >= 7 + before.value('watchlog_log_appended_events_total'));
    t.true(m.value('watchlog_log_commit_appends_sum') >= 7 + before.value('watchlog_log_commit_appends_sum'));
    const commits = m.value('watchlog_log_commit_duration_seconds_count');
    t.true(commits > before.value('watchlog_log_commit_duration_seconds_count'));
    t.is(m.value('watchlog_log_commit_appends_count'), commits);
  },
);

test(
  "projections: caught up, each one's lag is 0 and its position the log head; " +
    'a stopped projector lags by what was appended since, in seconds the age of the oldest',
  async (t) => {
    // The service clock, which stamps recorded_at and on which ages are read, jumps ahead 30 s once
    // the projector stops.
    let ahead = 0;
    const server = await startTestServer({
      env: WITH_TOKEN,
      notifications: true,
      now: () => new Date(Date.now() + ahead),
    });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    for (let i = 0; i < 5; i++)
      t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() })).status, 202);
    const names = [...server.runtime.runners.map((r) => r.name), 'notifications', 'status-page-effects'].sort();

    const caughtUp = await eventually(async () => {
      const m = await scrape(`${server.url}/metrics`);
      return m.find('watchlog_projection_lag_positions').every((s) => s.value === 0) ? m : undefined;
    }, 10_000);
    const head = Number(await server.runtime.log.headPosition());
    t.true(head > 0);
    t.is(caughtUp.value('watchlog_log_head_position'), head);
    t.deepEqual(
      caughtUp
        .find('watchlog_projection_position')
        .map((s) => s.labels.projection)
        .sort(),
      names,
    );
    for (const projection of names) {
      t.is(caughtUp.value('watchlog_projection_position', { projection }), head, projection);
      t.is(caughtUp.value('watchlog_projection_lag_positions', { projection }), 0, projection);
      t.is(caughtUp.value('watchlog_projection_lag_seconds', { projection }), 0, projection);
    }

    await server.projector!.stop();
    for (let i = 0; i < 3; i++)
      t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() })).status, 202);
    ahead = 30_000;
    const behind = await scrape(`${server.url}/metrics`);
    const newHead = Number(await server.runtime.log.headPosition());
    t.is(behind.value('watchlog_log_head_position'), newHead);
    t.is(behind.value('watchlog_projection_position', { projection: 'audit-events' }), head);
    if (server.config.eventStoreUrl === undefined)
      t.is(
        behind.value('watchlog_projection_lag_positions', { projection: 'audit-events' }),
        3,
        "the embedded log's positions count events",
      );
    else t.true(behind.value('watchlog_projection_lag_positions', { projection: 'audit-events' }) > 0);
    const lagSeconds = behind.value('watchlog_projection_lag_seconds', { projection: 'audit-events' });
    t.true(lagSeconds >= 29 && lagSeconds < 120, String(lagSeconds));
  },
);

test('a monitor check and a notification move their counters; so do anomaly scans', async (t) => {
  const server = await startTestServer({ env: WITH_TOKEN, jobs: true, notifications: true });
  const hook = await webhookReceiver('s3cret-webhook');
  const target = await startTarget(200);
  t.teardown(async () => {
    await server.stop();
    await hook.close();
    await target.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token);
  t.is(
    (
      await api(server.url, 'POST', '/v1/channels', {
        token,
        body: { project_id: projectId, type: 'webhook', url: hook.url, secret: 's3cret-webhook' },
      })
    ).status,
    201,
  );
  const closed = await freePort();
  for (const [name, url] of [
    ['up', target.url],
    ['down', `http://127.0.0.1:${closed}/`],
  ]) {
    t.is(
      (
        await api(server.url, 'POST', '/v1/monitors', {
          token,
          body: { project_id: projectId, name, url, timeout_seconds: 2 },
        })
      ).status,
      201,
    );
  }
  await eventually(async () => (hook.received.length === 1 ? true : undefined), 15_000);
  t.is(hook.received[0]!.body.type, 'monitor.down');

  const m = await eventually(async () => {
    const scraped = await scrape(`${server.url}/metrics`);
    return scraped.value('watchlog_notifications_total', { channel_type: 'webhook', outcome: 'sent' }) === 1 &&
      scraped.value('watchlog_anomaly_scans_total', { outcome: 'done' }) >= 1
      ? scraped
      : undefined;
  }, 10_000);
  t.true(m.value('watchlog_monitor_checks_total', { outcome: 'up' }) >= 1);
  t.true(m.value('watchlog_monitor_checks_total', { outcome: 'down' }) >= 1);
  t.is(m.value('watchlog_monitor_checks_total', { outcome: 'blocked' }), 0);
  t.is(m.value('watchlog_monitor_checks_total', { outcome: 'error' }), 0);
  t.true(m.value('watchlog_monitor_check_duration_seconds_count') >= 2);
  t.is(m.value('watchlog_notifications_total', { channel_type: 'webhook', outcome: 'failed' }), 0);
  t.is(m.value('watchlog_notifications_total', { channel_type: 'webpush', outcome: 'sent' }), 0);
  t.is(m.value('watchlog_notification_delivery_duration_seconds_count', { channel_type: 'webhook' }), 1);
  t.true(m.value('watchlog_anomaly_scan_duration_seconds_count') >= 1);
  t.is(m.value('watchlog_anomaly_scans_total', { outcome: 'failed' }), 0);
});

test('checks and deliveries the egress policy refuses: checks counted as blocked, deliveries as failed', async (t) => {
  const server = await startTestServer({
    env: { ...WITH_TOKEN, WATCHLOG_EGRESS_DENY: '127.0.0.0/8,::1/128' },
    jobs: true,
    notifications: true,
  });
  const target = await startTarget(200);
  t.teardown(async () => {
    await server.stop();
    await target.close();
  });
  const token = await login(server.url);
  const { projectId } = await projectWithKey(server.url, token);
  const port = new URL(target.url).port;
  t.is(
    (
      await api(server.url, 'POST', '/v1/channels', {
        token,
        body: { project_id: projectId, type: 'webhook', url: `http://localhost:${port}/hook` },
      })
    ).status,
    201,
  );
  t.is(
    (
      await api(server.url, 'POST', '/v1/monitors', {
        token,
        body: { project_id: projectId, name: 'internal', url: `http://localhost:${port}/`, timeout_seconds: 2 },
      })
    ).status,
    201,
  );
  const m = await eventually(async () => {
    const scraped = await scrape(`${server.url}/metrics`);
    return scraped.value('watchlog_notifications_total', { channel_type: 'webhook', outcome: 'failed' }) === 1
      ? scraped
      : undefined;
  }, 15_000);
  t.true(m.value('watchlog_monitor_checks_total', { outcome: 'blocked' }) >= 1);
  t.is(m.value('watchlog_monitor_checks_total', { outcome: 'down' }), 0);
  t.is(m.value('watchlog_notifications_total', { channel_type: 'webhook', outcome: 'sent' }), 0);
  t.is(target.connections, 0);
});

test(
  'the metrics port: /metrics there without a token and not on the API port; ' +
    'with a token as well, both ask for it',
  async (t) => {
    const portOnly = await startTestServer({ env: { WATCHLOG_METRICS_PORT: '0' } });
    t.teardown(() => portOnly.stop());
    t.regex(portOnly.metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const metricsUrl = portOnly.metricsUrl!;
    t.is((await scrape(metricsUrl, null)).value('watchlog_build_info', { role: 'start' }), 1);
    t.is(
      (await api(portOnly.url, 'GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      404,
      'not on the API port',
    );
    const origin = new URL(metricsUrl).origin;
    const other = await api(origin, 'GET', '/v1/audit');
    t.is(other.status, 404, 'nothing else on the metrics port');
    t.is(other.body.error.code, 'not_found');
    t.is((await api(origin, 'POST', '/metrics')).status, 405);
    t.is((await api(origin, 'GET', '/metrics?x=1')).status, 400);

    const both = await startTestServer({ env: { ...WITH_TOKEN, WATCHLOG_METRICS_PORT: '0' } });
    t.teardown(() => both.stop());
    t.is((await api(both.metricsUrl!, 'GET', '')).status, 401);
    t.is(
      (await api(both.metricsUrl!, 'GET', '', { headers: { authorization: 'Bearer not-the-token-at-all' } })).status,
      401,
    );
    t.is((await scrape(both.metricsUrl!)).value('watchlog_build_info', { role: 'start' }), 1);
    t.is((await scrape(`${both.url}/metrics`)).value('watchlog_build_info', { role: 'start' }), 1);
  },
);

test(
  'batch ingest: ' +
    'batches by outcome (accepted, or the reason they were refused whole) and their events accepted and rejected',
  async (t) => {
    const server = await startTestServer({ env: WITH_TOKEN });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    const before = await scrape(`${server.url}/metrics`);
    t.is(before.value('watchlog_ingest_batches_total', { outcome: 'accepted' }), 0);
    t.is(before.value('watchlog_ingest_batches_waiting'), 0);

    const batch = (body: unknown, key: string | null = apiKey) =>
      api(server.url, 'POST', '/v1/audit/batch', { ...(key === null ? {} : { apiKey: key }), body });
    const answers = [
      await batch([sampleEvent(), { path: '/x' }, sampleEvent({ identifier: 'u2' })]),
      await batch([sampleEvent({ identifier: 'u3' })]),
      await batch([{ path: '/x' }, 'not an event']),
      await batch([sampleEvent()], null),
      await batch(sampleEvent()),
    ];
    t.deepEqual(
      answers.map((r) => r.status),
      [202, 202, 400, 401, 400],
    );

    const m = await scrape(`${server.url}/metrics`);
    const outcomes = Object.fromEntries(
      m.find('watchlog_ingest_batches_total').map((s) => [s.labels.outcome, s.value]),
    );
    t.deepEqual(outcomes, {
      accepted: 2,
      validation: 2,
      api_key: 1,
      payload_too_large: 0,
      unsupported_media_type: 0,
      too_many_requests: 0,
      log_unavailable: 0,
      error: 0,
    });
    // Only decoded bodies count their events: the object sent as a batch has none.
    t.is(m.value('watchlog_ingest_batch_events_total', { outcome: 'accepted' }), 3);
    t.is(m.value('watchlog_ingest_batch_events_total', { outcome: 'rejected' }), 3);
    t.is(m.value('watchlog_ingest_accepted_total'), 0, 'single-event ingest counts apart');
    t.is(m.value('watchlog_ingest_batches_waiting'), 0);
  },
);
