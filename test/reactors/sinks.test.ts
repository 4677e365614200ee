import test, { type ExecutionContext } from 'ava';
import { verifySignature } from '../../src/domain/notification.ts';
import { WATCHLOG_PROJECT_ID } from '../../src/domain/self-audit.ts';
import { certificateFor } from '../helpers/probe-servers.ts';
import { type HttpReceiver, httpReceiver, syslogListener } from '../helpers/sink-receivers.ts';
import { api, eventually, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';

/** Log sinks against real destinations on 127.0.0.1: each record arrives, in log order, at least
 *  once, through failures. */

const TUNING = {
  WATCHLOG_SINK_BACKOFF_MIN_MS: '20',
  WATCHLOG_SINK_BACKOFF_MAX_MS: '200',
  WATCHLOG_SINK_DEGRADED_AFTER: '3',
  WATCHLOG_SINK_BATCH_SIZE: '7',
};

const setup = async (t: ExecutionContext, env: Record<string, string> = {}) => {
  const server = await startTestServer({ notifications: true, env: { ...TUNING, ...env } });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token);
  const sinks = `/v1/projects/${projectId}/sinks`;
  const create = async (body: Record<string, unknown>) => {
    const res = await api(server.url, 'POST', sinks, { token, body });
    t.is(res.status, 201, JSON.stringify(res.body));
    return res.body as { id: string; settings: Record<string, unknown> };
  };
  const sinkOf = async (id: string) => (await api(server.url, 'GET', `${sinks}/${id}`, { token })).body;
  const ingest = async (events: Array<Record<string, unknown>>): Promise<string[]> => {
    const res = await api(server.url, 'POST', '/v1/audit/batch', { apiKey, body: events });
    t.is(res.status, 202, JSON.stringify(res.body));
    return (res.body as { accepted: Array<{ id: string }> }).accepted.map((a) => a.id);
  };
  return { server, token, projectId, sinks, create, sinkOf, ingest };
};

const many = (n: number, overrides: (i: number) => Record<string, unknown> = () => ({})) =>
  Array.from({ length: n }, (_, i) => sampleEvent({ path: `/orders/${i}`, ...overrides(i) }));

/** The ids in the order each first arrived; every one of `expected`, in its order, none else. */
const inOrder = (t: ExecutionContext, arrived: ReadonlyArray<{ id: string }>, expected: readonly string[]) => {
  const first: string[] = [];
  const seen = new Set<string>();
  for (const { id } of arrived) {
    if (seen.has(id)) continue;
    seen.add(id);
    first.push(id);
  }
  t.deepEqual(first, [...expected]);
};

const ndjson = (receiver: HttpReceiver) =>
  receiver.requests.flatMap((r) =>
    r.body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: string; service_name: string; log_position: string }),
  );

test('http: signed NDJSON, filtered by service, in log order; the secret is never answered', async (t) => {
  const { server, token, projectId, create, sinkOf, ingest } = await setup(t);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  const secret = 'a shared secret';
  const sink = await create({ type: 'http', url: `${receiver.url}/in`, secret, filter: { service_name: ['orders'] } });
  t.is(sink.settings.secret, '********');
  const other = await create({ type: 'http', url: `${receiver.url}/alerts`, filter: { event_type: ['system.alert'] } });
  const ids = await ingest(many(30, (i) => ({ service_name: i % 3 === 0 ? 'billing' : 'orders' })));
  const expected = ids.filter((_, i) => i % 3 !== 0);
  await eventually(async () => (ndjson(receiver).length >= expected.length ? true : undefined), 10_000);
  for (const r of receiver.requests) {
    t.true(verifySignature(secret, r.body, r.headers['x-watchlog-signature'] as string | undefined));
    t.is(r.headers['content-type'], 'application/x-ndjson');
    t.is(r.url, '/in');
  }
  inOrder(t, ndjson(receiver), expected);
  t.true(ndjson(receiver).every((d) => d.service_name === 'orders'));
  const shown = await eventually(async () => {
    const s = await sinkOf(sink.id);
    return s.forwarded_total === expected.length ? s : undefined;
  });
  t.like(shown, { state: 'active', lag_records: 0, lag_seconds: 0, failures: 0, last_error: null });
  t.false(JSON.stringify(shown).includes(secret));
  t.like(await sinkOf(other.id), { lag_records: 0, forwarded_total: 0 });
  // The change is audited in the built-in project, where it sends but never its secret.
  const access = await api(
    server.url,
    'GET',
    `/v1/audit?project_id=${WATCHLOG_PROJECT_ID}&event_type=system.access&limit=100`,
    { token },
  );
  t.is(access.status, 200);
  const rows = (access.body.data as Array<{ id: string; path: string }>).filter(
    (r) => r.path === `/v1/projects/${projectId}/sinks`,
  );
  t.is(rows.length, 2);
  const detail = await api(server.url, 'GET', `/v1/audit/${rows[0]!.id}`, { token });
  t.like(detail.body.request_body, { action: 'sink.created', type: 'http' });
  t.false(JSON.stringify(detail.body).includes(secret));
});

