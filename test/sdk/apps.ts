import type { ExecutionContext } from 'ava';
import autocannon from 'autocannon';
import Router from '@koa/router';
import Fastify from 'fastify';
import Koa from 'koa';
import type expressType from 'express';
import { once } from 'node:events';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { Watchlog } from '@watchlog/node';
import { api, login, projectWithKey } from '../helpers/server.ts';
import { runCli, waitForLog, type CliProcess } from '../helpers/process.ts';
import { repoPath } from '../helpers/root.ts';

/** Host applications for the SDK's end-to-end tests: each records the request id the SDK gave
 *  every request it handled, so a test can hold the stored events against them. */

// The root's own `express` is v4 (a test tool depends on it); the SDK targets Express 5, a dev
// dependency of packages/node.
const express = createRequire(repoPath('packages/node/package.json'))('express') as typeof expressType;

export type Framework = 'express' | 'koa' | 'fastify';

export interface HostApp {
  url: string;
  handled: string[];
}

export const startApp = async (t: ExecutionContext, framework: Framework, watchlog: Watchlog): Promise<HostApp> => {
  const handled: string[] = [];
  const note = (req: http.IncomingMessage) => handled.push(watchlog.requestId(req) ?? 'missing');
  if (framework === 'fastify') {
    const app = Fastify();
    await app.register(watchlog.fastify({ identify: (req) => String(req.headers['x-user'] ?? 'load') }));
    app.get('/orders/:id', async (req) => {
      note(req.raw);
      return { id: (req.params as { id: string }).id };
    });
    t.teardown(() => app.close());
    return { url: await app.listen({ port: 0, host: '127.0.0.1' }), handled };
  }
  let server: http.Server;
  if (framework === 'express') {
    const app = express();
    app.use(watchlog.express({ identify: (req) => String(req.headers['x-user'] ?? 'load') }));
    app.get('/orders/:id', (req, res) => {
      note(req);
      res.json({ id: req.params.id });
    });
    server = http.createServer(app);
  } else {
    const app = new Koa();
    app.use(watchlog.koa({ identify: (ctx) => String(ctx.req.headers['x-user'] ?? 'load') }));
    const router = new Router();
    router.get('/orders/:id', (ctx) => {
      note(ctx.req);
      ctx.body = { id: ctx.params.id };
    });
    app.use(router.routes());
    server = http.createServer(app.callback());
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, handled };
};

/** `amount` requests at `rate` per second (over all connections). */
export const drive = async (url: string, amount: number, rate: number) => {
  const result = await autocannon({ url: `${url}/orders/42?channel=web`, amount, connections: 10, overallRate: rate });
  return { ok: result['2xx'], other: result.non2xx + result.errors + result.timeouts };
};

/** Every event of the project, as the admin's export gives them. */
export const exported = async (base: string, token: string, projectId: string) =>
  (
    await api<Array<{ request_id?: string; path: string; method: string; service_name: string }>>(
      base,
      'GET',
      `/v1/audit/export?format=json&project_id=${projectId}`,
      { token },
    )
  ).body;

/** Stops `service` (SIGKILL: no drain at all; SIGTERM: the graceful drain) and waits for it. */
export const stop = async (service: CliProcess, signal: 'SIGKILL' | 'SIGTERM') => {
  service.child.kill(signal);
  await service.exited;
};

/** `watchlog start` again on the same data dir and port, killed at teardown. */
export const restart = async (t: ExecutionContext, env: Record<string, string>): Promise<CliProcess> => {
  const service = runCli(['start'], env);
  t.teardown(() => service.child.kill('SIGKILL'));
  await waitForLog(service, 'listening', 60_000);
  return service;
};

export const projectFor = async (base: string, name: string) => {
  const token = await login(base);
  return { token, ...(await projectWithKey(base, token, name)) };
};
