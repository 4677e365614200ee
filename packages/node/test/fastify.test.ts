import test from 'ava';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Identify, Watchlog } from '../src/index.ts';
import { balanced, request, withReceiver } from './helpers/setup.ts';

const start = async (t: import('ava').ExecutionContext, app: FastifyInstance): Promise<string> => {
  t.teardown(() => app.close());
  return app.listen({ port: 0, host: '127.0.0.1' });
};

/** Routes live in an encapsulated, prefixed child plugin, as Fastify apps are organised: the
 *  SDK's hooks must still see them. */
const shopApp = async (watchlog: Watchlog, identify?: Identify<FastifyRequest>) => {
  const app = Fastify();
  await app.register(watchlog.fastify({ identify }));
  await app.register(
    (api, _options, done) => {
      api.get('/users/:id', async (req) => ({ id: (req.params as { id: string }).id }));
      api.post('/orders/:orderId/pay', async (_req, reply) => {
        reply.code(201);
        return { ok: true, access_token: 'abc' };
      });
      api.get('/fail/:id', async () => {
        throw new Error('ledger offline');
      });
      done();
    },
    { prefix: '/api/v1' },
  );
  return app;
};

test('route templates (prefix included), params, query and status of Fastify requests', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await start(t, await shopApp(watchlog));
  await request(`${base}/api/v1/users/5?sort=desc`, {
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  });
  await request(`${base}/nope/1`);
  await receiver.waitForStored(2);
  const [user, missing] = receiver.stored;
  t.like(user, {
    path: '/api/v1/users/:id',
    method: 'GET',
    status_code: 200,
    path_params: { id: '5' },
    query_params: { sort: 'desc' },
    request_id: '0af7651916cd43dd8448eb211c80319c',
    identifier: 'anonymous',
    source: 'backend',
  });
  t.regex(String(user!.ip), /127\.0\.0\.1/);
  t.like(missing, { path: '/nope/1', status_code: 404 });
  t.false('path_params' in missing!);
  t.true(balanced(watchlog.stats()));
});

test('an error is recorded with its message and the status Fastify answered', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await start(t, await shopApp(watchlog));
  t.is((await request(`${base}/api/v1/fail/1`)).status, 500);
  await receiver.waitForStored(1);
  t.like(receiver.stored[0], { path: '/api/v1/fail/:id', status_code: 500, error_message: 'ledger offline' });
});

test('the plugin is not encapsulated, sets a generated request id, and captures bodies when asked', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { captureBodies: true });
  const base = await start(
    t,
    await shopApp(watchlog, (req) => ({ identifier: String(req.headers['x-user'] ?? ''), tenant_id: 't1' })),
  );
  const res = await request(`${base}/api/v1/orders/3/pay`, {
    method: 'POST',
    headers: { 'x-user': 'bob' },
    body: { pwd: 'x', qty: 2 },
  });
  t.is(res.status, 201);
  await receiver.waitForStored(1);
  t.like(receiver.stored[0], {
    path: '/api/v1/orders/:orderId/pay',
    status_code: 201,
    identifier: 'bob',
    tenant_id: 't1',
    request_body: { pwd: '********', qty: 2 },
    response_body: { ok: true, access_token: '********' },
  });
  t.is(res.headers.get('x-request-id'), receiver.stored[0]!.request_id as string);
});

test('unsupported methods are skipped and counted', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const app = await shopApp(watchlog);
  app.patch('/things/:id', async () => ({ ok: true }));
  const base = await start(t, app);
  t.is((await request(`${base}/things/1`, { method: 'PATCH' })).status, 200);
  await request(`${base}/api/v1/users/1`);
  await receiver.waitForStored(1);
  await watchlog.flush();
  t.is(receiver.stored.length, 1);
  t.is(watchlog.stats().skippedMethods, 1);
});