test('a resumed sink sends its backlog in requests of its batch size, above the 1,000 a log read held', async (t) => {
  const { server, token, sinks, create, ingest } = await setup(t, { WATCHLOG_SINK_BATCH_SIZE: '1200' });
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  const sink = await create({ type: 'http', url: `${receiver.url}/in`, active: false });
  const ids: string[] = [];
  for (let i = 0; i < 13; i += 1) ids.push(...(await ingest(many(100))));
  t.is((await api(server.url, 'PUT', `${sinks}/${sink.id}`, { token, body: { active: true } })).status, 200);
  await eventually(async () => (ndjson(receiver).length >= ids.length ? true : undefined), 20_000);
  inOrder(t, ndjson(receiver), ids);
  const sizes = receiver.requests.map((r) => r.body.split('\n').filter((l) => l !== '').length);
  t.true(sizes[0]! > 1000, `the first request held ${sizes[0]} records`);
  t.true(
    sizes.every((n) => n <= 1200),
    `requests of ${sizes.join(', ')} records`,
  );
});

test('bad sink bodies are 400 naming each field', async (t) => {
  const { server, token, sinks } = await setup(t);
  const paths = async (body: unknown) => {
    const res = await api(server.url, 'POST', sinks, { token, body });
    t.is(res.status, 400);
    return (res.body.error.details as Array<{ path: string }>).map((d) => d.path).sort();
  };
  t.deepEqual(await paths({ type: 'splunk_hec', url: 'not a url' }), ['token', 'url']);
  t.deepEqual(await paths({ type: 'nope' }), ['type']);
  t.deepEqual(await paths({ type: 'syslog', host: 'siem', port: 0, colour: 1 }), ['colour', 'port']);
  const filter = await paths({ type: 'http', url: 'https://siem.example.com/', filter: { event_type: ['bogus'] } });
  t.true(filter.length === 1 && filter[0]!.startsWith('filter.event_type'), filter.join());
  // A destination the egress policy denies (the cloud metadata address) could never be reached.
  t.deepEqual(await paths({ type: 'http', url: 'http://169.254.169.254/latest' }), ['url']);
  t.deepEqual(await paths({ type: 'syslog', host: '169.254.169.254' }), ['host']);
});

test('splunk_hec: the token, one event per record; a 503 is tried again', async (t) => {
  const { create, ingest } = await setup(t);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  let busy = 2;
  receiver.answer = () =>
    busy-- > 0
      ? { status: 503, body: '{"text":"Server is busy","code":9}' }
      : { status: 200, body: '{"text":"Success","code":0}' };
  await create({
    type: 'splunk_hec',
    url: `${receiver.url}/services/collector/event`,
    token: 'hec-token',
    index: 'audit',
  });
  const ids = await ingest(many(15));
  const events = () =>
    receiver.requests
      .slice(2)
      .flatMap((r) => r.body.split('\n').map((l) => JSON.parse(l) as { index: string; event: { id: string } }));
  await eventually(async () => (events().length >= ids.length ? true : undefined), 10_000);
  t.true(receiver.requests.every((r) => r.headers.authorization === 'Splunk hec-token'));
  t.true(events().every((e) => e.index === 'audit'));
  inOrder(
    t,
    events().map((e) => e.event),
    ids,
  );
});

