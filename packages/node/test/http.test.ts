import test from 'ava';
import http from 'node:http';
import net from 'node:net';
import { CLIENT_CLOSED } from '../src/index.ts';
import { listen, request, until, withReceiver } from './helpers/setup.ts';

test('plain node:http: the URL path without the query, query params, a route of your own', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const plain = await listen(
    t,
    http.createServer(
      watchlog.http((_req, res) => {
        res.statusCode = 204;
        res.end();
      }),
    ),
  );
  const routed = await listen(
    t,
    http.createServer(
      watchlog.http(
        (_req, res) => {
          res.end('ok');
        },
        {
          route: (req) => (req.url?.startsWith('/files/') ? '/files/:name' : undefined),
          identify: (req) => req.headers['x-user'] as string | undefined,
        },
      ),
    ),
  );
  await request(`${plain}/health/deep?verbose=1&verbose=2&token=abc`, { method: 'DELETE' });
  await request(`${routed}/files/report.pdf`, { headers: { 'x-user': 'carol' } });
  await receiver.waitForStored(2);
  const byPath = new Map(receiver.stored.map((e) => [e.path, e]));
  t.like(byPath.get('/health/deep'), {
    method: 'DELETE',
    status_code: 204,
    query_params: { verbose: ['1', '2'], token: '********' },
    identifier: 'anonymous',
  });
  t.like(byPath.get('/files/:name'), { method: 'GET', status_code: 200, identifier: 'carol' });
});

test('a rejected handler promise gives error_message; the handler still decides the response', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(
    t,
    http.createServer(
      watchlog.http(async (_req, res) => {
        res.statusCode = 502;
        res.end('bad gateway');
        throw new Error('upstream timed out');
      }),
    ),
  );
  const res = await request(`${base}/proxy`);
  t.is(res.status, 502);
  t.is(res.text, 'bad gateway');
  await receiver.waitForStored(1);
  t.like(receiver.stored[0], { path: '/proxy', status_code: 502, error_message: 'upstream timed out' });
});

test('a client that leaves before the response is recorded as 499', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let entered = false;
  const base = await listen(
    t,
    http.createServer(
      watchlog.http(async (_req, res) => {
        entered = true;
        await released;
        if (!res.destroyed) res.end('too late');
      }),
    ),
  );
  const { port } = new URL(base);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await until(() => entered);
  socket.destroy();
  await receiver.waitForStored(1);
  release();
  t.like(receiver.stored[0], {
    path: '/slow',
    status_code: CLIENT_CLOSED,
    error_message: 'client closed the connection before the response was complete',
  });
});

test('paths longer than 255 characters are cut, never refused', async (t) => {
  const { receiver, watchlog } = await withReceiver(t);
  const base = await listen(
    t,
    http.createServer(
      watchlog.http((_req, res) => {
        res.end();
      }),
    ),
  );
  await request(`${base}/${'a'.repeat(400)}`);
  await receiver.waitForStored(1);
  t.is(receiver.stored[0]!.path.length, 255);
  t.is(watchlog.stats().rejected, 0);
});
