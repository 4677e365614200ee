import test from 'ava';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import http from 'node:http';
import type { Identify, Watchlog } from '../src/index.ts';
import { balanced, listen, request, withReceiver } from './helpers/setup.ts';

/** The smallest JSON body parser, so the test needs no body-parser package. */
const jsonBody: Koa.Middleware = async (ctx, next) => {
  if (ctx.is('application/json')) {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
    (ctx.request as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }
  await next();
};

const shopApp = (watchlog: Watchlog, identify?: Identify<Context>) => {
  const app = new Koa();
  app.silent = true;
  app.use(watchlog.koa({ identify }));
  app.use(jsonBody);
  const router = new Router({ prefix: '/api' });
  router.get('/users/:id', (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  router.post('/orders/:orderId/pay', (ctx) => {
    ctx.status = 201;
    ctx.body = { ok: true, password: 'p' };
  });
  router.get('/fail/:id', () => {
    throw new Error('inventory unavailable');
  });
  router.get('/denied', (ctx) => {
    ctx.throw(403, 'not yours');
  });
  app.use(router.routes());
  return app;
};

test('route templates (router prefix included), params, query and status of Koa requests', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(t, http.createServer(shopApp(watchlog).callback()));
  await request(`${base}/api/users/7?fields=name&fields=email`, { headers: { 'x-request-id': 'koa-1' } });
  await request(`${base}/missing?x=1`);
  await receiver.waitForStored(2);
  const [user, missing] = receiver.stored;
  t.like(user, {
    path: '/api/users/:id',
    method: 'GET',
    status_code: 200,
    path_params: { id: '7' },
    query_params: { fields: ['name', 'email'] },
    request_id: 'koa-1',
    identifier: 'anonymous',
    source: 'backend',
    service_name: 'shop',
  });
  t.true(Number.isInteger(user!.response_time));
  t.like(missing, { path: '/missing', status_code: 404 });
  t.false('path_params' in missing!);
  t.true(balanced(watchlog.stats()));
});

test('a thrown error is recorded with the status Koa answered and its message, and still reaches Koa', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const app = shopApp(watchlog);
  const seen: string[] = [];
  app.on('error', (err: Error) => seen.push(err.message));
  const base = await listen(t, http.createServer(app.callback()));
  t.is((await request(`${base}/api/fail/3`)).status, 500);
  t.is((await request(`${base}/api/denied`)).status, 403);
  await receiver.waitForStored(2);
  const byPath = new Map(receiver.stored.map((e) => [e.path, e]));
  t.like(byPath.get('/api/fail/:id'), {
    status_code: 500,
    error_message: 'inventory unavailable',
    path_params: { id: '3' },
  });
  t.like(byPath.get('/api/denied'), { status_code: 403, error_message: 'not yours' });
  t.deepEqual(seen.sort(), ['inventory unavailable', 'not yours'], "Koa's own error event still fires");
});

test('a generated request id is returned to the caller and recorded', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(t, http.createServer(shopApp(watchlog).callback()));
  const res = await request(`${base}/api/users/1`);
  await receiver.waitForStored(1);
  t.truthy(res.headers.get('x-request-id'));
  t.is(res.headers.get('x-request-id'), receiver.stored[0]!.request_id as string);
});

test('identify() gets the Koa context; bodies are captured and masked when asked for', async (t) => {
  const { receiver, watchlog } = await withReceiver(t, { captureBodies: { request: true, response: true } });
  const base = await listen(
    t,
    http.createServer(shopApp(watchlog, (ctx) => ctx.get('x-user') || undefined).callback()),
  );
  await request(`${base}/api/orders/9/pay`, {
    method: 'POST',
    headers: { 'x-user': 'u-9' },
    body: { card: '5500-0000-0000-0004', note: 'hi' },
  });
  await receiver.waitForStored(1);
  t.like(receiver.stored[0], {
    path: '/api/orders/:orderId/pay',
    status_code: 201,
    identifier: 'u-9',
    request_body: { card: '****-****-****-0004', note: 'hi' },
    response_body: { ok: true, password: '********' },
  });
});