test('elastic: _bulk creates by event id; refused items are sent again, none lost', async (t) => {
  const { create, ingest } = await setup(t);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  const stored = new Map<string, { log_position: string }>();
  let refusals = 3;
  receiver.answer = (r) => {
    const lines = r.body.split('\n').filter((l) => l !== '');
    const items = [];
    for (let i = 0; i < lines.length; i += 2) {
      const action = JSON.parse(lines[i]!) as { create: { _index: string; _id: string } };
      const id = action.create._id;
      if (stored.has(id)) items.push({ create: { _id: id, status: 409 } });
      else if (i === 4 && refusals-- > 0)
        items.push({
          create: { _id: id, status: 429, error: { type: 'es_rejected_execution_exception', reason: 'busy' } },
        });
      else {
        stored.set(id, JSON.parse(lines[i + 1]!) as { log_position: string });
        items.push({ create: { _id: id, status: 201 } });
      }
    }
    return { status: 200, body: JSON.stringify({ took: 1, errors: items.some((i) => i.create.status >= 300), items }) };
  };
  await create({ type: 'elastic', url: receiver.url, index: 'watchlog-audit', api_key: 'ZWxhc3RpYw==' });
  const ids = await ingest(many(20));
  await eventually(async () => (stored.size >= ids.length ? true : undefined), 10_000);
  t.true(receiver.requests.every((r) => r.url === '/_bulk' && r.headers.authorization === 'ApiKey ZWxhc3RpYw=='));
  t.deepEqual([...stored.keys()].sort(), [...ids].sort());
  const byPosition = [...stored]
    .sort((a, b) => Number(a[1].log_position) - Number(b[1].log_position))
    .map(([id]) => id);
  t.deepEqual(byPosition, ids);
});

test('syslog: RFC 5424 octet-counted frames over TCP and over TLS', async (t) => {
  const { create, ingest } = await setup(t);
  const pem = await certificateFor(30);
  const plain = await syslogListener();
  const secure = await syslogListener(pem);
  t.teardown(async () => {
    await plain.close();
    await secure.close();
  });
  await create({ type: 'syslog', host: '127.0.0.1', port: plain.port });
  await create({ type: 'syslog', host: '127.0.0.1', port: secure.port, tls: true, ca: pem.cert, app_name: 'shop' });
  const ids = await ingest(many(10, (i) => ({ status_code: i === 0 ? 503 : 200 })));
  await eventually(
    async () => (plain.messages.length >= 10 && secure.messages.length >= 10 ? true : undefined),
    10_000,
  );
  for (const listener of [plain, secure]) {
    inOrder(
      t,
      listener.messages.map((m) => m.message as { id: string }),
      ids,
    );
    const [first, second] = listener.messages;
    t.like(first, { version: 1, pri: 13 * 8 + 3, msgId: 'http' });
    t.is(second!.pri, 13 * 8 + 6);
    t.true(first!.structuredData.includes(`event_id="${ids[0]}"`));
  }
  t.is(plain.messages[0]!.appName, 'watchlog');
  t.is(secure.messages[0]!.appName, 'shop');
});

test('a destination down for 30 s (connection refused): degraded, then every record, in order', async (t) => {
  const { create, sinkOf, ingest } = await setup(t);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  const sink = await create({ type: 'http', url: `${receiver.url}/in` });
  await receiver.down();
  const downAt = Date.now();
  const ids = await ingest(many(12));
  const degraded = await eventually(async () => {
    const s = await sinkOf(sink.id);
    return s.state === 'degraded' ? s : undefined;
  }, 10_000);
  t.true(degraded.failures >= 3);
  t.regex(degraded.last_error, /ECONNREFUSED/);
  t.is(degraded.lag_records, 12);
  t.true(degraded.lag_seconds > 0);
  await new Promise((r) => setTimeout(r, 1500));
  const more = await ingest(many(9));
  // The outage: the destination refuses connections for 30 s in all.
  await new Promise((r) => setTimeout(r, Math.max(0, 30_000 - (Date.now() - downAt))));
  await receiver.up();
  await eventually(async () => (ndjson(receiver).length >= 21 ? true : undefined), 10_000);
  inOrder(t, ndjson(receiver), [...ids, ...more]);
  await eventually(async () => {
    const s = await sinkOf(sink.id);
    return s.state === 'active' && s.lag_records === 0 ? s : undefined;
  });
});

