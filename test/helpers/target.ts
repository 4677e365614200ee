import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A monitored target on 127.0.0.1 whose answer the test controls. */
export interface Target {
  url: string;
  status: number;
  /** Milliseconds to wait before answering. */
  delayMs: number;
  hits: number;
  /** TCP connections accepted. */
  connections: number;
  close(): Promise<void>;
}

export const startTarget = async (status = 200): Promise<Target> => {
  const sockets = new Set<import('node:net').Socket>();
  const target: Target = {
    url: '',
    status,
    delayMs: 0,
    hits: 0,
    connections: 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    target.hits += 1;
    const answer = () => {
      if (req.url?.startsWith('/redirect')) {
        // `/redirect?to=<url>` redirects there; `/redirect` to `/`.
        res.writeHead(301, { location: new URL(req.url, 'http://target').searchParams.get('to') ?? '/' }).end();
        return;
      }
      res.writeHead(target.status, { 'content-type': 'text/plain' }).end('target');
    };
    if (target.delayMs > 0) setTimeout(answer, target.delayMs).unref();
    else answer();
  });
  server.on('connection', (s) => {
    target.connections += 1;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
  return target;
};
