import test from 'ava';
import express, { type Request } from 'express';
import http from 'node:http';
import { nearestMethod, type Identify, type Watchlog } from '../src/index.ts';
import { matchedRoute } from '../src/adapters/express.ts';
import { balanced, listen, request, withReceiver } from './helpers/setup.ts';

interface User {
  id: string;
  email: string;
  roles: string[];
}
type Authed = Request & { user?: User };

/** An app as people write them: a router mounted under a parameterised prefix, a JSON body
 *  parser, an auth middleware, and the SDK mounted first with its error middleware after. */
const shopApp = (watchlog: Watchlog, identify?: Identify<Authed>) => {
  const app = express();
  app.use(watchlog.express({ identify }));
  app.use(express.json());
  app.use((req: Authed, _res, next) => {
    const token = req.get('authorization');
    if (token === 'Bearer alice') req.user = { id: 'u-alice', email: 'alice@example.com', roles: ['admin', 'buyer'] };
    next();
  });
  const api = express.Router({ mergeParams: true });
  api.get('/users/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  api.post('/orders/:orderId/pay', (req, res) => {
    res.status(201).json({ ok: true, card: (req.body as { card?: string }).card, token: 'tok_123' });
  });
  api.put('/items/:id', (_req, res) => {
    res.json({ ok: true });
  });
  api.patch('/items/:id', (_req, res) => {
    res.json({ patched: true });
  });
  api.get('/fail/:id', async () => {
    await new Promise((r) => setTimeout(r, 1));
    throw new Error('payment backend down');
  });
  api.get('/list', (_req, res) => {
    res.json([1, 2, 3]);
  });
  api.post('/echo', (req, res) => {
    res.json(req.body);
  });
  app.use('/api/:version', api);
  app.use(watchlog.expressErrors());
  return app;
};

test('route templates, params, query, status and timing of Express requests', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(t, http.createServer(shopApp(watchlog)));
  await request(`${base}/api/v1/users/42?expand=orders&tag=a&tag=b`, { headers: { 'user-agent': 'test-agent/1.0' } });
  await request(`${base}/nowhere/7?x=1`);
  await receiver.waitForStored(2);
  const [user, missing] = receiver.stored;
  t.like(user, {
    path: '/api/v1/users/:id',
    method: 'GET',
    status_code: 200,
    service_name: 'shop',
    environment: 'staging',
    source: 'backend',
    identifier: 'anonymous',
    user_agent: 'test-agent/1.0',
    path_params: { version: 'v1', id: '42' },
    query_params: { expand: 'orders', tag: ['a', 'b'] },
  });
  t.true(Number.isInteger(user!.response_time) && (user!.response_time as number) >= 0);
  t.regex(String(user!.ip), /127\.0\.0\.1/);
  t.is(typeof user!.idempotency_key, 'string');
  // No route matched: the URL path without its query, no path params.
  t.like(missing, { path: '/nowhere/7', status_code: 404, query_params: { x: '1' } });
  t.false('path_params' in missing!);
  t.true(balanced(watchlog.stats()));
});

test('an error thrown in a mounted router keeps its route template, status and message', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(t, http.createServer(shopApp(watchlog)));
  const res = await request(`${base}/api/v2/fail/9`);
  t.is(res.status, 500);
  await receiver.waitForStored(1);
  // Express has put the mount's params back by then: the route's own remain.
  t.like(receiver.stored[0], { path: '/api/v2/fail/:id', status_code: 500, error_message: 'payment backend down' });
  t.deepEqual(receiver.stored[0]!.path_params, { id: '9' });
});

