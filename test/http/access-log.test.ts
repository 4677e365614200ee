import test from 'ava';
import { api, capturingLogger, login, projectWithKey, sampleEvent, startTestServer } from '../helpers/server.ts';

test(
  'access log: one line per response with request id, status and time; ' +
    'probes and accepted ingests at debug; never a header',
  async (t) => {
    const { logger, lines } = capturingLogger('debug');
    const server = await startTestServer({ logger });
    t.teardown(() => server.stop());
    const token = await login(server.url);
    const { apiKey } = await projectWithKey(server.url, token);
    for (const path of ['/healthz', '/readyz']) await api(server.url, 'GET', path);
    t.is((await api(server.url, 'POST', '/v1/audit', { apiKey, body: sampleEvent() })).status, 202);
    const listed = await api(server.url, 'GET', '/v1/projects', { token, headers: { 'x-request-id': 'trace-123' } });
    t.is(listed.headers.get('x-request-id'), 'trace-123');
    await new Promise((r) => setTimeout(r, 50));

    const requests = lines.filter((l) => l.msg === 'request');
    const of = (url: string) => requests.filter((l) => (l.req as { url: string }).url === url);
    for (const path of ['/healthz', '/readyz'])
      t.deepEqual(
        of(path).map((l) => l.level),
        [20],
        `${path} at debug`,
      );
    t.deepEqual(
      of('/v1/audit').map((l) => l.level),
      [20],
      'an accepted ingest at debug',
    );
    const [projects] = of('/v1/projects').filter((l) => (l.req as { method: string }).method === 'GET');
    t.like(projects, {
      level: 30,
      reqId: 'trace-123',
      req: { id: 'trace-123', method: 'GET', url: '/v1/projects' },
      res: { statusCode: 200 },
      msg: 'request',
    });
    t.is(typeof projects!.responseTime, 'number');
    const all = JSON.stringify(lines);
    t.false(all.includes(token), 'no token');
    t.false(all.includes(apiKey), 'no API key');
    t.false(/authorization|x-api-key/i.test(JSON.stringify(requests)), 'no headers at all');
  },
);

test('a request that fails on the server (500) is logged at error, with its request id', async (t) => {
  const { logger, lines } = capturingLogger('info');
  const server = await startTestServer({ logger });
  t.teardown(() => server.stop());
  const token = await login(server.url);
  await api(server.url, 'GET', '/v1/projects', { token });
  // The read store goes away under the running app.
  await server.runtime.readModels.close();
  const res = await api(server.url, 'GET', '/v1/projects', { token, headers: { 'x-request-id': 'broken-1' } });
  t.is(res.status, 500);
  await new Promise((r) => setTimeout(r, 50));
  const line = lines.find((l) => (l.req as { id?: string } | undefined)?.id === 'broken-1');
  t.like(line, { level: 50, res: { statusCode: 500 } });
});
