import test from 'ava';
import Router from '@koa/router';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { createWatchlog, type Watchlog } from '../src/index.ts';
import { startReceiver } from './helpers/receiver.ts';
import { closedPort, listen, request, testOptions, type Answer } from './helpers/setup.ts';

/** The SDK at its worst: nothing listening, an identify() that throws, a logger and an onError
 *  that throw too. */
const brokenWatchlog = async () =>
  createWatchlog(
    testOptions(`http://127.0.0.1:${await closedPort()}`, {
      logger: {
        warn: () => {
          throw new Error('logger down');
        },
        error: () => {
          throw new Error('logger down');
        },
      },
      onError: () => {
        throw new Error('callback down');
      },
      captureBodies: true,
      requestTimeoutMs: 100,
    }),
  );

const throwingIdentify = () => {
  throw new Error('session store down');
};

type Probe = { path: string; method?: string; body?: unknown };
const PROBES: Probe[] = [
  { path: '/items/1?x=1' },
  { path: '/items/2', method: 'POST', body: { name: 'n', password: 'p' } },
  { path: '/fail' },
  { path: '/missing' },
  { path: '/items/3', method: 'PATCH' },
];

/** What the client sees, minus the two headers that differ by nature (Date, and the id the SDK
 *  adds when it generates one). */
const visible = (a: Answer) => {
  const headers = Object.fromEntries([...a.headers].filter(([k]) => k !== 'date' && k !== 'x-request-id'));
  return { status: a.status, text: a.text, headers };
};

const answers = async (base: string) => {
  const out = [];
  for (const p of PROBES) out.push(visible(await request(`${base}${p.path}`, { method: p.method, body: p.body })));
  return out;
};

const expressApp = (watchlog?: Watchlog) => {
  const app = express();
  if (watchlog) app.use(watchlog.express({ identify: throwingIdentify }));
  app.use(express.json());
  app.get('/items/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  app.post('/items/:id', (req, res) => {
    res.status(201).json(req.body);
  });
  app.patch('/items/:id', (_req, res) => {
    res.send('patched');
  });
  app.get('/fail', () => {
    throw new Error('boom');
  });
  if (watchlog) app.use(watchlog.expressErrors());
  return http.createServer(app);
};

const koaApp = (watchlog?: Watchlog) => {
  const app = new Koa();
  app.silent = true;
  if (watchlog) app.use(watchlog.koa({ identify: throwingIdentify }));
  const router = new Router();
  router.get('/items/:id', (ctx) => {
    ctx.body = { id: ctx.params.id };
  });
  router.post('/items/:id', (ctx) => {
    ctx.status = 201;
    ctx.body = { ok: true };
  });
  router.patch('/items/:id', (ctx) => {
    ctx.body = 'patched';
  });
  router.get('/fail', () => {
    throw new Error('boom');
  });
  app.use(router.routes());
  return http.createServer(app.callback());
};

const fastifyApp = async (watchlog?: Watchlog) => {
  const app = Fastify();
  if (watchlog) await app.register(watchlog.fastify({ identify: throwingIdentify }));
  app.get('/items/:id', async (req) => ({ id: (req.params as { id: string }).id }));
  app.post('/items/:id', async (req, reply) => {
    reply.code(201);
    return req.body;
  });
  app.patch('/items/:id', async () => 'patched');
  app.get('/fail', async () => {
    throw new Error('boom');
  });
  return app;
};

const httpApp = (watchlog?: Watchlog) => {
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.url === '/fail') {
      res.statusCode = 500;
      res.end('failed');
      return;
    }
    res.setHeader('content-type', 'text/plain');
    res.end(`${req.method} ${req.url}`);
  };
  return http.createServer(watchlog ? watchlog.http(handler, { identify: throwingIdentify }) : handler);
};

for (const [name, make] of [
  ['express', expressApp],
  ['koa', koaApp],
  ['http', httpApp],
] as const) {
  test(`${name}: an unreachable endpoint and a throwing identify() change nothing the client sees`, async (t) => {
    const watchlog = await brokenWatchlog();
    t.teardown(() => watchlog.close({ timeoutMs: 10 }).then(() => undefined));
    const bare = await answers(await listen(t, make()));
    const started = Date.now();
    const wrapped = await answers(await listen(t, make(watchlog)));
    t.deepEqual(wrapped, bare);
    t.true(Date.now() - started < 2000, 'no request waited on watchlog');
    t.true(watchlog.stats().queued >= 4);
  });
}

test('fastify: an unreachable endpoint and a throwing identify() change nothing the client sees', async (t) => {
  const watchlog = await brokenWatchlog();
  t.teardown(() => watchlog.close({ timeoutMs: 10 }).then(() => undefined));
  const bareApp = await fastifyApp();
  const wrappedApp = await fastifyApp(watchlog);
  t.teardown(async () => {
    await bareApp.close();
    await wrappedApp.close();
  });
  const bare = await answers(await bareApp.listen({ port: 0, host: '127.0.0.1' }));
  const wrapped = await answers(await wrappedApp.listen({ port: 0, host: '127.0.0.1' }));
  t.deepEqual(wrapped, bare);
  t.true(watchlog.stats().queued >= 4);
});

test('a watchlog that accepts connections but never answers does not slow responses down', async (t) => {
  const receiver = await startReceiver();
  receiver.setDefault({ kind: 'hang' });
  const watchlog = createWatchlog(
    testOptions(receiver.url, { logger: null, batchMaxEvents: 1, requestTimeoutMs: 60_000 }),
  );
  t.teardown(async () => {
    await watchlog.close({ timeoutMs: 10 });
    await receiver.close();
  });
  const base = await listen(t, expressApp(watchlog));
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    t.is((await request(`${base}/items/${i}`)).status, 200);
    // Waiting on watchlog would take the whole 60 s request timeout.
    t.true(performance.now() - started < 5000);
  }
  t.true(receiver.requests.length >= 1);
});

test('queued events and retry timers never keep the process alive', async (t) => {
  const port = await closedPort();
  const child = fileURLToPath(new URL('./helpers/exits.ts', import.meta.url));
  const started = Date.now();
  const proc = spawn(process.execPath, ['--import', 'tsx', child, `http://127.0.0.1:${port}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const [code] = (await once(proc, 'exit')) as [number | null];
  t.is(code, 0);
  t.regex(out, /pending 3/);
  // tsx's start-up takes most of this; a live timer would hold it for the 60 s flush interval.
  t.true(Date.now() - started < 15_000);
});