test("/metrics has each sink's state and lag", async (t) => {
  const server = await startTestServer({
    notifications: true,
    env: { ...TUNING, WATCHLOG_METRICS_TOKEN: 'scrape-me-scrape-me' },
  });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  await receiver.down();
  const sink = await api(server.url, 'POST', `/v1/projects/${projectId}/sinks`, {
    token,
    body: { type: 'http', url: `${receiver.url}/in` },
  });
  await api(server.url, 'POST', '/v1/audit/batch', { apiKey, body: many(4) });
  const labels = `{sink_id="${sink.body.id}",project_id="${projectId}",type="http"}`;
  const scrape = async () =>
    (await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scrape-me-scrape-me' } })).text();
  const text = await eventually(async () => {
    const body = await scrape();
    return body.includes(`watchlog_sink_degraded${labels} 1`) ? body : undefined;
  }, 10_000);
  t.true(text.includes(`watchlog_sink_lag_records${labels} 4`));
  t.regex(text, new RegExp(`watchlog_sink_failures\\{sink_id="${sink.body.id}"[^}]*\\} [3-9]`));
  await receiver.up();
  await eventually(
    async () => ((await scrape()).includes(`watchlog_sink_forwarded_records${labels} 4`) ? true : undefined),
    10_000,
  );
  t.true((await scrape()).includes(`watchlog_sink_lag_records${labels} 0`));
});

test('datadog and otlp_logs: the intake array with DD-API-KEY, OTLP/HTTP JSON logs with log.record.uid', async (t) => {
  const { create, ingest } = await setup(t);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  receiver.answer = (r) => (r.url === '/api/v2/logs' ? { status: 202, body: '{}' } : { status: 200, body: '{}' });
  await create({ type: 'datadog', url: `${receiver.url}/api/v2/logs`, api_key: 'dd-key', tags: ['env:test'] });
  await create({ type: 'otlp_logs', url: `${receiver.url}/v1/logs`, headers: { authorization: 'Bearer otel' } });
  const ids = await ingest(many(9, (i) => ({ service_name: i % 2 === 0 ? 'orders' : 'billing', status_code: 500 })));
  const of = (path: string) => receiver.requests.filter((r) => r.url === path);
  type Dd = { ddtags: string; service: string; message: string; event_id: string };
  const datadog = () => of('/api/v2/logs').flatMap((r) => JSON.parse(r.body) as Dd[]);
  type Attr = { key: string; value: { stringValue: string } };
  type Otlp = {
    resourceLogs: Array<{
      resource: { attributes: Attr[] };
      scopeLogs: Array<{
        logRecords: Array<{ severityText: string; attributes: Attr[]; body: { stringValue: string } }>;
      }>;
    }>;
  };
  const otlp = () =>
    of('/v1/logs').flatMap((r) =>
      (JSON.parse(r.body) as Otlp).resourceLogs.flatMap((rl) =>
        rl.scopeLogs.flatMap((sl) =>
          sl.logRecords.map((lr) => ({
            service: rl.resource.attributes.find((a) => a.key === 'service.name')!.value.stringValue,
            severity: lr.severityText,
            uid: lr.attributes.find((a) => a.key === 'log.record.uid')!.value.stringValue,
            record: JSON.parse(lr.body.stringValue) as { id: string; log_position: string },
          })),
        ),
      ),
    );
  await eventually(async () => (datadog().length >= 9 && otlp().length >= 9 ? true : undefined), 10_000);
  t.true(of('/api/v2/logs').every((r) => r.headers['dd-api-key'] === 'dd-key'));
  t.true(of('/v1/logs').every((r) => r.headers.authorization === 'Bearer otel'));
  inOrder(
    t,
    datadog().map((d) => ({ id: d.event_id })),
    ids,
  );
  t.true(datadog().every((d) => d.ddtags.includes('env:test') && JSON.parse(d.message).id === d.event_id));
  inOrder(
    t,
    otlp().map((o) => ({ id: o.uid })),
    ids,
  );
  t.true(otlp().every((o) => o.uid === o.record.id && o.severity === 'ERROR'));
});

test('the egress policy judges each connection: a name resolving to a denied address is refused', async (t) => {
  const server = await startTestServer({
    notifications: true,
    env: { ...TUNING, WATCHLOG_EGRESS_DENY: '127.0.0.0/8' },
  });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  const { projectId, apiKey } = await projectWithKey(server.url, token);
  const receiver = await httpReceiver();
  t.teardown(() => receiver.close());
  const sink = await api(server.url, 'POST', `/v1/projects/${projectId}/sinks`, {
    token,
    body: { type: 'http', url: `http://localhost:${receiver.port}/in` },
  });
  t.is(sink.status, 201);
  await api(server.url, 'POST', '/v1/audit/batch', { apiKey, body: many(2) });
  const refused = await eventually(async () => {
    const s = await api(server.url, 'GET', `/v1/projects/${projectId}/sinks/${sink.body.id}`, { token });
    return s.body.failures >= 1 ? s.body : undefined;
  }, 10_000);
  t.regex(refused.last_error, /egress policy/);
  t.is(refused.lag_records, 2);
  t.is(receiver.requests.length, 0);
});
