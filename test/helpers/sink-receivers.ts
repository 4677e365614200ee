import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { Pem } from './probe-servers.ts';

/** Destinations of log sinks on 127.0.0.1: an HTTP server whose answer to each request a test
 *  chooses (it can stop listening and listen again on the same port: connection refused, then
 *  up), and syslog listeners that parse octet-counted RFC 5424 frames. */

export interface Received {
  headers: http.IncomingHttpHeaders;
  url: string;
  body: string;
}

export interface Answer {
  status: number;
  body?: string;
}

export interface HttpReceiver {
  url: string;
  port: number;
  requests: Received[];
  /** How the next requests are answered (default 200 `{}`), and after how long. */
  answer: (request: Received) => Answer;
  delayMs: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/** The ids of the NDJSON records an HTTP receiver was sent, in the order they arrived. */
export const arrivedIds = (receiver: Pick<HttpReceiver, 'requests'>): string[] =>
  receiver.requests.flatMap((r) =>
    r.body
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { id: string }).id),
  );

/** Each id once, where it first arrived (a batch sent again brings some twice). */
export const firstArrivals = (ids: readonly string[]): string[] => [...new Set(ids)];

export const httpReceiver = async (): Promise<HttpReceiver> => {
  const requests: Received[] = [];
  let server: http.Server | null = null;
  let port = 0;
  const receiver: HttpReceiver = {
    url: '',
    port: 0,
    requests,
    answer: () => ({ status: 200, body: '{}' }),
    delayMs: 0,
    async up() {
      server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const received = { headers: req.headers, url: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') };
          requests.push(received);
          const a = receiver.answer(received);
          const send = () => res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body ?? '{}');
          if (receiver.delayMs > 0) setTimeout(send, receiver.delayMs);
          else send();
        });
      });
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      port = (server.address() as net.AddressInfo).port;
      receiver.port = port;
      receiver.url = `http://127.0.0.1:${port}`;
    },
    async down() {
      const s = server;
      server = null;
      if (s === null) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    close: () => receiver.down(),
  };
  await receiver.up();
  return receiver;
};

export interface SyslogMessage {
  pri: number;
  version: number;
  timestamp: string;
  hostname: string;
  appName: string;
  msgId: string;
  structuredData: string;
  /** The MSG, after its BOM, parsed as JSON. */
  message: Record<string, unknown>;
}

/** RFC 5424: `<PRI>VERSION SP TIMESTAMP SP HOSTNAME SP APP-NAME SP PROCID SP MSGID SP SD SP MSG`. */
export const parseSyslog = (frame: Buffer): SyslogMessage => {
  const text = frame.toString('utf8');
  const m = /^<(\d{1,3})>(\d) (\S+) (\S+) (\S+) (\S+) (\S+) (\[.*?[^\\]\]) \uFEFF(.*)$/s.exec(text);
  if (!m) throw new Error(`not an RFC 5424 message: ${text.slice(0, 200)}`);
  return {
    pri: Number(m[1]),
    version: Number(m[2]),
    timestamp: m[3]!,
    hostname: m[4]!,
    appName: m[5]!,
    msgId: m[7]!,
    structuredData: m[8]!,
    message: JSON.parse(m[9]!) as Record<string, unknown>,
  };
};

export interface SyslogListener {
  port: number;
  messages: SyslogMessage[];
  close(): Promise<void>;
}

/** A TCP (or, with `pem`, TLS) listener reading octet-counted frames (RFC 6587 3.4.1). */
export const syslogListener = async (pem?: Pem): Promise<SyslogListener> => {
  const messages: SyslogMessage[] = [];
  const sockets = new Set<net.Socket>();
  const onSocket = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const space = buffered.indexOf(0x20);
        if (space < 0) return;
        const length = Number(buffered.subarray(0, space).toString('ascii'));
        if (!Number.isInteger(length) || length <= 0) throw new Error('not an octet-counted frame');
        if (buffered.length < space + 1 + length) return;
        messages.push(parseSyslog(buffered.subarray(space + 1, space + 1 + length)));
        buffered = buffered.subarray(space + 1 + length);
      }
    });
    socket.on('end', () => socket.end());
  };
  const server = pem ? tls.createServer({ key: pem.key, cert: pem.cert }, onSocket) : net.createServer(onSocket);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    messages,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
