import test from 'ava';
import { driveServer, everyOperationDriven } from '../../helpers/openapi-driver.ts';

/** Log sinks, each real answer checked against the description (test/helpers/openapi-driver.ts).
 *  The reactors do not run here: every sink stands where it was created, its lag counted. */

const drive = driveServer({});
const ids: Record<string, string> = {};

test.serial.before(async () => {
  const { server, admin } = drive();
  const res = await fetch(`${server.url}/v1/projects`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sinks' }),
  });
  ids.project = ((await res.json()) as { id: string }).id;
});

test.serial('log sinks: create, list, read, change and delete, secrets masked', async (t) => {
  const token = drive().admin;
  const base = `/v1/projects/${ids.project}/sinks`;
  const bodies = [
    { type: 'http', url: 'https://siem.example.com/in', secret: 'a shared secret', filter: { event_type: ['http'] } },
    { type: 'splunk_hec', url: 'https://splunk.example.com:8088/services/collector/event', token: 'hec' },
    { type: 'elastic', url: 'https://es.example.com', index: 'audit', username: 'u', password: 'p' },
    { type: 'datadog', api_key: 'dd-key', tags: ['env:prod'] },
    { type: 'syslog', host: 'syslog.example.com', tls: true },
    { type: 'otlp_logs', url: 'https://otel.example.com/v1/logs', headers: { authorization: 'Bearer x' } },
  ];
  for (const body of bodies) {
    const created = await drive().call(t, 'POST /v1/projects/:id/sinks', base, { token, body }, 201);
    ids[body.type] = (created.body as { id: string }).id;
    t.false(JSON.stringify(created.body).match(/shared secret|"hec"|dd-key|Bearer x|"p"/) !== null);
  }
  const list = await drive().call(t, 'GET /v1/projects/:id/sinks', base, { token }, 200);
  t.is((list.body as unknown[]).length, bodies.length);
  const one = await drive().call(t, 'GET /v1/projects/:id/sinks/:sinkId', `${base}/${ids.http}`, { token }, 200);
  t.like(one.body, { state: 'active', lag_records: 0, settings: { secret: '********' } });
  const syslog = await drive().call(t, 'GET /v1/projects/:id/sinks/:sinkId', `${base}/${ids.syslog}`, { token }, 200);
  t.like(syslog.body, { settings: { port: 6514, tls: true, app_name: 'watchlog' } });
  const paused = await drive().call(
    t,
    'PUT /v1/projects/:id/sinks/:sinkId',
    `${base}/${ids.http}`,
    { token, body: { active: false, name: 'siem' } },
    200,
  );
  t.like(paused.body, { state: 'paused', name: 'siem', active: false });
  await drive().call(t, 'DELETE /v1/projects/:id/sinks/:sinkId', `${base}/${ids.http}`, { token }, 204);
  await drive().call(t, 'GET /v1/projects/:id/sinks/:sinkId', `${base}/${ids.http}`, { token }, 404);
});

everyOperationDriven('answers-sinks.test.ts', drive);