test(
  'request ids: X-Request-ID is kept, ' + 'a traceparent gives its trace id, else one is generated and returned',
  async (t) => {
    const { receiver, watchlog } = await withReceiver(t);
    const base = await listen(t, http.createServer(shopApp(watchlog)));
    const given = await request(`${base}/api/v1/users/1`, { headers: { 'x-request-id': 'req-abc-123' } });
    const traced = await request(`${base}/api/v1/users/2`, {
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });
    const bad = await request(`${base}/api/v1/users/3`, {
      headers: { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
    });
    await receiver.waitForStored(3);
    const ids = new Map(receiver.stored.map((e) => [(e.path_params as { id: string }).id, e.request_id]));
    t.is(ids.get('1'), 'req-abc-123');
    t.is(given.headers.get('x-request-id'), null, 'an id the caller sent is not echoed');
    t.is(ids.get('2'), '4bf92f3577b34da6a3ce929d0e0e4736');
    t.is(traced.headers.get('x-request-id'), null);
    t.regex(String(ids.get('3')), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    t.is(bad.headers.get('x-request-id'), ids.get('3') as string);
  },
);

test('identify() fills the user fields, sync or async; a long identifier is cut to 100', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(
    t,
    http.createServer(
      shopApp(watchlog, async (req) => {
        await new Promise((r) => setTimeout(r, 2));
        if (req.get('x-long')) return 'x'.repeat(150);
        return (
          req.user && {
            identifier: req.user.id,
            user_email: req.user.email,
            user_roles: req.user.roles,
            tenant_id: 'acme',
            session_id: 's-1',
            user_type: 'staff',
            user_name: 'Alice',
          }
        );
      }),
    ),
  );
  await request(`${base}/api/v1/users/1`, { headers: { authorization: 'Bearer alice' } });
  await request(`${base}/api/v1/users/2`, { headers: { 'x-long': '1' } });
  await request(`${base}/api/v1/users/3`);
  await receiver.waitForStored(3);
  const byId = new Map(receiver.stored.map((e) => [(e.path_params as { id: string }).id, e]));
  t.like(byId.get('1'), {
    identifier: 'u-alice',
    user_email: 'alice@example.com',
    user_roles: ['admin', 'buyer'],
    tenant_id: 'acme',
    session_id: 's-1',
    user_type: 'staff',
    user_name: 'Alice',
  });
  t.is(byId.get('2')!.identifier, 'x'.repeat(100));
  t.is(byId.get('3')!.identifier, 'anonymous');
});

test('bodies are opt-in, JSON objects only, masked, and replaced by a marker past the cap', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { captureBodies: true, maxBodyBytes: 1024 });
  const base = await listen(t, http.createServer(shopApp(watchlog)));
  await request(`${base}/api/v1/orders/5/pay?api_key=secret-in-query`, {
    method: 'POST',
    body: { card: '4111 1111 1111 1111', password: 'hunter2', amount: 10 },
  });
  await request(`${base}/api/v1/list`);
  await request(`${base}/api/v1/echo`, { method: 'POST', body: { blob: 'x'.repeat(2000) } });
  await receiver.waitForStored(3);
  const [pay, list, big] = receiver.stored;
  t.deepEqual(pay!.request_body, { card: '**** **** **** 1111', password: '********', amount: 10 });
  t.deepEqual(pay!.response_body, { ok: true, card: '**** **** **** 1111', token: '********' });
  t.deepEqual(pay!.query_params, { api_key: '********' });
  t.is(pay!.status_code, 201);
  t.false('response_body' in list!, 'an array is not a JSON object');
  t.like(big!.request_body, { _watchlog_omitted: 'too_large', limit: 1024 });
  t.like(big!.response_body, { _watchlog_omitted: 'too_large', limit: 1024 });
});

test('bodies are not sent unless asked for', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(t, http.createServer(shopApp(watchlog)));
  await request(`${base}/api/v1/orders/5/pay`, { method: 'POST', body: { card: '4111 1111 1111 1111' } });
  await receiver.waitForStored(1);
  t.false('request_body' in receiver.stored[0]!);
  t.false('response_body' in receiver.stored[0]!);
});

test('methods SPEC does not accept are skipped and counted by default, or mapped', async (t) => {
  const skipping = await withReceiver(t);
  const base = await listen(t, http.createServer(shopApp(skipping.watchlog)));
  t.is((await request(`${base}/api/v1/items/1`, { method: 'PATCH' })).status, 200);
  await request(`${base}/api/v1/items/1`, { method: 'OPTIONS' });
  await request(`${base}/api/v1/items/1`, { method: 'PUT' });
  await skipping.receiver.waitForStored(1);
  await skipping.watchlog.flush();
  t.is(skipping.receiver.stored.length, 1);
  t.is(skipping.receiver.stored[0]!.method, 'PUT');
  t.is(skipping.watchlog.stats().skippedMethods, 2);

  const mapping = await withReceiver(t, { unsupportedMethods: nearestMethod });
  const base2 = await listen(t, http.createServer(shopApp(mapping.watchlog)));
  await request(`${base2}/api/v1/items/1`, { method: 'PATCH' });
  await request(`${base2}/api/v1/users/1`, { method: 'HEAD' });
  await request(`${base2}/api/v1/items/1`, { method: 'OPTIONS' });
  await mapping.receiver.waitForStored(2);
  await mapping.watchlog.flush();
  t.deepEqual(mapping.receiver.stored.map((e) => `${e.method} ${e.path}`).sort(), [
    'GET /api/v1/users/:id',
    'PUT /api/v1/items/:id',
  ]);
  t.is(mapping.watchlog.stats().skippedMethods, 1);
});

test('requestId(req) gives the handler the id being recorded', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const app = express();
  app.use(watchlog.express());
  app.get('/who', (req, res) => {
    res.json({ id: watchlog.requestId(req) });
  });
  const base = await listen(t, http.createServer(app));
  const res = await request(`${base}/who`);
  await receiver.waitForStored(1);
  t.is((res.json as { id: string }).id, receiver.stored[0]!.request_id as string);
});

test('matchedRoute: where a route sits in the URL, when Express has put baseUrl and params back', (t) => {
  t.deepEqual(matchedRoute('/fail/:id', '/api/v2/fail/9?x=1', '', {}), {
    template: '/api/v2/fail/:id',
    params: { id: '9' },
  });
  t.deepEqual(
    matchedRoute('/users/:id', '/users/a%20b/', '', undefined),
    { template: '/users/:id', params: { id: 'a b' } },
    'decoded, trailing slash allowed',
  );
  t.deepEqual(
    matchedRoute('/Users/:id', '/users/1', '', {}),
    { template: '/Users/:id', params: { id: '1' } },
    'case-insensitive literals',
  );
  t.deepEqual(matchedRoute('/', '/api/v1/', '', {}), { template: '/api/v1/', params: {} });
  t.is(
    matchedRoute('/items/:id', '/other/7', '', {}),
    undefined,
    'a route that passed the request on is not its route',
  );
  t.deepEqual(
    matchedRoute('/files/*path', '/static/files/a/b', '/static', { path: ['a', 'b'] }),
    { template: '/static/files/*path', params: { path: ['a', 'b'] } },
    'other route paths are read as Express leaves them',
  );
});
