import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** An event as it travels: SPEC 2.1 fields plus the idempotency key. */
export type WireEvent = Record<string, unknown> & { idempotency_key: string; path: string; method: string };

/** How the receiver answers one request. */
export type Behaviour =
  /** 202, storing each event once per idempotency key (a repeat is `replayed`), refusing items
   *  without the required fields as the server would. */
  | { kind: 'accept' }
  /** Stores the events, then resets the connection: the answer is lost, the events are not. */
  | { kind: 'store-then-reset' }
  | { kind: 'status'; status: number; retryAfter?: string; body?: unknown }
  /** 413 when the body is larger than `maxBytes`, else accept. */
  | { kind: 'limit'; maxBytes: number }
  /** Destroys the socket as soon as the request arrives. */
  | { kind: 'reset' }
  /** Never answers. */
  | { kind: 'hang' };

export interface Received {
  at: number;
  events: WireEvent[];
  bytes: number;
  headers: IncomingHttpHeaders;
  path: string;
  behaviour: Behaviour['kind'];
}

export interface Receiver {
  url: string;
  port: number;
  /** Every request, in arrival order. */
  requests: Received[];
  /** Stored events, once each, in the order they were stored. */
  stored: WireEvent[];
  /** Answers the next requests with these, then falls back to the default. */
  script(...behaviours: Behaviour[]): void;
  setDefault(behaviour: Behaviour): void;
  /** Resolves once `count` events are stored. */
  waitForStored(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const REQUIRED = ['path', 'method', 'identifier', 'service_name', 'environment'];
const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

const problemOf = (event: WireEvent): string | undefined => {
  for (const field of REQUIRED)
    if (typeof event[field] !== 'string' || (event[field] as string).length === 0) return field;
  if (!METHODS.has(event.method)) return 'method';
  if (event.path.length > 255) return 'path';
  if ((event.identifier as string).length > 100) return 'identifier';
  return undefined;
};

/** A local stand-in for watchlog's `POST /v1/audit/batch` on 127.0.0.1 (a given port, or any). */
export const startReceiver = async (port = 0): Promise<Receiver> => {
  const requests: Received[] = [];
  const stored: WireEvent[] = [];
  const ids = new Map<string, string>();
  const scripted: Behaviour[] = [];
  let fallback: Behaviour = { kind: 'accept' };
  const sockets = new Set<Socket>();
  const storedWaiters = new Set<() => void>();

  const store = (events: WireEvent[]) => {
    const accepted: Array<{ index: number; id: string; replayed?: true }> = [];
    const rejected: Array<{ index: number; details: Array<{ path: string; message: string }> }> = [];
    events.forEach((event, index) => {
      const problem = problemOf(event);
      if (problem) {
        rejected.push({ index, details: [{ path: `${index}.${problem}`, message: 'is invalid' }] });
        return;
      }
      const seen = ids.get(event.idempotency_key);
      if (seen) {
        accepted.push({ index, id: seen, replayed: true });
        return;
      }
      const id = randomUUID();
      ids.set(event.idempotency_key, id);
      stored.push(event);
      accepted.push({ index, id });
    });
    for (const wake of storedWaiters) wake();
    return { accepted, rejected };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let events: WireEvent[] = [];
      try {
        events = JSON.parse(raw.toString('utf8')) as WireEvent[];
      } catch {
        // recorded as empty
      }
      const behaviour = scripted.shift() ?? fallback;
      requests.push({
        at: Date.now(),
        events,
        bytes: raw.length,
        headers: req.headers,
        path: req.url ?? '',
        behaviour: behaviour.kind,
      });
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(body));
      };
      switch (behaviour.kind) {
        case 'accept': {
          const answer = store(events);
          if (answer.accepted.length === 0 && answer.rejected.length > 0) {
            json(400, {
              error: {
                code: 'validation_error',
                message: 'no valid event',
                details: answer.rejected.flatMap((r) => r.details),
              },
            });
          } else json(202, answer);
          return;
        }
        case 'store-then-reset':
          store(events);
          req.socket.destroy();
          return;
        case 'status':
          json(
            behaviour.status,
            behaviour.body ?? { error: { code: 'x', message: `status ${behaviour.status}`, details: [] } },
            behaviour.retryAfter === undefined ? {} : { 'retry-after': behaviour.retryAfter },
          );
          return;
        case 'limit':
          if (raw.length > behaviour.maxBytes)
            json(413, { error: { code: 'payload_too_large', message: 'too large', details: [] } });
          else json(202, store(events));
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          return;
      }
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    requests,
    stored,
    script: (...behaviours) => {
      scripted.push(...behaviours);
    },
    setDefault: (behaviour) => {
      fallback = behaviour;
    },
    waitForStored: (count, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (stored.length < count) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `expected ${count} stored events, have ${stored.length} after ${timeoutMs} ms ` +
                `(${requests.length} requests)`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          storedWaiters.delete(check);
        };
        storedWaiters.add(check);
        check();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
