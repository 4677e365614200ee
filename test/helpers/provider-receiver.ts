import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** The body parsed as JSON (undefined when it is not); tests assert on whatever it holds. */
  // biome-ignore lint/suspicious/noExplicitAny: a provider's JSON, read field by field by the assertions
  json: any;
}

export interface Answer {
  status: number;
  body?: string;
  delayMs?: number;
}

/** A provider's endpoint on 127.0.0.1 (Slack, Discord, Teams, PagerDuty, ntfy, a webhook): it
 *  keeps every request and answers as `answer` says for the n-th (0-based) one. */
export const providerReceiver = async (
  answer: (n: number, request: Received) => Answer = () => ({ status: 200, body: 'ok' }),
) => {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const request: Received = { at: Date.now(), path: req.url ?? '', headers: req.headers, raw, json };
      received.push(request);
      const { status, body = '', delayMs = 0 } = answer(received.length - 1, request);
      const send = () => {
        if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
      };
      if (delayMs > 0) setTimeout(send, delayMs).unref();
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
};
